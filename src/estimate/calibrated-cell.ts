/**
 * The cell of a calibrated estimate in the paper table (`estimate --table --human`, the report's table and its `(all)`
 * row): value and interval, or null with a reason; the interval withheld when degenerate, `ci_method` when exact.
 */
import type { EstimateReport } from "./run.js";

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
  };
}

