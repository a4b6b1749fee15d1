/**
 * A run's stored judge crashes narrowed to the rows `--where` selects (task s40 #4): the broken-judge exit of a
 * figure command (`./broken-exit.ts`) weighs a judge's crashes against its verdicts; `summary.json` holds whole-run
 * counts only, so a `--where` that selects only rows the judge labelled still exited 3 on crashes outside them. Here
 * the crashes are counted again from `errors.jsonl` as the summary counts them (`judge_crash` errors naming the judge,
 * distinct trajectories, any repeat; one whose (trajectory, judge, repeat) has a current verdict is superseded: judged
 * again since), over the selected rows only, against the judge's verdicts (every repeat) there. Read only on this
 * path: `--where` given and some judge of the run has stored crashes.
 */
import { readLeanRun } from "../store/lean-read.js";
import { readErrors } from "../store/records.js";
import { restrictRun, type WhereFilter } from "../store/where.js";
import type { StoredCrashes } from "../store/stored-crashes.js";
import { crashedItems } from "../run/summary.js";

/**
 * Per judge of `whole` (the run's stored crashes, `storedJudgeCrashes`), its crashes and verdicts among the rows
 * `where` selects; a judge with no crash there is left out.
 * @param runDir the run folder; @param where the command's `--where`.
 */
export async function crashesWhere(runDir: string, where: WhereFilter, whole: ReadonlyMap<string, StoredCrashes>): Promise<Map<string, StoredCrashes>> {
  const out = new Map<string, StoredCrashes>();
  if (whole.size === 0) return out;
  const lean = await readLeanRun(runDir);
  const rows = restrictRun({ index: lean.index }, where).index;
  const key = (judge: string, id: string, repeat: unknown) => `${judge}\u0000${id}\u0000${typeof repeat === "number" ? repeat : 0}`;
  const judged = new Set<string>();
  const verdicts = new Map<string, number>();
  for (const v of lean.verdicts) {
    if (!whole.has(v.judge_id) || !rows.has(v.trajectory_id)) continue;
    judged.add(key(v.judge_id, v.trajectory_id, v.repeat));
    verdicts.set(v.judge_id, (verdicts.get(v.judge_id) ?? 0) + 1);
  }
  const crashed = new Map<string, Set<string>>();
  for (const e of await readErrors(runDir)) {
    if (e.kind !== "judge_crash" || typeof e.trajectory_id !== "string" || !rows.has(e.trajectory_id)) continue;
    for (const [judge] of crashedItems([e], true)) {
      if (!whole.has(judge) || judged.has(key(judge, e.trajectory_id, e.repeat))) continue;
      let s = crashed.get(judge);
      if (!s) crashed.set(judge, (s = new Set()));
      s.add(e.trajectory_id);
    }
  }
  for (const [judge, ids] of crashed) out.set(judge, { crashed: ids.size, verdicts: verdicts.get(judge) ?? 0 });
  return out;
}
