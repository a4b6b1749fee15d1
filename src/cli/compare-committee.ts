/**
 * `compare --committee` on a run read as columns (`../store/columns.ts`) and its committee file read as columns
 * (`readCommitteeColumns` of ../committee/file-columns.ts): the {@link Observations} of `buildObservations` of
 * ../compare/data.ts with the committee source (one committee line per row slot: its label, or `committee_disputed` /
 * `committee_no_quorum`; the blocked attempt of a partial label from the members' repeat-0 verdicts), built by
 * `buildObservationsColumns` over the committee as one pseudo judge (`committeeObservations` of
 * ../report/slots.ts, the report's own column path for its conditions). A million committee verdicts are then
 * as many observations as the run has distinct row records (times the label kinds), not a million objects.
 * test/cli/compare-committee.test.ts checks `compareConditions` on both paths.
 */
import type { ColumnRun } from "../store/columns.js";
import type { CommitteeColumns } from "../committee/file-columns.js";
import { rep0ByJudge } from "../committee/file-columns.js";
import { committeeObservations, committeeSlotsOfFile } from "../report/slots.js";
import { buildObservationsColumns } from "../compare/data-columns.js";
import type { LabelSource, Observations } from "../compare/data.js";

/** The pseudo judge id the committee's verdicts carry in the observation run (never a judge's: it has a space). */
const COMMITTEE_RATER = "committee (columns)";

/**
 * The committee's observations (module docstring) of `run` (the `--where`-kept rows) with `cf` (its lines of those
 * rows: `restrictCommitteeColumns`).
 * @param run read with `COMPARE_ROW_FIELDS` of ./data-columns.ts and the top-level `conditionField`.
 * @param source the committee as the object path names it (`members`, `quorum` of the file).
 * @returns the observations with `source`, or undefined when the file is not one line per row slot
 *   ({@link committeeSlotsOfFile}).
 */
export function committeeObservationsColumns(run: ColumnRun, cf: CommitteeColumns, source: Extract<LabelSource, { kind: "committee" }>, conditionField: string): Observations | undefined {
  const cs = committeeSlotsOfFile(cf, run);
  if (!cs) return undefined;
  const obs = buildObservationsColumns(run, COMMITTEE_RATER, conditionField, committeeObservations(run, cs, rep0ByJudge(run), COMMITTEE_RATER));
  return { ...obs, source };
}
