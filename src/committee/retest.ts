/**
 * Test-retest reliability of each judge from `ipi-judge label --repeats K`: the same judge, the same
 * trajectory, K independent requests. Repeat 0 against each other repeat (percent agreement, Cohen's kappa,
 * six buckets and binary), and Fleiss' kappa across all K repeats.
 */
import { BUCKETS, type Bucket, type Verdict } from "../types.js";
import { BINARY, binaryOf } from "../rubric/buckets.js";
import { compareManyRaters, compareTwoRaters, type BootstrapSettings, type ManyRaterComparison, type TwoRaterComparison } from "../agree/pairwise.js";
import { voteOf } from "../verdict/vote.js";
import { isCodeEstablished } from "../verdict/code-established.js";

/** One judge's repeat-0 vs repeat-r comparison. */
export interface RepeatPair {
  repeat: number;
  six: TwoRaterComparison;
  binary: TwoRaterComparison;
  /**
   * The judge's own claims (`label_claimed`, before the evidence checks) of the two repeats, over trajectories where
   * both are ok and claimed a bucket: how many, how many differ, and how many of those ended with the same label (code's
   * downgrades made them agree: new user 28, a judge whose claims differed on 11% of pairs read kappa 1.000).
   */
  claimed: ClaimedPairs;
  /**
   * Pairs with a label code set (`label_basis` `exposure_found` / `injection_absent`: no finding held) on both repeats,
   * which agree by construction (break53 #9: kappa 1.000 over 58 pairs all set by code, no judge call varied), or on one
   * (the judge's own answers may have differed and code made them meet: break2_53, 41 of 73 such pairs read as the
   * judge's agreement), and the figures over the pairs whose two labels the judge's verified evidence made; those are
   * null with a reason when none is left. Absent when no labelled pair has a label set by code.
   */
  code_set?: CodeSetPairs;
}

/** See {@link RepeatPair.code_set}. */
export interface CodeSetPairs {
  /** Pairs both repeats labelled. */
  labelled: number;
  /** Of them, pairs with both labels set by code. */
  both_code: number;
  /** Of them, pairs with exactly one label set by code. */
  one_code: number;
  /** The figures over the other `labelled - both_code - one_code` pairs (both labels the judge made); null with `reason` when there are none. */
  judge_made: { six: TwoRaterComparison; binary: TwoRaterComparison } | null;
  reason?: string;
}

/** Why {@link CodeSetPairs.judge_made} is null. */
export const ALL_CODE_SET = "every labelled pair has a label set by code: no pair of judge-made labels to measure";

/** A pair's code-set share above this is warned of (the figures then mostly measure the code). */
export const CODE_SET_MOST = 0.5;

/**
 * The line of pairs with labels set by code: `labels set by code (no finding held): on both repeats 58, on one 0, of 58
 * labelled pairs: the figures above mostly measure the code, not the judge; over the other 0 (both labels the judge
 * made): withheld (...)`.
 */
export function codeSetLine(c: CodeSetPairs): string {
  const coded = c.both_code + c.one_code;
  const most = coded > CODE_SET_MOST * c.labelled;
  const head = `${most ? "WARNING: " : ""}labels set by code (no finding held): on both repeats ${c.both_code} (agreeing by construction), on one repeat ${c.one_code}, of ${c.labelled} labelled pairs${most ? ": the figures above mostly measure the code, not the judge" : ""}`;
  const rest = c.labelled - coded;
  if (!c.judge_made) return `${head}; over the other ${rest} pairs (both labels the judge made): withheld (${c.reason})`;
  const j = c.judge_made;
  const k = (x: TwoRaterComparison) => (x.kappa.value === null ? `undefined (${x.kappa.reason ?? "no value"})` : x.kappa.value.toFixed(3));
  const a = (x: TwoRaterComparison) => (x.percent_agreement.value === null ? "undefined" : `${(100 * x.percent_agreement.value).toFixed(1)}%`);
  return `${head}; over the other ${rest} pairs (both labels the judge made): six buckets agreement ${a(j.six)}, kappa ${k(j.six)}; binary agreement ${a(j.binary)}, kappa ${k(j.binary)}`;
}

/** See {@link RepeatPair.claimed}. */
export interface ClaimedPairs {
  n: number;
  differ: number;
  differ_same_label: number;
}

/**
 * The line saying how the judge's own claims of two repeats differed, e.g. `the judge's claimed labels (before the
 * evidence checks) differ on 78 of 701 trajectories; on 70 of them the evidence checks gave both repeats the same
 * label: the agreement above is partly set by code, not by the judge`.
 */
export function claimedLine(c: ClaimedPairs): string {
  return (
    `the judge's claimed labels (before the evidence checks) differ on ${c.differ} of ${c.n} trajectories` +
    (c.differ_same_label > 0 ? `; on ${c.differ_same_label} of them the evidence checks gave both repeats the same label: the agreement above is partly set by code, not by the judge` : "")
  );
}

/** Count one trajectory's two repeats into {@link ClaimedPairs} (either verdict absent, without a claim or not `ok`: not counted). */
export function addClaimed(c: ClaimedPairs, a: Verdict | undefined, b: Verdict | undefined): void {
  const ca = a?.label_claimed;
  const cb = b?.label_claimed;
  // both repeats labelled, as the agreement beside it counts them (review 28: unverified repeats were counted in n)
  if (!ca || !cb || a!.status !== "ok" || b!.status !== "ok") return;
  c.n++;
  if (ca === cb) return;
  c.differ++;
  if (a!.label !== null && a!.label === b!.label) c.differ_same_label++;
}

/** A judge's test-retest figures. */
export interface JudgeRetest {
  judge_id: string;
  /** Number of repeats found (max repeat index + 1). */
  repeats: number;
  /** Trajectories with at least one verdict of this judge. */
  n_items: number;
  pairs: RepeatPair[];
  /** Fleiss' kappa across the K repeats (items where every repeat gave a label), Krippendorff's alpha with missing. */
  across_six: ManyRaterComparison;
  across_binary: ManyRaterComparison;
  /**
   * Set when the judge is deterministic (every verdict from family `rule`, the offline signature judge): its repeats
   * are one computation run again, so their agreement is 1 by construction and says nothing about stability.
   */
  deterministic?: string;
  /**
   * Repeats judged on different texts (their verdicts' `content_sha256` differ: the trajectory changed between
   * repeats): such a repeat pair measures a change of input, not the judge's stability, so it is left out, counted
   * here and said (`message`). `pairs`: per repeat r, the trajectories whose repeat r was judged on another text than
   * repeat 0 (left out of that pair); `items`: the trajectories whose repeats do not all share one text (left out of
   * Fleiss' kappa and alpha). Absent when none (verdicts without a hash, from older versions, cannot be checked).
   */
  content_mismatch?: { pairs: Record<string, number>; items: number; message: string };
  /**
   * Repeats judged on the same text under different configurations (`judge_config_sha256` both recorded and
   * different): left out as {@link JudgeRetest.content_mismatch} is, counted here (`reason` `mixed_configuration`), so
   * no figure pools a configuration change into "same judge, repeated". A pair already left out for its text is
   * counted there only. Absent when none.
   */
  config_mismatch?: { reason: "mixed_configuration"; pairs: Record<string, number>; items: number; message: string };
}

/** `repeat 0 vs 2: 3, repeat 0 vs 3: 1`: the left-out pairs by repeat, as the two mismatch messages give them. */
const pairsText = (pairs: Record<string, number>) =>
  Object.entries(pairs)
    .map(([r, n]) => `repeat 0 vs ${r}: ${n}`)
    .join(", ");

/** The {@link JudgeRetest.content_mismatch} of a judge (undefined when nothing was left out). */
export function contentMismatch(judgeId: string, pairs: Record<string, number>, items: number): JudgeRetest["content_mismatch"] {
  if (items === 0) return undefined;
  const each = pairsText(pairs);
  return {
    pairs,
    items,
    message:
      `judge ${judgeId}: ${items} trajector${items === 1 ? "y was" : "ies were"} judged on different texts in different repeats (the verdicts' content_sha256 differ: ` +
      `the trajectory changed between repeats), left out of test-retest where the texts differ (${each}; and of Fleiss' kappa): a change of input is not a judge's instability; ` +
      `label again with --repeats to judge every repeat on the current text`,
  };
}

/**
 * The {@link JudgeRetest.config_mismatch} of a judge (undefined when nothing was left out): repeats made under different
 * configurations (`judge_config_sha256` differ: `--on-config-change rejudge` re-judged some repeats, or `keep` kept
 * old ones; break51 finding 4: a temperature change 0 -> 0.7 read as "repeat 0 vs 2: kappa 0.370").
 */
export function configMismatch(judgeId: string, pairs: Record<string, number>, items: number): JudgeRetest["config_mismatch"] {
  if (items === 0) return undefined;
  const each = pairsText(pairs);
  return {
    reason: "mixed_configuration",
    pairs,
    items,
    message:
      `judge ${judgeId}: ${items} trajector${items === 1 ? "y was" : "ies were"} judged under different configurations in different repeats (the verdicts' judge_config_sha256 differ), ` +
      `left out of test-retest where the configurations differ (${each}; and of Fleiss' kappa): a configuration change is not the same judge repeated; ` +
      `label again with --on-config-change rejudge to judge every repeat under the current configuration`,
  };
}

/** A verdict's configuration hash, or undefined when it records none (older versions). */
export const configOf = (v: Verdict | undefined): string | undefined => (typeof v?.judge_config_sha256 === "string" ? v.judge_config_sha256 : undefined);

/** A verdict's content hash, or undefined when it records none (older versions). */
const contentOf = (v: Verdict | undefined): string | undefined => (typeof v?.content_sha256 === "string" ? v.content_sha256 : undefined);

/** What {@link JudgeRetest.deterministic} says. */
export const DETERMINISTIC_NOTE = "a deterministic judge (family rule): its repeats are the same computation, so their agreement is 1 by construction, not a measure of stability";

/**
 * Test-retest of every judge that has more than one repeat.
 *
 * @param verdicts the run's verdicts (latest per key). Errors and refusals are not labels: a pair with one is
 *   dropped and counted (`judge_error`, `judge_refused`, `unjudgeable`, `missing`).
 * @param trajectoryIds the trajectories to use (the run's index order).
 * @param opts.bootstrap B and seed for the kappa bootstrap CIs (B = 0: none).
 * @returns one entry per judge with repeats > 1, sorted by judge id; judges with one repeat are left out.
 */
export function testRetest(verdicts: readonly Verdict[], trajectoryIds: readonly string[], opts: { bootstrap?: BootstrapSettings } = {}): JudgeRetest[] {
  // judge -> repeat -> trajectory id -> verdict (a map per judge and repeat, not one per trajectory: a
  // million-trajectory run would hold two million small maps)
  const byJudge = new Map<string, Map<number, Map<string, Verdict>>>();
  for (const v of verdicts) {
    let j = byJudge.get(v.judge_id);
    if (!j) byJudge.set(v.judge_id, (j = new Map()));
    let t = j.get(v.repeat);
    if (!t) j.set(v.repeat, (t = new Map()));
    t.set(v.trajectory_id, v);
  }
  const out: JudgeRetest[] = [];
  for (const judgeId of [...byJudge.keys()].sort()) {
    const reps = byJudge.get(judgeId)!;
    let K = 0;
    for (const r of reps.keys()) K = Math.max(K, r + 1);
    if (K < 2) continue;
    const repMaps = [...reps.values()];
    const ids = trajectoryIds.filter((id) => repMaps.some((m) => m.has(id)));
    const at = (id: string, r: number): Verdict | undefined => reps.get(r)?.get(id);
    const lab = (id: string, r: number): string | null => {
      const v = at(id, r);
      if (!v) return null;
      const b = voteOf(v);
      return b ?? (v.status === "ok" ? null : v.status); // a non-label status is dropped (and counted) by pairLabels
    };
    const bin = (x: string | null): string | null => ((BUCKETS as readonly string[]).includes(x ?? "") ? binaryOf(x as Bucket) : x);
    // two repeats judged on different texts (both hashes known and different) are not a retest pair
    const differBy = (of: typeof contentOf, id: string, r: number): boolean => {
      const c0 = of(at(id, 0));
      const cr = of(at(id, r));
      return c0 !== undefined && cr !== undefined && c0 !== cr;
    };
    const mixedBy = (of: typeof contentOf, skip: ReadonlySet<string>): Set<string> => {
      const out = new Set<string>();
      for (const id of ids) {
        if (skip.has(id)) continue;
        const seen = new Set<string>();
        for (let r = 0; r < K; r++) {
          const c = of(at(id, r));
          if (c !== undefined) seen.add(c);
        }
        if (seen.size > 1) out.add(id);
      }
      return out;
    };
    const mismatch: Record<string, number> = {};
    const cfgMismatch: Record<string, number> = {};
    const mixedText = mixedBy(contentOf, new Set());
    const mixedCfg = mixedBy(configOf, mixedText);
    const mixed = new Set([...mixedText, ...mixedCfg]);
    const pairs: RepeatPair[] = [];
    for (let r = 1; r < K; r++) {
      const same: string[] = [];
      for (const id of ids) {
        if (mixed.has(id) && differBy(contentOf, id, r)) mismatch[String(r)] = (mismatch[String(r)] ?? 0) + 1;
        else if (mixed.has(id) && differBy(configOf, id, r)) cfgMismatch[String(r)] = (cfgMismatch[String(r)] ?? 0) + 1;
        else same.push(id);
      }
      const a = same.map((id) => lab(id, 0));
      const b = same.map((id) => lab(id, r));
      const claimed: ClaimedPairs = { n: 0, differ: 0, differ_same_label: 0 };
      for (const id of same) addClaimed(claimed, at(id, 0), at(id, r));
      // pairs whose two labels code set agree by construction: counted, and the figures over the rest (break53 #9)
      const isLab = (id: string, k: number) => (BUCKETS as readonly string[]).includes(lab(id, k) ?? "");
      const labelled = same.filter((id) => isLab(id, 0) && isLab(id, r));
      const codeCount = (id: string) => (isCodeEstablished(at(id, 0)!) ? 1 : 0) + (isCodeEstablished(at(id, r)!) ? 1 : 0);
      const counts = labelled.map(codeCount);
      const bothCode = counts.filter((c) => c === 2).length;
      const oneCode = counts.filter((c) => c === 1).length;
      let code_set: CodeSetPairs | undefined;
      if (bothCode + oneCode > 0) {
        const rest = labelled.filter((_, i) => counts[i] === 0);
        const ra = rest.map((id) => lab(id, 0));
        const rb = rest.map((id) => lab(id, r));
        code_set = {
          labelled: labelled.length,
          both_code: bothCode,
          one_code: oneCode,
          ...(rest.length
            ? { judge_made: { six: compareTwoRaters(ra, rb, BUCKETS, { names: ["repeat 0", `repeat ${r}`] }), binary: compareTwoRaters(ra.map(bin), rb.map(bin), BINARY, { names: ["repeat 0", `repeat ${r}`] }) } }
            : { judge_made: null, reason: ALL_CODE_SET }),
        };
      }
      pairs.push({
        ...(code_set ? { code_set } : {}),
        repeat: r,
        six: compareTwoRaters(a, b, BUCKETS, { names: ["repeat 0", `repeat ${r}`], bootstrap: opts.bootstrap }),
        binary: compareTwoRaters(a.map(bin), b.map(bin), BINARY, { names: ["repeat 0", `repeat ${r}`], bootstrap: opts.bootstrap }),
        claimed,
      });
    }
    const grid = ids.filter((id) => !mixed.has(id)).map((id) => Array.from({ length: K }, (_, r) => voteOf(at(id, r))));
    const cm = contentMismatch(judgeId, mismatch, mixedText.size);
    const gm = configMismatch(judgeId, cfgMismatch, mixedCfg.size);
    let deterministic = true;
    for (const t of repMaps) for (const v of t.values()) if (v.judge_family !== "rule") deterministic = false;
    out.push({
      judge_id: judgeId,
      repeats: K,
      n_items: ids.length,
      pairs,
      across_six: compareManyRaters(grid, BUCKETS, { raters: K }),
      across_binary: compareManyRaters(grid.map((row) => row.map(binaryOf)), BINARY, { raters: K }),
      ...(deterministic ? { deterministic: DETERMINISTIC_NOTE } : {}),
      ...(cm ? { content_mismatch: cm } : {}),
      ...(gm ? { config_mismatch: gm } : {}),
    });
  }
  return out;
}
