/**
 * `buildReportModel`: the report's data from a run, from columns (`./model-columns.ts`) where they serve, else from
 * objects (`buildReportModelObjects` of `./data.ts`: `--where`, the calibrated estimate, an odd committee file).
 */
import { buildReportModelObjects, type ReportModel, type ReportOptions } from "./data.js";
import { buildReportModelColumns } from "./model-columns.js";

/**
 * Gather the report's data from a run folder.
 * @returns the {@link ReportModel}.
 * @throws Error when the run has no verdicts; HumanLabelsError for an unusable human-label file; EstimateError for
 *   a paper-table choice that does not fit the run.
 */
export async function buildReportModel(o: ReportOptions): Promise<ReportModel> {
  if (!o.where) {
    const m = await buildReportModelColumns(o);
    if (m) return m;
    o.step?.("reading the run again as objects (the calibrated estimate, or a committee file not one line per trajectory)");
  }
  return buildReportModelObjects(o);
}
