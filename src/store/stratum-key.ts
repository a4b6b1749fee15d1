/**
 * A trajectory's sampling stratum as `sample --strata` names it (`suite=banking,attack=(none)`): the fields a sample can
 * be stratified by and the key of an index row over them. Here, below the stages, so that `sample` (which draws by it),
 * `estimate` and `agree` (which check a label row's stratum against the run: ../agree/stratum-check.ts) share one rule.
 */
import type { TrajectoryIndexRow } from "./run-store.js";
import { NO_VALUE } from "../stats/no-value.js";

/** Index fields a sample can be stratified by. */
export const STRATUM_FIELDS = [
  "agent_model",
  "agent_family",
  "suite",
  "attack",
  "condition",
  "attacked",
  "user_task_id",
  "injection_task_id",
] as const;
export type StratumField = (typeof STRATUM_FIELDS)[number];

/** The sampling stratum of every trajectory when no `--strata` are given. */
export const ALL_STRATUM = "all";
/** How a missing field value shows in a stratum key. */
export const MISSING_VALUE = NO_VALUE;

/**
 * The sampling stratum of an index row: `field=value` pairs joined with `,` in the order of `fields`
 * (`(none)` for a missing value), or `all` when `fields` is empty.
 */
export function stratumKey(row: TrajectoryIndexRow, fields: readonly StratumField[]): string {
  if (fields.length === 0) return ALL_STRATUM;
  return fields
    .map((f) => {
      const v = row[f];
      return `${f}=${v === undefined || v === null || v === "" ? MISSING_VALUE : String(v)}`;
    })
    .join(",");
}
