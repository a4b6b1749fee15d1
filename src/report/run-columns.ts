/**
 * The run as the report's column path (`./model-columns.ts`) reads it, `--where` included: the rows the filter keeps
 * (`restrictColumns` of ../store/where-columns.ts, the selection `restrictRun` makes on objects) and the committee
 * file's lines of those rows (`restrictCommitteeColumns`), so `report --where` keeps a million-trajectory run as
 * columns too (issue 26 point 3: on objects it read the whole run as objects first). With human labels the whole
 * read is kept beside the kept rows (`full`): the human comparison's sample frame and the calibrated estimate are
 * over every row of the run, `--where` their domain (as `buildReportModelObjects` reads `fullIndex`).
 */
import type { ColumnRun, ColumnRunOptions } from "../store/columns.js";
import { letGoContentCodes, readColumnRun } from "../store/columns.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
import type { WhereFilter, WhereStatement } from "../store/where.js";
import { readCommitteeColumns, restrictCommitteeColumns, type CommitteeColumns } from "../committee/file-columns.js";
import { unattackedLeftOut } from "../agree/where-unattacked.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";

/** What {@link readReportColumns} returns. */
export interface ReportColumns {
  /** the run's rows (with `--where`: the kept ones as slots 0 .. kept-1) and their current verdicts */
  run: ColumnRun;
  /**
   * every row of the run as read (`run` itself without `--where`); null with `--where` unless `keepFull` asked for
   * it. A reader done with it sets it to null, so the whole read can be let go while the kept rows are still used.
   */
  full: ColumnRun | null;
  /** the committee file's lines of those rows, null without a file */
  cf: CommitteeColumns | null;
  /** `--where`: its statement and its warnings (a value that matched nothing); null without a filter */
  where: { statement: WhereStatement; warnings: string[] } | null;
  /** `--where`: the unattacked trajectories the filter leaves out (`unattackedLeftOut` over every row of the run) */
  leftOut: ReturnType<typeof unattackedLeftOut<Partial<TrajectoryIndexRow>>>;
}

/**
 * Read the run as columns with `fields` (and, with a filter, every field `--where` can name), then keep the rows
 * `where` keeps; the committee file read against the whole run and restricted to those rows.
 * @param runName named in the filter's messages (`trajectories of run X`).
 * @param keepFull with `--where`, keep the whole read as `full` too (human labels: their frame is every row); without
 *   it the whole read is let go once the kept rows are taken (a million-trajectory run's columns: tens of MB).
 * @throws UsageError as `restrictRun` when the filter keeps nothing; the read's errors.
 */
export async function readReportColumns(
  runDir: string,
  runName: string,
  fields: readonly string[],
  where: WhereFilter | null | undefined,
  opts: Omit<ColumnRunOptions, "rowFields">,
  keepFull = false,
): Promise<ReportColumns> {
  const read = await readColumnRun(runDir, { ...opts, rowFields: whereRowFields(fields, where) });
  const cf = await readCommitteeColumns(runDir, read);
  if (!where) return { run: read, full: read, cf, where: null, leftOut: null };
  // the whole read kept (human labels): the kept rows' ids a view on its id table, not a second table (~100 MB at 1M)
  const kept = restrictColumns(read, where, runName, { view: keepFull });
  // the whole read's content codes are copied to the kept rows' (test-retest reads those): no figure over every row
  // reads them (the human figures), so they go now, not when the whole read does (~16 MB at 1M)
  if (keepFull) letGoContentCodes(read, "report --where, once the kept rows are taken");
  const leftOut = unattackedLeftOut<Partial<TrajectoryIndexRow>>({ *[Symbol.iterator]() { for (let s = 0; s < read.nRows; s++) yield read.rows[read.rowCode[s]]; } }, where);
  return { run: kept.run, full: keepFull ? read : null, cf: cf ? restrictCommitteeColumns(cf, kept.slotMap) : null, where: { statement: kept.statement, warnings: kept.warnings }, leftOut };
}
