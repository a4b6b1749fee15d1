/**
 * The committee's paper table on a run read as columns, for `estimate --table --committee` on a million
 * trajectories (issue 26): the stored committee read as columns and checked against the run
 * (`../committee/file-columns.ts`), the committee resolved as `resolveSource` resolves it (the stored one's members
 * unless the options say otherwise), its verdict computed per row slot over its members (`committeeColumns`) and
 * the table built from the codes (`paperTableCommitteeColumns`, as the report's): no verdict or committee verdict
 * object per trajectory. The same source, warnings and table as `paperTable` on objects
 * (test/report/committee-table.test.ts).
 */
import type { ColumnRun } from "../store/columns.js";
import { storedCommittee } from "../committee/members.js";
import { checkCommitteeColumns, rep0ByJudge, type CommitteeColumns } from "../committee/file-columns.js";
import { committeeColumns } from "../committee/report-columns.js";
import { resolveSource, type EstimateSource } from "../estimate/run.js";
import type { PaperTable, TableOptions } from "../estimate/table.js";
import { paperTableCommitteeColumns } from "./slots.js";

/** A committee choice as `judgeChoice` of `../cli/estimate.ts` gives it. */
export interface CommitteeRequest {
  kind: "committee";
  quorum?: number;
  exclude?: string[];
}

/**
 * The committee of `req` resolved against a column run and its committee file, with its warnings pushed to `said`.
 * @param cf the run's committee file as read against `run` (`readCommitteeColumns`), null without one.
 * @param kept the run whose judges the committee is resolved among (`--where`'s kept rows, `restrictColumns` of
 *   ../store/where-columns.ts; the stored file is still checked against the whole `run`, as `readStoredCommittee`).
 * @throws EstimateError as `resolveSource` (an unknown judge, a committee of fewer than 2 judges).
 */
export function committeeSourceColumns(
  run: ColumnRun,
  cf: CommitteeColumns | null,
  req: CommitteeRequest,
  runName: string,
  said: string[],
  kept: Pick<ColumnRun, "verdicts"> = run,
): Extract<EstimateSource, { kind: "committee" }> {
  const stored = cf ? storedCommittee(cf, checkCommitteeColumns(cf, run).stale) : null;
  const source = resolveSource(kept.verdicts, { ...req, stored }, runName, said);
  if (source.kind !== "committee") throw new Error("a committee was asked for");
  return source;
}

/**
 * The paper table of a committee over a column run read with at least `TABLE_ROW_FIELDS`.
 * @param source from {@link committeeSourceColumns}; @param opts as `paperTable`'s, `calibrated` the table's
 *   calibrated estimate (`estimate --table --committee --human`: ../estimate/estimate-columns.ts), handed on to
 *   `paperTableFrom` with the others.
 */
export function committeeTableColumns(runName: string, run: ColumnRun, source: Extract<EstimateSource, { kind: "committee" }>, opts: TableOptions = {}): PaperTable {
  const rep0 = rep0ByJudge(run);
  const none = new Uint32Array(run.ids.size);
  const cc = committeeColumns(run, source.members, source.members.map((j) => rep0.get(j) ?? none), source.quorum);
  return paperTableCommitteeColumns(runName, run, { code: Int32Array.from(cc.code), verdicts: cc.verdicts }, rep0, source, opts);
}
