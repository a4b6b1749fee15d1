/**
 * Test-retest (`./retest.ts`) on a run read as columns (`../store/columns.ts`): the same figures from each judge's
 * verdict per (repeat, trajectory slot), without a map per judge and repeat keyed by id strings, and without an
 * array of labels per rater (the pairs are counted as they are read, `PairTally`).
 */
import { BUCKETS, type Bucket, type Verdict } from "../types.js";
import type { ColumnRun } from "../store/columns.js";
import { BINARY, binaryOf } from "../rubric/buckets.js";
import { compareManyRatersCounts, compareTwoRatersTable, PairTally, type BootstrapSettings } from "../agree/pairwise.js";
import { ratingCounts, type Category } from "../stats/index.js";
import { voteOf } from "../verdict/vote.js";
import { addClaimed, ALL_CODE_SET, configMismatch, configOf, contentMismatch, DETERMINISTIC_NOTE, type ClaimedPairs, type CodeSetPairs, type JudgeRetest, type RepeatPair } from "./retest.js";
import { isCodeEstablished } from "../verdict/code-established.js";

const isBucket = (x: string | null): x is string => (BUCKETS as readonly string[]).includes(x ?? "");

/**
 * Rating-count rows shared by every item with the same ratings (`ratingCounts` of one item, cached by its
 * ratings): a million items' rows are a few distinct arrays. The rows must not be changed.
 */
export class SharedCounts {
  private readonly rows = new Map<string, number[]>();
  constructor(private readonly categories: readonly Category[]) {}
  /** The counts row of one item's ratings (null/undefined: not rated). @throws Error as `ratingCounts`. */
  row(ratings: ReadonlyArray<Category | null | undefined>): number[] {
    const k = JSON.stringify(ratings);
    let r = this.rows.get(k);
    if (!r) this.rows.set(k, (r = ratingCounts([ratings], this.categories)[0]));
    return r;
  }
}

/**
 * `testRetest` (`./retest.ts`: the rules) over a column run: every judge with more than one repeat, sorted by id.
 * @param keep the verdicts to use, by position (the committee's: excluded judges left out).
 * @param opts.bootstrap B and seed for the kappa bootstrap CIs (B = 0: none).
 */
export function testRetestColumns(run: ColumnRun, keep: (i: number, v: Verdict) => boolean, opts: { bootstrap?: BootstrapSettings } = {}): JudgeRetest[] {
  // judge -> repeat -> slot -> record code + 1
  const byJudge = new Map<string, Map<number, Uint32Array>>();
  const notRule = new Set<string>();
  for (let i = 0; i < run.nVerdicts; i++) {
    const v = run.verdicts[run.vCode[i]];
    if (!keep(i, v)) continue;
    let j = byJudge.get(v.judge_id);
    if (!j) byJudge.set(v.judge_id, (j = new Map()));
    let t = j.get(v.repeat);
    if (!t) j.set(v.repeat, (t = new Uint32Array(run.ids.size)));
    t[run.vSlot[i]] = i + 1; // the verdict's position: its record (vCode) and its content (vContent)
    if (v.judge_family !== "rule") notRule.add(v.judge_id);
  }
  const rec = (p: number): Verdict => run.verdicts[run.vCode[p - 1]];
  // the text a verdict judged (-1: not recorded); two repeats on different texts are not a retest pair
  const content = (p: number): number => (p === 0 || !run.vContent ? -1 : run.vContent[p - 1]);
  // the configuration a verdict was made under (undefined: not recorded, or no verdict)
  const config = (p: number): string | undefined => (p === 0 ? undefined : configOf(rec(p)));
  const lab = (c: number): string | null => {
    if (c === 0) return null;
    const v = rec(c);
    return voteOf(v) ?? (v.status === "ok" ? null : v.status);
  };
  const bin = (x: string | null): string | null => ((BUCKETS as readonly string[]).includes(x ?? "") ? binaryOf(x as Bucket) : x);
  const out: JudgeRetest[] = [];
  for (const judgeId of [...byJudge.keys()].sort()) {
    const reps = byJudge.get(judgeId)!;
    let K = 0;
    for (const r of reps.keys()) K = Math.max(K, r + 1);
    if (K < 2) continue;
    const repArrays = [...reps.values()];
    const at = (s: number, r: number): number => reps.get(r)?.[s] ?? 0;
    const slots: number[] = [];
    for (let s = 0; s < run.nRows; s++) if (repArrays.some((a) => a[s] > 0)) slots.push(s);
    const differ = (s: number, r: number): boolean => {
      const c0 = content(at(s, 0));
      const cr = content(at(s, r));
      return c0 !== -1 && cr !== -1 && c0 !== cr;
    };
    const differCfg = (s: number, r: number): boolean => {
      const c0 = config(at(s, 0));
      const cr = config(at(s, r));
      return c0 !== undefined && cr !== undefined && c0 !== cr;
    };
    const mixedText = new Set<number>();
    const mixedCfg = new Set<number>();
    for (const s of slots) {
      let first = -1;
      let firstCfg: string | undefined;
      for (let r = 0; r < K; r++) {
        const p = at(s, r);
        const c = content(p);
        if (c !== -1) {
          if (first === -1) first = c;
          else if (c !== first) mixedText.add(s);
        }
        const g = config(p);
        if (g !== undefined) {
          if (firstCfg === undefined) firstCfg = g;
          else if (g !== firstCfg) mixedCfg.add(s);
        }
      }
    }
    for (const s of mixedText) mixedCfg.delete(s); // counted once, for its text
    const mixed = new Set([...mixedText, ...mixedCfg]);
    const cfgMismatch: Record<string, number> = {};
    const mismatch: Record<string, number> = {};
    const pairs: RepeatPair[] = [];
    for (let r = 1; r < K; r++) {
      const six = new PairTally(BUCKETS);
      const two = new PairTally(BINARY);
      const claimed: ClaimedPairs = { n: 0, differ: 0, differ_same_label: 0 };
      // labelled pairs, those whose two labels code set, and the rest's tables (break53 #9; ./retest.ts `code_set`)
      const six2 = new PairTally(BUCKETS);
      const two2 = new PairTally(BINARY);
      let nLab = 0;
      let nCode = 0;
      let nOne = 0;
      for (const s of slots) {
        if (mixed.size > 0 && differ(s, r)) {
          mismatch[String(r)] = (mismatch[String(r)] ?? 0) + 1;
          continue;
        }
        if (mixed.size > 0 && differCfg(s, r)) {
          cfgMismatch[String(r)] = (cfgMismatch[String(r)] ?? 0) + 1;
          continue;
        }
        const a = lab(at(s, 0));
        const b = lab(at(s, r));
        six.add(a, b);
        two.add(bin(a), bin(b));
        const p0 = at(s, 0);
        const pr = at(s, r);
        if (p0 > 0 && pr > 0) addClaimed(claimed, rec(p0), rec(pr));
        if (!isBucket(a) || !isBucket(b)) continue;
        nLab++;
        const coded = (isCodeEstablished(rec(p0)) ? 1 : 0) + (isCodeEstablished(rec(pr)) ? 1 : 0);
        if (coded === 2) nCode++;
        else if (coded === 1) nOne++;
        else {
          six2.add(a, b);
          two2.add(bin(a), bin(b));
        }
      }
      const names: [string, string] = ["repeat 0", `repeat ${r}`];
      const code_set: CodeSetPairs | undefined =
        nCode + nOne === 0
          ? undefined
          : nLab > nCode + nOne
            ? { labelled: nLab, both_code: nCode, one_code: nOne, judge_made: { six: compareTwoRatersTable(six2.table, six2, BUCKETS, { names }), binary: compareTwoRatersTable(two2.table, two2, BINARY, { names }) } }
            : { labelled: nLab, both_code: nCode, one_code: nOne, judge_made: null, reason: ALL_CODE_SET };
      pairs.push({
        ...(code_set ? { code_set } : {}),
        repeat: r,
        six: compareTwoRatersTable(six.table, six, BUCKETS, { names, bootstrap: opts.bootstrap }),
        binary: compareTwoRatersTable(two.table, two, BINARY, { names, bootstrap: opts.bootstrap }),
        claimed,
      });
    }
    const c6 = new SharedCounts(BUCKETS);
    const c2 = new SharedCounts(BINARY);
    const counts6: number[][] = [];
    const counts2: number[][] = [];
    for (const s of slots) {
      if (mixed.has(s)) continue;
      const votes = Array.from({ length: K }, (_, r) => {
        const c = at(s, r);
        return c === 0 ? null : voteOf(rec(c));
      });
      counts6.push(c6.row(votes));
      counts2.push(c2.row(votes.map(binaryOf)));
    }
    out.push({
      judge_id: judgeId,
      repeats: K,
      n_items: slots.length,
      pairs,
      across_six: compareManyRatersCounts(counts6, BUCKETS, { raters: K }),
      across_binary: compareManyRatersCounts(counts2, BINARY, { raters: K }),
      ...(notRule.has(judgeId) ? {} : { deterministic: DETERMINISTIC_NOTE }),
      ...(mixedText.size > 0 ? { content_mismatch: contentMismatch(judgeId, mismatch, mixedText.size)! } : {}),
      ...(mixedCfg.size > 0 ? { config_mismatch: configMismatch(judgeId, cfgMismatch, mixedCfg.size)! } : {}),
    });
  }
  return out;
}
