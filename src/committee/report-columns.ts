/**
 * The committee report (`committeeReport` of `./report.ts`) on a run read as columns (`../store/columns.ts`), for
 * `ipi-judge committee` on a million trajectories: the same report and the same committee verdicts, from each
 * judge's repeat-0 verdict per trajectory slot (a record code in a `Uint32Array`) instead of a verdict object and a
 * map entry per trajectory. The committee verdicts are a code per slot into the distinct ones (a committee verdict
 * is a function of its votes: few distinct combinations), the agreement tables are counted as the slots are read
 * (`PairTally`) and the many-rater counts share one row per combination.
 */
import { BUCKETS, type Bucket, type CommitteeVerdict, type Verdict } from "../types.js";
import { rowOf, type ColumnRun } from "../store/columns.js";
import { ColumnIndex, columnVerdicts } from "../store/column-index.js";
import { summarizeRun } from "../run/summary.js";
import { runStateFor } from "../store/run-state.js";
import { committeeHeadWarnings } from "./head-warnings.js";
import { compareManyRatersCounts, compareTwoRatersTable, PairTally, type BootstrapSettings } from "../agree/pairwise.js";
import { committeeVote, DEFAULT_QUORUM, goalSplit, unlabelledCommitteeItem, voteOf } from "../verdict/vote.js";
import { BINARY, binaryOf } from "../rubric/buckets.js";
import { judgeHealth } from "../verdict/health.js";
import { codeEstablishedByJudge, codeEstablishedWarnings, isCodeEstablished } from "../verdict/code-established.js";
import { RateTally, type RateItem } from "../stats/rates.js";
import { referenceValueOf } from "../stats/reference-rates.js";
import { committeeBlockedFields } from "../verdict/blocked.js";
import { committeeJudge, countCommitteeVerdict, DEFAULT_BOOTSTRAP, emptyCommitteeSummary, judgesOf, notUnanimousOf, type CommitteeAgreement, type CommitteeJudge, type CommitteeOptions, type CommitteeReport, type CommitteeSummary, type JudgePair } from "./report.js";
import { selfFamilyLeniencyColumns } from "./leniency-columns.js";
import { leniencyWarnings } from "./leniency-text.js";
import { SharedCounts, testRetestColumns } from "./retest-columns.js";
import { CodeMajorityTally, codeMajorityWarning } from "./code-majority.js";
import { AttackedOnly } from "../agree/attacked-only.js";
import { PooledExposureTally, pooledExposureLowWarning } from "../stats/pooled-exposure.js";

/** The index fields {@link committeeReportColumns} reads (`readColumnRun`'s `rowFields`; with `verdictOmit: []`). (`reference`: judge health's benchmark check, `denies_reference_goal` of `../verdict/health.ts`) */
export const COMMITTEE_ROW_FIELDS: readonly string[] = ["attacked", "run_error", "agent_model", "agent_family", "condition", "attack", "surface", "reference"];

/** Committee verdicts of a column run's index rows: per row slot a code into the distinct verdicts. */
export interface CommitteeColumnVerdicts {
  /** per row slot (0 .. nRows-1): its committee verdict's index in `verdicts` */
  code: Uint32Array;
  /** the distinct committee verdicts, without `trajectory_id` (shared: not to be mutated) */
  verdicts: Array<Omit<CommitteeVerdict, "trajectory_id">>;
}

/**
 * `committeeReport` (`./report.ts`: the rules, figures and warnings, in the same order) on a column run.
 * @param run read with {@link COMMITTEE_ROW_FIELDS} and `verdictOmit: []` (the per-judge usage and cost need them).
 * @param opts as `committeeReport`; `step(what)` is called as each analysis step starts (a progress line, and
 *   between steps a chance to collect the large arrays the last one left: `heapGcTrigger` of `../io/heap-gc.ts`).
 * @returns the report and the committee verdicts as codes (`writeCommitteeColumns` of `./file.ts` writes them).
 * @throws RangeError on a bad quorum or an unknown judge to exclude (the same messages as `committeeReport`).
 */
export function committeeReportColumns(
  run: ColumnRun,
  opts: CommitteeOptions & { step?: (what: string) => void },
): { report: CommitteeReport; committee: CommitteeColumnVerdicts } {
  const step = opts.step ?? (() => {});
  const quorum = opts.quorum ?? DEFAULT_QUORUM;
  const bootstrap = opts.bootstrap ?? DEFAULT_BOOTSTRAP;
  const records = function* (keep?: (v: Verdict) => boolean): Generator<Verdict> {
    for (let i = 0; i < run.nVerdicts; i++) {
      const v = run.verdicts[run.vCode[i]];
      if (!keep || keep(v)) yield v;
    }
  };
  step("judge health");
  // a verdict without `attacked` by its index row, as the object path (red team 18); k counts every verdict (no filter)
  const judge_health = judgeHealth(records(), { rowOf: (_v, k) => rowOf(run, run.vSlot[k]), idOf: (_v, k) => run.ids.id(run.vSlot[k]) });
  const excluded = [...new Set(opts.excludeJudges ?? [])];
  const present = new Set<string>();
  for (const v of records()) present.add(v.judge_id);
  const unknown = excluded.filter((id) => !present.has(id));
  if (unknown.length)
    throw new RangeError(`no judge ${unknown.map((x) => JSON.stringify(x)).join(", ")} in run ${opts.run} (its judges: ${[...present].sort().join(", ") || "none"})`);
  const out = new Set(excluded);
  const kept = (v: Verdict) => !out.has(v.judge_id);
  const judges = judgesOf(records(kept));
  const judgeIds = judges.map((j) => j.id);

  // each committee judge's repeat-0 verdict per slot, as its record code + 1 (0: none)
  const rep0 = new Map<string, Uint32Array>();
  for (let i = 0; i < run.nVerdicts; i++) {
    const v = run.verdicts[run.vCode[i]];
    if (v.repeat !== 0 || out.has(v.judge_id)) continue;
    let a = rep0.get(v.judge_id);
    if (!a) rep0.set(v.judge_id, (a = new Uint32Array(run.ids.size)));
    a[run.vSlot[i]] = run.vCode[i] + 1;
  }
  const none = new Uint32Array(run.ids.size);
  const perJudge = judgeIds.map((j) => rep0.get(j) ?? none);
  step("committee verdicts");
  const committee = committeeColumns(run, judgeIds, perJudge, quorum);

  // the run's state as the committee's judges see it: no mixed-configuration warning of a judge left out (review s29)
  const runState = opts.runState && runStateFor(opts.runState, judgeIds);
  const warnings = committeeHeadWarnings({ runState, judgeHealth: judge_health, excluded, judges, quorum });
  const families = [...new Set(judges.map((j) => j.family))].sort();

  // Per judge, repeat 0 (the run summary's figures, over the rows through a map view of the columns).
  step("per-judge figures");
  // a judge's figures are its own verdicts' (summarizeRun per judge): with everyJudge, those of every judge once, the
  // members' among them (the HTML report's judge table beside its committee: one computation, not two)
  const every = !!opts.everyJudge && excluded.length > 0;
  const isRep0 = (_i: number, v: Verdict) => v.repeat === 0 && (every || !out.has(v.judge_id));
  const summary = summarizeRun(opts.run, columnVerdicts(run, isRep0), new ColumnIndex(run), []);
  const perAll = summary.judges.map(committeeJudge);
  const per_judge: CommitteeJudge[] = every ? perAll.filter((j) => !out.has(j.judge_id)) : perAll;

  const cs = committeeSummaryColumns(run, committee, judgeIds, perJudge);

  const agreement: CommitteeAgreement = {
    ...agreementColumns(run, committee, judgeIds, perJudge, bootstrap, step),
    code_established: codeEstablishedByJudge(records((v) => v.repeat === 0 && !out.has(v.judge_id)), judgeIds),
  };
  for (const w of codeEstablishedWarnings(agreement.code_established, "committee agreement (kappa, Fleiss, alpha)")) warnings.push(w);
  const cmt = new CodeMajorityTally(judgeIds);
  for (let s = 0; s < run.nRows; s++)
    cmt.add(!!run.rows[run.rowCode[s]].attacked, committee.verdicts[committee.code[s]], (k) => (perJudge[k][s] > 0 ? run.verdicts[perJudge[k][s] - 1] : undefined));
  const code_majority = cmt.result();
  const cmw = codeMajorityWarning(code_majority);
  if (cmw) warnings.push(cmw);

  let attacked = 0;
  // the committee's rates pool every (model, condition) group: those of them EXPOSURE LOW named (red team 25 M2)
  const pooled = new PooledExposureTally();
  for (let s = 0; s < run.nRows; s++) {
    const row = run.rows[run.rowCode[s]];
    if (!row.attacked) continue;
    attacked++;
    const c = committee.verdicts[committee.code[s]];
    if (c?.status === "ok" && c.label) pooled.add(row.agent_model, row.condition, c.label !== "not_exposed");
  }
  const pw = pooledExposureLowWarning("the committee's rates", pooled);
  if (pw) warnings.push(pw);
  step("self-family leniency");
  const leniency = selfFamilyLeniencyColumns(run, rep0, judges, { families: opts.families, bootstrap, gapCi: opts.leniencyGapCi });
  warnings.push(...leniencyWarnings(leniency)); // a detected leniency is a warning, not only a mid-output line (new user 30, L6)
  step("test-retest");
  // over the same slots as the agreement (../agree/attacked-only.ts): an unattacked one is not_exposed in every repeat
  const retest = testRetestColumns(run, (i, v) => !out.has(v.judge_id) && run.rows[run.rowCode[run.vSlot[i]]]?.attacked !== false, { bootstrap });
  // repeats judged on different texts, left out of test-retest: said with the warnings too
  for (const t of retest) {
    if (t.content_mismatch) warnings.push(t.content_mismatch.message);
    if (t.config_mismatch) warnings.push(t.config_mismatch.message);
  }
  const report: CommitteeReport = {
    run: opts.run,
    quorum,
    trajectories: run.nRows,
    attacked,
    judges,
    excluded_judges: excluded,
    judge_health,
    judge_families: families,
    warnings,
    committee: cs,
    code_majority,
    per_judge,
    ...(opts.everyJudge ? { every_judge: { judges: every ? judgesOf(records()) : judges, per_judge: perAll } } : {}),
    agreement,
    leniency,
    retest,
    bootstrap,
    run_state: runState ?? null,
  };
  return { report, committee };
}

/**
 * The committee agreement's figures but the code-established ones (`committeeReport`: not unanimous, each pair of
 * judges, all judges) from the slots: the pairs counted as read (`PairTally`), the many-rater rows shared per
 * committee verdict.
 * @param perJudge per judge (in `judgeIds` order), its repeat-0 record code + 1 per slot.
 */
function agreementColumns(
  run: ColumnRun,
  committee: CommitteeColumnVerdicts,
  judgeIds: readonly string[],
  perJudge: readonly Uint32Array[],
  bootstrap: BootstrapSettings,
  step: (what: string) => void,
): Omit<CommitteeAgreement, "code_established"> {
  // Agreement. A judge's rating of a slot: its vote, else why not (`missing` for ok without a label, its status).
  const rating = run.verdicts.map((v) => voteOf(v) ?? (v.status === "ok" ? "missing" : v.status));
  const code = run.verdicts.map((v) => voteOf(v) !== null && isCodeEstablished(v));
  const ratingOf = (a: Uint32Array, s: number): string | null => (a[s] > 0 ? rating[a[s] - 1] : null);
  const bin = (x: string | null) => ((BUCKETS as readonly string[]).includes(x ?? "") ? binaryOf(x as Bucket) : x);
  // over the attacked slots only (../agree/attacked-only.ts: the one rule, as committeeReport applies it)
  const ao = new AttackedOnly();
  // the kept slots as a typed column (a million: 4 MB, not a growing JS array of 8-15 MB)
  const kept = new Uint32Array(run.nRows);
  let nKept = 0;
  for (let s = 0; s < run.nRows; s++) {
    const c = committee.verdicts[committee.code[s]];
    if (ao.keep(run.rows[run.rowCode[s]].attacked as boolean | undefined, () => judgeIds.map((j) => [j, c.votes[j]] as const))) kept[nKept++] = s;
  }
  const slots = kept.subarray(0, nKept);
  let withQuorum = 0;
  let notUnanimous = 0;
  for (const s of slots) {
    const c = committee.verdicts[committee.code[s]];
    if (c.status === "no_quorum") continue;
    withQuorum++;
    if (!c.unanimous) notUnanimous++;
  }
  const pairwise: JudgePair[] = [];
  for (let a = 0; a < judgeIds.length; a++) {
    for (let b = a + 1; b < judgeIds.length; b++) {
      step(`agreement, ${judgeIds[a]} vs ${judgeIds[b]}`);
      const ra = perJudge[a];
      const rb = perJudge[b];
      const six = new PairTally(BUCKETS);
      const two = new PairTally(BINARY);
      let both = 0;
      for (const s of slots) {
        const la = ratingOf(ra, s);
        const lb = ratingOf(rb, s);
        six.add(la, lb);
        two.add(bin(la), bin(lb));
        if (ra[s] > 0 && rb[s] > 0 && code[ra[s] - 1] && code[rb[s] - 1]) both++;
      }
      const names: [string, string] = [judgeIds[a], judgeIds[b]];
      pairwise.push({
        judges: names,
        both_code_established: both,
        six: compareTwoRatersTable(six.table, six, BUCKETS, { names, bootstrap }),
        binary: compareTwoRatersTable(two.table, two, BINARY, { names, bootstrap }),
      });
    }
  }
  // many raters: one shared counts row per committee verdict (its votes are the grid row)
  const c6 = new SharedCounts(BUCKETS);
  const c2 = new SharedCounts(BINARY);
  const rows6 = committee.verdicts.map((c) => c6.row(judgeIds.map((j) => c.votes[j])));
  const rows2 = committee.verdicts.map((c) => c2.row(judgeIds.map((j) => binaryOf(c.votes[j]))));
  // one table at a time (each a million row references at 1M: the six-bucket one is let go before the binary one)
  const countsOf = (rows: number[][]): number[][] => {
    const counts: number[][] = new Array(slots.length);
    for (let k = 0; k < slots.length; k++) counts[k] = rows[committee.code[slots[k]]];
    return counts;
  };
  step("agreement, all judges, six buckets");
  const six = compareManyRatersCounts(countsOf(rows6), BUCKETS, { raters: judgeIds.length });
  step("agreement, all judges, binary");
  const binary = compareManyRatersCounts(countsOf(rows2), BINARY, { raters: judgeIds.length });
  return {
    unattacked_left_out: ao.result(),
    not_unanimous: notUnanimousOf(withQuorum, notUnanimous, judgeIds.length),
    pairwise,
    six,
    binary,
  };
}

/**
 * The committee verdict of every row slot (`buildCommittee` of `../verdict/vote.ts`: each judge's repeat-0 vote,
 * `committeeVote`), as a code per slot into the distinct verdicts, one `committeeVote` per distinct combination.
 * @param perJudge per judge (in `judgeIds` order), its repeat-0 record code + 1 per slot.
 */
export function committeeColumns(run: ColumnRun, judgeIds: readonly string[], perJudge: readonly Uint32Array[], quorum: number): CommitteeColumnVerdicts {
  // each record's vote as a small number (0: no vote), so a slot's votes are one number in base `radix`
  const voteNames: Array<Bucket | null> = [null];
  const voteNo = new Map<Bucket | null, number>([[null, 0]]);
  const voteOfCode = run.verdicts.map((v) => {
    const b = voteOf(v);
    let k = voteNo.get(b);
    if (k === undefined) voteNo.set(b, (k = voteNames.push(b) - 1));
    return k;
  });
  const radix = voteNames.length;
  const numeric = Math.pow(radix, judgeIds.length) <= Number.MAX_SAFE_INTEGER;
  const byKey = new Map<number | string, number>();
  const verdicts: CommitteeColumnVerdicts["verdicts"] = [];
  const code = new Uint32Array(run.nRows);
  const digits = new Array<number>(judgeIds.length);
  for (let s = 0; s < run.nRows; s++) {
    let key: number | string = 0;
    for (let k = 0; k < judgeIds.length; k++) {
      const c = perJudge[k][s];
      digits[k] = c > 0 ? voteOfCode[c - 1] : 0;
    }
    if (numeric) for (let k = judgeIds.length - 1; k >= 0; k--) key = (key as number) * radix + digits[k];
    else key = digits.join(",");
    let c = byKey.get(key);
    if (c === undefined) {
      const votes: Record<string, Bucket | null> = {};
      for (let k = 0; k < judgeIds.length; k++) votes[judgeIds[k]] = voteNames[digits[k]];
      const { trajectory_id: _id, ...rest } = committeeVote("", votes, quorum);
      c = verdicts.push(rest) - 1;
      byKey.set(key, c);
    }
    code[s] = c;
  }
  return { code, verdicts };
}

/**
 * `committeeSummary` (`./report.ts`) of column committee verdicts: by status, by label, unanimous, the committee
 * rates over the attacked rows (blocked attempts from the partial-compliance voters' repeat-0 verdicts) and the
 * attacked rows with a label.
 */
function committeeSummaryColumns(run: ColumnRun, committee: CommitteeColumnVerdicts, judgeIds: readonly string[], perJudge: readonly Uint32Array[]): CommitteeSummary {
  const fixed = committee.verdicts.map((c): RateItem | null =>
    c.status === "ok" && c.label ? (c.label === "partial_compliance" ? null : { label: c.label, blocked: false, ...(goalSplit(c) ? { goal_split: true } : {}) }) : unlabelledCommitteeItem(c),
  );
  return committeeSummaryOfSlots(run, committee, (slot) => {
    const item = fixed[committee.code[slot]];
    if (item !== null) return item;
    // the voters' repeat-0 verdicts (committeeBlocked reads only those voting partial_compliance)
    const voters: Verdict[] = [];
    for (let k = 0; k < judgeIds.length; k++) {
      const c = perJudge[k][slot];
      if (c > 0) voters.push(run.verdicts[c - 1]);
    }
    return { label: "partial_compliance", ...committeeBlockedFields(committee.verdicts[committee.code[slot]] as CommitteeVerdict, voters) }; // reads only its votes
  });
}

/**
 * `committeeSummary` (`./report.ts`) folded over a column run's row slots: by status, by label, unanimous, the
 * committee rates over the attacked rows and the attacked rows with a label. The committee report's column path
 * and the HTML report's (a stored `committee.jsonl`, `../report/slots.ts`) share it.
 * @param committee `code[slot]` indexes `verdicts`; a negative code is a slot without a committee verdict (counted
 *   in no status; an attacked one still gets its rate item, e.g. `no_committee_verdict`)
 * @param item the rate item of an attacked slot (`RateItem`), asked once per attacked slot in slot order
 */
export function committeeSummaryOfSlots(
  run: ColumnRun,
  committee: { code: ArrayLike<number>; verdicts: ReadonlyArray<Pick<CommitteeVerdict, "status" | "label" | "unanimous">> },
  item: (slot: number) => RateItem,
): CommitteeSummary {
  const s = emptyCommitteeSummary(new RateTally().result());
  const t = new RateTally();
  for (let slot = 0; slot < run.nRows; slot++) {
    const row = run.rows[run.rowCode[slot]];
    const attacked = !!row.attacked;
    if (attacked) t.add(item(slot), referenceValueOf(row)); // COMMITTEE_ROW_FIELDS reads reference and run_error
    const k = committee.code[slot];
    if (k < 0) continue;
    countCommitteeVerdict(s, committee.verdicts[k], attacked);
  }
  s.rates = t.result();
  return s;
}
