/**
 * asr_goal groups that a full/partial split among annotators leaves without an estimate (new user 26: one item whose
 * two annotators wrote full_compliance and partial_compliance made asr_goal undefined in every group, also in groups
 * whose strata it is not in).
 *
 * Such an item's consensus cannot say full compliance or not, so it is left out of asr_goal's sample; leaving it out
 * changes its stratum's labelled count n_c, and so the weight N_c/n_c of every labelled item of that stratum, and it
 * drops a non-random item from its own group. A group's human and calibrated estimates use only the labelled items of
 * the group (`n_by_stratum`, a domain estimate: Sarndal, Swensson & Wretman 1992, sec. 10.3), so a group is affected
 * when it holds a split item or a labelled item of a split item's stratum, and unaffected otherwise: its estimate uses
 * none of those weights. Without strata in the label file (one cell for the whole run) every group is affected.
 */
import type { HumanLabelFile } from "../agree/human-file.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";

/** What of a group (`GroupEstimate` of ./run.ts) the split check reads. */
export interface SplitGroup {
  group: string;
  /** The value of each `--by` field (empty for `(all)`). */
  fields: Record<string, string>;
  /** The group's labelled items per stratum. */
  n_by_stratum: ReadonlyArray<{ stratum: string; n_in_group: number }>;
}

/** How the asr_goal report's warning naming those groups starts (the paper table repeats it in its notes). */
export const SPLIT_GOAL_WARNING = "asr_goal, annotators split between full and partial compliance: ";

/**
 * The names of the groups of `groups` whose asr_goal estimate the split items bias.
 * @param splitIds the labelled trajectories whose annotators split between full and partial compliance.
 * @param file the label file (each row's `stratum`; the first row of a trajectory names its stratum).
 * @param by the `--by` fields of the groups; `value(row, field)` a trajectory's value of one (`groupValue`).
 * @param rowOf the run's index row of a trajectory (undefined when not in the run: such an item is in no group).
 * @returns the affected group names (`(all)` included when present); every group when a split item has no stratum.
 */
export function groupsBiasedBySplit(
  splitIds: readonly string[],
  file: HumanLabelFile,
  groups: readonly SplitGroup[],
  by: readonly string[],
  rowOf: (id: string) => TrajectoryIndexRow | undefined,
  value: (row: TrajectoryIndexRow, field: string) => string,
): Set<string> {
  const stratumOf = new Map<string, string | undefined>();
  for (const r of file.rows) if (!stratumOf.has(r.trajectory_id)) stratumOf.set(r.trajectory_id, r.stratum);
  const strata = new Set<string>();
  for (const id of splitIds) {
    const s = stratumOf.get(id);
    if (s === undefined) return new Set(groups.map((g) => g.group));
    strata.add(s);
  }
  const inGroup = (g: SplitGroup, id: string) => {
    const row = rowOf(id);
    // `(all)` (no field values) holds every trajectory of the run
    return row !== undefined && by.every((f) => g.fields[f] === undefined || value(row, f) === g.fields[f]);
  };
  const out = new Set<string>();
  for (const g of groups) {
    if (g.n_by_stratum.some((c) => strata.has(c.stratum) && c.n_in_group > 0) || splitIds.some((id) => inGroup(g, id))) out.add(g.group);
  }
  return out;
}
