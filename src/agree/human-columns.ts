/**
 * What the human-label comparison (`humanAgreement`, ./human.ts) reads of a run read as columns: the verdicts of
 * the labelled trajectories only (a few thousand objects, not one per verdict of a million-trajectory run: issue 26).
 * Used by the report's column model (../report/model-columns.ts) and `agree --human` (../cli/agree-human.ts).
 */
import { columnVerdicts } from "../store/column-index.js";
import type { ColumnRun } from "../store/columns.js";
import type { Verdict } from "../types.js";

/**
 * What `humanAgreement` reads of the verdicts: those of the human-labelled trajectories (as objects), and one
 * verdict of each judge that has none of them (it takes the run's judges from the verdicts).
 */
export function humanVerdicts(run: ColumnRun, rows: ReadonlyArray<{ trajectory_id: string }>): Verdict[] {
  const mark = new Uint8Array(run.ids.size);
  for (const r of rows) {
    const s = run.ids.slotOf(r.trajectory_id);
    if (s >= 0) mark[s] = 1;
  }
  const out = [...columnVerdicts(run, (i) => mark[run.vSlot[i]] === 1)];
  const have = new Set(out.map((v) => v.judge_id));
  for (const v of columnVerdicts(run, (_i, v) => !have.has(v.judge_id))) {
    if (have.has(v.judge_id)) continue;
    have.add(v.judge_id);
    out.push(v);
  }
  return out;
}
