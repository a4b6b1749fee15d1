/**
 * The report's calibrated estimate (`--human` with a paper table) on a run read as columns (issue 26 point 3: the
 * report read the whole run again as objects for it, 1.3 GB at a million trajectories): `estimateOver` of
 * ../estimate/run.ts over the column run (../estimate/estimate-columns.ts), with the warnings the object path's
 * `paperTableSection` (./data.ts) gives, in the same order and words.
 */
import type { ColumnRun } from "../store/columns.js";
import type { HumanLabelFile } from "../agree/human-file.js";
import { estimateOver, type EstimateReport, type EstimateSource } from "../estimate/run.js";
import { columnEstimateData, estimateRowFields } from "../estimate/estimate-columns.js";
import type { WhereFilter } from "../store/where.js";

/** The row fields the calibrated estimate reads beside the report's (its groups are per model and condition). */
export const CALIBRATED_ROW_FIELDS: readonly string[] = estimateRowFields(["agent_model", "condition"]);

/**
 * The calibrated estimate of the report's paper table over the whole column run (per model, and condition when a
 * row of the report's own rows records one), its warnings and each group's pushed to `warnings` as the object path
 * words them; when the estimate refuses (any error), none, and `calibrated estimate not shown: <why>` pushed instead.
 * @param colRun every row of the run (under `--where` too: `o.where` is the estimate's domain in the run's design).
 * @param content the labelled trajectories' content hashes (the latest row's), as the run was read.
 * @param o.shown the rows the report is over (the rows `--where` keeps; default `colRun`): whether any records a
 *   condition, as the object path asks of its restricted index.
 */
export function calibratedColumns(
  colRun: ColumnRun,
  content: Map<string, string>,
  labels: HumanLabelFile,
  o: { run: string; humanFile: string; source: EstimateSource; where?: WhereFilter | null; shown?: ColumnRun; /** the table's `--own-mix`: rows over all their runs */ ownMix?: boolean },
  warnings: string[],
): EstimateReport | undefined {
  const shown = o.shown ?? colRun;
  let condition = false;
  for (let s = 0; s < shown.nRows && !condition; s++) condition = shown.rows[shown.rowCode[s]].condition !== undefined;
  try {
    const calibrated = estimateOver(columnEstimateData({ run: colRun, content }), labels, {
      run: o.run,
      humanFile: o.humanFile,
      source: o.source,
      by: condition ? ["agent_model", "condition"] : ["agent_model"],
      where: o.where,
      likeForLikeCells: !o.ownMix, // the table's rows' population (../estimate/group-cells.ts)
    });
    for (const w of calibrated.warnings) warnings.push(`calibrated estimate: ${w}`);
    // and each group's, as estimate prints them (calibrated_goal_above_behaviour on the asr_goal group: review 16)
    for (const r of [calibrated, calibrated.asr_goal]) if (r && "groups" in r) for (const g of r.groups) for (const w of g.warnings) warnings.push(`estimate ${r.rate ?? ""}, ${g.group}: ${w}`);
    return calibrated;
  } catch (e) {
    warnings.push(`calibrated estimate not shown: ${(e as Error).message}`);
    return undefined;
  }
}
