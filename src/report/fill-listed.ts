/**
 * The report's listed items with their full stored records (`./data.ts` computes its figures from compact ones).
 */
import type { Verdict } from "../types.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { readFullVerdicts, readIndexRows, type ReadProgress } from "../store/lean-read.js";

/** What {@link fillListed} reads and sets of a listed item (`ReportItem` of `./data.ts`). */
export interface ListedItem {
  trajectory_id: string;
  row?: TrajectoryIndexRow;
  verdicts: Verdict[];
}

/**
 * Give the listed items their full stored records in place of the compact ones the figures were computed from:
 * the index row (with `source` and `content_sha256`) and the repeat-0 verdicts of each judge (rationale, quotes),
 * read back by id in one pass over each journal; a verdict made on an older text than the row's now is left out, as
 * the figures leave it out.
 * @param items the listed items (mutated: `row`, `verdicts`); @param judgeIds the judges, in the list's order
 * @param progress where the re-reads are (a progress display)
 */
export async function fillListed(runDir: string, items: ListedItem[], judgeIds: readonly string[], progress?: ReadProgress): Promise<void> {
  if (!items.length) return;
  const ids = new Set(items.map((it) => it.trajectory_id));
  const rows = await readIndexRows(runDir, ids, progress);
  // a verdict on an older text than the row's now is in no figure (../store/stale-verdicts.ts): not listed either,
  // and it supersedes nothing (a text changed back lists the verdict the figures count)
  const full = await readFullVerdicts(runDir, ids, progress, (id) => rows.get(id)?.content_sha256);
  const rep0 = new Map<string, Verdict>();
  for (const v of full) if (v.repeat === 0) rep0.set(`${v.trajectory_id}\u0000${v.judge_id}`, v);
  for (const it of items) {
    if (it.row) it.row = rows.get(it.trajectory_id) ?? it.row;
    it.verdicts = judgeIds.map((j) => rep0.get(`${it.trajectory_id}\u0000${j}`)).filter((v): v is Verdict => !!v);
  }
}
