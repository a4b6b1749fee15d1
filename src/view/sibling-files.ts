/**
 * The input files that can serve one DRIFT run's injected text when the view opens it (../sample/recover.ts): a run
 * whose log records no injected text was labelled with the text of its sibling runs (same suite, user task,
 * injection task, attack and agent model) or of its clean run (same suite, user task, agent model and condition), so
 * the files of the run's rows of the same suite, user task and agent model hold every one of them. Read instead of
 * every input of the run (recover42: opening one item must not read the whole corpus). Their paths are the ones the
 * run's index records, as for the item's own file.
 */
import path from "node:path";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { ViewRun } from "./run-data.js";

/**
 * The files of `run`'s rows that share `row`'s suite, user task and agent model (module docstring), resolved from
 * `sourceRoot`; undefined when the row lacks one of those fields (the caller reads the run's inputs then, as before).
 * One pass over the rows (no file read but their index lines).
 */
export function siblingFiles(run: Pick<ViewRun, "rows" | "index">, row: Pick<TrajectoryIndexRow, "suite" | "user_task_id" | "agent_model">, sourceRoot: string): string[] | undefined {
  if (!row.suite || !row.user_task_id || !row.agent_model) return undefined;
  const out = new Set<string>();
  for (const r of run.rows) {
    if (r.suite !== row.suite || r.user_task_id !== row.user_task_id || r.agent_model !== row.agent_model) continue;
    const p = run.index.get(r.id)?.source?.path;
    if (p) out.add(path.resolve(sourceRoot, p));
  }
  return out.size ? [...out] : undefined;
}
