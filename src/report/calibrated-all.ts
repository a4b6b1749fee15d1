/**
 * The `(all)` row of the report's calibrated table: the one of `estimate --table` (../estimate/table-all.ts, moved
 * there in session 46 so that estimate's table prints it too), re-exported where the report's modules found it.
 */
import type { PaperTable } from "../estimate/table.js";
export { allRate, calibratedAllNotes, withCalibratedAll, type CalibratedAll, type CalibratedAllRate } from "../estimate/table-all.js";

/** The report's paper table with its `(all)` row (absent without a calibrated estimate). */
export type ReportPaperTable = PaperTable;
