/**
 * What the human-label comparison (`humanAgreement`, ./human.ts) reads of a run read as columns: the verdicts of
 * the labelled trajectories only (a few thousand objects, not one per verdict of a million-trajectory run: issue 26).
 * Used by the report's column model (../report/model-columns.ts) and `agree --human` (../cli/agree-human.ts).
 */
import { columnVerdicts, type ColumnIndex } from "../store/column-index.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
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

/**
 * The run's rows with their ids, as `humanAgreement`'s `population` (the sample frame's check and the rows outside
 * `--where`) reads them, made one at a time when read: an array-like of `nRows` rows whose k-th element is a new
 * `{ ...row, id }` (a million trajectories: no million row objects and id strings kept live for a pass over them).
 * Each read gives a new object: for readers that iterate, count, filter or index it, not for identity.
 */
export function populationRows(index: ColumnIndex): readonly TrajectoryIndexRow[] {
  const run = index.run;
  const slotOf = (p: string | symbol): number => {
    if (typeof p !== "string") return -1;
    const k = Number(p);
    return Number.isInteger(k) && k >= 0 && String(k) === p ? k : -1;
  };
  return new Proxy([] as TrajectoryIndexRow[], {
    get(target, p, receiver) {
      if (p === "length") return run.nRows;
      const k = slotOf(p);
      if (k >= 0) return k < run.nRows ? ({ ...run.rows[run.rowCode[k]], id: run.ids.id(k) } as TrajectoryIndexRow) : undefined;
      return Reflect.get(target, p, receiver);
    },
    has(target, p) {
      const k = slotOf(p);
      return k >= 0 ? k < run.nRows : Reflect.has(target, p);
    },
  });
}
