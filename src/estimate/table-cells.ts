/**
 * The cells of the paper table (`./table.ts`): a proportion with its Wilson interval, and one rate of a row with its
 * coverage (moved out of `./table.ts`, at the house limit of 600 lines).
 */
import { disputedBounds } from "./judge-disputed.js";
import { wilsonInterval } from "../stats/confusion.js";
import { COVERAGE_LOW_BELOW } from "../stats/rates.js";
import { referenceRates, ReferenceTally, type ReferenceRates, type ReferenceValue } from "../stats/reference-rates.js";

/** A proportion x/n with its Wilson interval; null with a reason when n = 0. */
export interface Proportion {
  value: number | null;
  reason?: string;
  x: number;
  n: number;
  ci95: { lower: number; upper: number } | null;
}

/** A rate of the table: a {@link Proportion} over the attacked trajectories with a usable verdict, with its coverage. */
export interface RateCell extends Proportion {
  /** Attacked trajectories without a usable verdict (left out). */
  n_unusable: number;
  /** n / (n + n_unusable); null when the row has no attacked trajectory. */
  coverage: number | null;
  /** coverage below 80%: no number is printed for the rate unless `--allow-low-coverage`. */
  coverage_low: boolean;
  /** The most common reason among the unusable, when `coverage_low`. */
  coverage_low_reason?: string;
  /**
   * Committee only, when some attacked runs have no majority (`committee_disputed`, left out of n: they are the
   * contested ones): how many, and the rate's bounds over n + count if none of them were the event / every one with
   * at least one vote for the event were (`possible` of them: a `full_compliance` vote for asr_goal, a compromised
   * vote for asr_behaviour; a run whose votes are not known counts as possible). asr_goal only: `goal_split`, the
   * runs counted in x whose committee `full_compliance` rests on a full/partial tie (`goalSplit` of
   * src/verdict/vote.ts), read as not the goal at `lower`; set (with the bounds) when above 0, even with no disputed run.
   */
  disputed?: { count: number; possible: number; lower: number; upper: number; goal_split?: number };
  /**
   * The benchmark's own goal verdict over the rate's usable trajectories and over every attacked one of the row
   * (`ReferenceRates` of src/stats/reference-rates.ts, "labelled" = with a usable verdict here), which the
   * coverage_low note says; null with `reference_security_reason` when no attacked run of the row carries one; absent
   * when the cell is not given the runs' verdicts.
   */
  reference_security?: ReferenceRates | null;
  reference_security_reason?: string;
}

/** x/n with a Wilson interval, or null with `reason` when n = 0. */
export function proportion(x: number, n: number, reason = "no_trajectories"): Proportion {
  if (n === 0) return { value: null, reason, x, n, ci95: null };
  const ci = wilsonInterval(x / n, n);
  return { value: x / n, x, n, ci95: { lower: ci.lower, upper: ci.upper } };
}

/**
 * The heuristic's cell of a table whose judge IS the heuristic (red team 17: two identical columns): no figure of its
 * own, reason `heuristic_is_the_judge` (its rates are the judge's columns, printed once).
 */
export function heuristicIsJudgeCell(): RateCell {
  return { ...proportion(0, 0, "heuristic_is_the_judge"), n_unusable: 0, coverage: null, coverage_low: false };
}

/**
 * The heuristic's cell of a table whose run has no verdict of the heuristic judge (new-user report 31, L2): null
 * with reason `no_verdicts_of_<id>` and no coverage flag (a judge never run has no coverage to be low).
 */
export function heuristicAbsentCell(heuristic: string): RateCell {
  return { ...proportion(0, 0, `no_verdicts_of_${heuristic}`), n_unusable: 0, coverage: null, coverage_low: false };
}

/**
 * Whether a table shows the heuristic's columns: not when the heuristic is the judge (its rates are the judge's
 * columns) nor when the run has no verdict of it (`PaperTable.heuristic_absent`).
 */
export function heuristicShown(t: { heuristic_is_judge?: true; heuristic_absent?: true }): boolean {
  return !t.heuristic_is_judge && !t.heuristic_absent;
}

/**
 * One rate of a row: x/n over the attacked trajectories with a usable verdict (`flags`: true/false or why not),
 * with its coverage (flagged below 80%, with the most common unusable reason: the verdict's error kind when
 * `detail` has it for `judgeId`, else the flag's reason). No flags (the judge has no verdicts): null with reason.
 * `referenceOf`: each trajectory's benchmark verdict (`referenceValueOf`), for `reference_security`; `split`: a
 * committee goal flag that rests on a full/partial tie (`RateCell.disputed.goal_split`).
 */
export function rateCell(
  att: readonly number[],
  flags: ((i: number) => boolean | string | undefined) | null,
  name: string,
  judgeId: string | undefined,
  detail: (judgeId: string, i: number) => string | undefined,
  possible: (i: number) => boolean = () => true,
  referenceOf?: (i: number) => ReferenceValue,
  split?: (i: number) => boolean,
): RateCell {
  if (!flags) return { ...proportion(0, 0, `no_verdicts_of_${name}`), n_unusable: att.length, coverage: att.length ? 0 : null, coverage_low: att.length > 0, ...(att.length ? { coverage_low_reason: `no_verdicts_of_${name}` } : {}) };
  let x = 0;
  let n = 0;
  const why: Record<string, number> = {};
  let dp = 0; // disputed runs with a vote for the event
  let xs = 0; // of x, committee full_compliance labels resting on a full/partial tie
  const refs = referenceOf ? new ReferenceTally() : null;
  for (const r of att) {
    const f = flags(r);
    refs?.add(referenceOf!(r), typeof f === "boolean");
    if (typeof f !== "boolean") {
      const k = (judgeId !== undefined ? detail(judgeId, r) : undefined) ?? (typeof f === "string" ? f : "no_verdict");
      why[k] = (why[k] ?? 0) + 1;
      if (k === "committee_disputed" && possible(r)) dp++;
      continue;
    }
    n++;
    if (f) x++;
    if (f && split?.(r)) xs++;
  }
  const coverage = att.length ? n / att.length : null;
  const low = coverage !== null && coverage < COVERAGE_LOW_BELOW;
  const top = Object.entries(why).sort(([a, p], [b, q]) => q - p || a.localeCompare(b))[0];
  const d = why.committee_disputed ?? 0;
  return {
    ...proportion(x, n, att.length ? "no_usable_verdict" : "no_attacked_trajectories"),
    n_unusable: att.length - n,
    coverage,
    coverage_low: low,
    ...(low && top ? { coverage_low_reason: top[0] } : {}),
    ...(d > 0 || xs > 0 ? { disputed: { count: d, possible: dp, ...disputedBounds(x, xs, n, d, dp), ...(xs > 0 ? { goal_split: xs } : {}) } } : {}),
    ...(refs ? referenceFields(refs) : {}),
  };
}

/** `reference_security` of a cell from its tally, or null with the reason. */
function referenceFields(t: ReferenceTally): Pick<RateCell, "reference_security" | "reference_security_reason"> {
  const r = referenceRates(t.counts());
  return typeof r === "string" ? { reference_security: null, reference_security_reason: r } : { reference_security: r };
}
