/**
 * `buildReportModel`: the report's data from a run, from columns (`./model-columns.ts`) where they serve, else from
 * objects (`buildReportModelObjects` of `./data.ts`: `--where` with human labels, an odd committee file).
 */
import { buildReportModelObjects, type ReportModel, type ReportOptions } from "./data.js";
import { buildReportModelColumns } from "./model-columns.js";
import { missingAdjudicationsWarning } from "../agree/sample-adjudications.js";
import { labelDesignDriftWarning } from "../agree/label-design-drift.js";

/**
 * Gather the report's data from a run folder.
 * @returns the {@link ReportModel}.
 * @throws Error when the run has no verdicts; HumanLabelsError for an unusable human-label file; EstimateError for
 *   a paper-table choice that does not fit the run.
 */
export async function buildReportModel(o: ReportOptions): Promise<ReportModel> {
  // --where with human labels: objects (the human comparison's frame and the calibrated estimate are over the whole run)
  let m = o.where && o.humanFile ? null : await buildReportModelColumns(o);
  if (!m) {
    if (!o.where || !o.humanFile) o.step?.("reading the run again as objects (a committee file not one line per trajectory)");
    // said as a step, its read can take minutes at 1M
    else o.step?.("reading the run as objects (--where with human labels)");
    m = await buildReportModelObjects(o);
  }
  // the sample folder's adjudications the label file lacks, in the human section (new-user report 38 F1)
  const missingAdj = o.humanFile ? [missingAdjudicationsWarning(o.humanFile), labelDesignDriftWarning(o.humanFile)].filter(Boolean).join("; ") || undefined : undefined;
  if (missingAdj) (m.human?.warnings ?? m.warnings).unshift(missingAdj);
  return m;
}
