/**
 * The cell of a calibrated estimate in the paper table (`estimate --table --human`, the report's table and its `(all)`
 * row): value and interval, or null with a reason; the interval withheld when degenerate, `ci_method` when exact.
 */
import type { EstimateReport } from "./run.js";
import type { WeightCheck } from "./weight-check.js";
import type { HumanTies } from "./tie-bound.js";

/** A calibrated estimate's cell: value and interval, or null with a reason (`ci_reason` when only the interval is missing). */
export type CalibratedCell = {
  value: number | null;
  reason?: string;
  ci95: { lower: number; upper: number } | null;
  ci_reason?: string;
  /**
   * Set when `ci95` is not the t interval alone (`ci_method` of ./calibrated.ts, in words): the exact bound of a group
   * whose labelled items all had the same human-minus-judge difference (SE 0), or the union with the exact small-count
   * interval of a group with few disagreements (../stats/small-count.ts).
   */
  ci_method?: string;
  /** With a value but no interval: the heaviest labelled item's weight share and the Kish effective n (./weight-check.ts). */
  weight_check?: WeightCheck;
  /** The group's labelled trajectories with tied annotators and what they could do to the figure (./tie-bound.ts); absent when none. */
  human_ties?: HumanTies;
};

/** The cell of a calibrated group estimate (absent group: null with `no_attacked_trajectories`); the report's `(all)` row too (./table-all.ts). */
export function calibratedCell(c: EstimateReport["groups"][number] | undefined): CalibratedCell {
  if (!c) return { value: null, reason: "no_attacked_trajectories", ci95: null };
  return {
    value: c.calibrated.asr,
    ...(c.calibrated.asr === null ? { reason: c.calibrated.reason } : {}),
    // a zero-width interval (every labelled item agrees) is not certainty: no interval, said why, as
    // `estimate`'s text and src/format/stat-text.ts `ciText` say it
    ci95: c.calibrated.degenerate ? null : c.calibrated.ci95,
    ...(c.calibrated.asr !== null && c.calibrated.degenerate
      ? { ci_reason: "se_zero" }
      : c.calibrated.asr !== null && c.calibrated.ci95 === null
        ? { ci_reason: c.calibrated.ci_reason }
        : {}),
    ...(c.calibrated.ci_method && c.calibrated.ci95 && !c.calibrated.degenerate ? { ci_method: c.calibrated.ci_method } : {}),
    ...(c.calibrated.weight_check && c.calibrated.ci95 === null ? { weight_check: c.calibrated.weight_check } : {}),
    ...(c.human_ties && c.calibrated.asr !== null ? { human_ties: c.human_ties } : {}),
  };
}


/** A calibrated cell of a row like for like cut, when the estimate is not over the same runs: it has no number. */
export const LFL_CALIBRATED: CalibratedCell = { value: null, reason: "calibrated_over_all_runs_not_like_for_like_cells", ci95: null };

/**
 * The calibrated cell of a paper-table row (`./table.ts`): the group's own, or, for a row the shared cells cut,
 * the group's when the estimate's groups are over the same cut runs (`groups_over`, ./group-cells.ts: a domain
 * estimate over the row's runs, its count checked against the row's), else none ({@link LFL_CALIBRATED}), never the
 * estimate of other runs under the row's name.
 * @param leftOut the row's attacked runs the shared cells left out; @param n the row's attacked runs (its `n`).
 */
export function rowCalibratedCell(c: EstimateReport["groups"][number] | undefined, leftOut: number, n: number, report: Pick<EstimateReport, "groups_over">): CalibratedCell {
  if (!leftOut) return calibratedCell(c);
  return report.groups_over === "like_for_like_cells" && c?.over_cells && c.n_population === n ? calibratedCell(c) : LFL_CALIBRATED;
}
