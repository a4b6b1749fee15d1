/**
 * A run's stored judge crashes narrowed to the rows `--where` selects (task s40 #4): the broken-judge exit of a
 * figure command (`./broken-exit.ts`) weighs a judge's crashes against its verdicts; `summary.json` holds whole-run
 * counts only, so a `--where` that selects only rows the judge labelled still exited 3 on crashes outside them. Here
 * the crashes are counted again from `errors.jsonl` as the summary counts them (`judge_crash` errors naming the judge,
 * distinct trajectories, any repeat; one whose (trajectory, judge, repeat) has a current verdict is superseded: judged
 * again since), over the selected rows only, against the judge's verdicts (every repeat) there. Read only on this
 * path: `--where` given and some judge of the run has stored crashes. The run is read as columns (the kept rows as
 * slots; a judge's verdicts as one byte per slot and repeat), so a million trajectories stay in bounded memory.
 */
import { readColumnRun } from "../store/columns.js";
import { readErrors } from "../store/records.js";
import type { WhereFilter } from "../store/where.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
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
  const read = await readColumnRun(runDir, { rowFields: whereRowFields([], where) });
  const run = restrictColumns(read, where).run;
  // the kept rows are slots 0 .. nRows-1 of `run`; per (judge, repeat): 1 at each kept slot with a current verdict
  const slotOf = (id: string) => {
    const s = run.ids.slotOf(id);
    return s >= 0 && s < run.nRows ? s : -1;
  };
  const key = (judge: string, repeat: unknown) => `${judge}\u0000${typeof repeat === "number" ? repeat : 0}`;
  const judged = new Map<string, Uint8Array>();
  const verdicts = new Map<string, number>();
  for (let i = 0; i < run.nVerdicts; i++) {
    const v = run.verdicts[run.vCode[i]];
    const slot = run.vSlot[i];
    if (!whole.has(v.judge_id) || slot >= run.nRows) continue;
    let at = judged.get(key(v.judge_id, v.repeat));
    if (!at) judged.set(key(v.judge_id, v.repeat), (at = new Uint8Array(run.nRows)));
    at[slot] = 1;
    verdicts.set(v.judge_id, (verdicts.get(v.judge_id) ?? 0) + 1);
  }
  const crashed = new Map<string, Set<string>>();
  for (const e of await readErrors(runDir)) {
    if (e.kind !== "judge_crash" || typeof e.trajectory_id !== "string") continue;
    const slot = slotOf(e.trajectory_id);
    if (slot < 0) continue;
    for (const [judge] of crashedItems([e], true)) {
      if (!whole.has(judge) || judged.get(key(judge, e.repeat))?.[slot]) continue;
      let s = crashed.get(judge);
      if (!s) crashed.set(judge, (s = new Set()));
      s.add(e.trajectory_id);
    }
  }
  for (const [judge, ids] of crashed) out.set(judge, { crashed: ids.size, verdicts: verdicts.get(judge) ?? 0 });
  return out;
}
