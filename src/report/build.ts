/**
 * `buildReportModel`: the report's data from a run, from columns (`./model-columns.ts`) where they serve, else from
 * objects (`buildReportModelObjects` of `./data.ts`: a committee file not one line per trajectory).
 */
import { drawnItems, drawnWarning } from "../agree/drawn-items.js";
import { buildReportModelObjects, type ReportModel, type ReportOptions } from "./data.js";
import { buildReportModelColumns } from "./model-columns.js";
import { missingAdjudicationsWarning } from "../agree/sample-adjudications.js";
import { labelDesignDriftWarning } from "../agree/label-design-drift.js";
import { sayCoverageOnce } from "./coverage-once.js";

/**
 * Gather the report's data from a run folder.
 * @returns the {@link ReportModel}.
 * @throws Error when the run has no verdicts; HumanLabelsError for an unusable human-label file; EstimateError for
 *   a paper-table choice that does not fit the run.
 */
export async function buildReportModel(o: ReportOptions): Promise<ReportModel> {
  let m = await buildReportModelColumns(o);
  if (!m) {
    // said as a step, its read can take minutes at 1M
    o.step?.("reading the run again as objects (a committee file not one line per trajectory)");
    m = await buildReportModelObjects(o);
  }
  // the sample folder's adjudications the label file lacks, in the human section (new-user report 38 F1)
  const drawn = o.humanFile ? drawnItems(o.humanFile) : undefined; // drawn items without a label (break 51 #7)
  if (drawn && m.human) m.human.drawn = drawn;
  const labelFile = o.humanFile ? [missingAdjudicationsWarning(o.humanFile), labelDesignDriftWarning(o.humanFile), drawnWarning(o.humanFile, drawn)].filter((w): w is string => !!w) : [];
  if (m.human) sayCoverageOnce(m.warnings, m.human.warnings); // the sample's coverage said once (./coverage-once.ts)
  // the label file's own warnings: in the human section where its labels are shown, and among the report's warnings,
  // each on its own, so the summary's tally and "Read with" see them as estimate prints them (break52 #2: labels on
  // the wrong trajectories and unlabelled drawn items sat in the Agreement section only, the calibrated headline clean)
  if (labelFile.length && m.human) m.human.warnings.unshift(labelFile.join("; "));
  m.warnings.unshift(...labelFile);
  return m;
}
