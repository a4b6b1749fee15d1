/**
 * A column run (`./columns.ts`) seen through the object interfaces the summaries take, for the analyses that have
 * no column form of their own (`summarizeRun`'s per-judge figures): its index rows as a read-only map by id and its
 * verdicts as records carrying their `trajectory_id`, made as they are read (nothing per row or verdict is held).
 */
import type { Verdict } from "../types.js";
import type { ColumnRun } from "./columns.js";
import type { TrajectoryIndexRow } from "./records.js";

/** The id <-> slot lookups of `IdSlots` (`./id-slots.ts`), over a column run's id table. */
export interface SlotIds {
  /** the slot of an id (the run's verdicts' and rows' ids are all in the table) */
  slot(id: string): number;
  /** the slot of an id, -1 when absent */
  find(id: string): number;
  id(slot: number): string;
}

/**
 * The index rows of a column run as a `ReadonlyMap<id, row>`, in the run's order. A row is the shared projection
 * of the fields the run was read with (`rowFields`): it has no `id` and only those fields; a reader must need no
 * other. Ids are made strings as iterated (a new string each time).
 */
export class ColumnIndex implements ReadonlyMap<string, TrajectoryIndexRow> {
  /** the run's own id table, for `Rep0Fold` (`../run/rep0-rates.ts`): no second copy of the ids */
  readonly slotIds: SlotIds;

  constructor(readonly run: ColumnRun) {
    const ids = run.ids;
    this.slotIds = { slot: (id) => ids.add(id), find: (id) => ids.slotOf(id), id: (s) => ids.id(s) };
  }

  get size(): number {
    return this.run.nRows;
  }

  /** The row of an id (its shared projection), undefined when the run has no row for it. */
  get(id: string): TrajectoryIndexRow | undefined {
    const s = this.run.ids.slotOf(id);
    return s >= 0 && s < this.run.nRows ? (this.run.rows[this.run.rowCode[s]] as TrajectoryIndexRow) : undefined;
  }

  has(id: string): boolean {
    const s = this.run.ids.slotOf(id);
    return s >= 0 && s < this.run.nRows;
  }

  *entries(): IterableIterator<[string, TrajectoryIndexRow]> {
    for (let s = 0; s < this.run.nRows; s++) yield [this.run.ids.id(s), this.run.rows[this.run.rowCode[s]] as TrajectoryIndexRow];
  }

  *keys(): IterableIterator<string> {
    for (let s = 0; s < this.run.nRows; s++) yield this.run.ids.id(s);
  }

  *values(): IterableIterator<TrajectoryIndexRow> {
    for (let s = 0; s < this.run.nRows; s++) yield this.run.rows[this.run.rowCode[s]] as TrajectoryIndexRow;
  }

  [Symbol.iterator](): IterableIterator<[string, TrajectoryIndexRow]> {
    return this.entries();
  }

  forEach(f: (value: TrajectoryIndexRow, key: string, map: ReadonlyMap<string, TrajectoryIndexRow>) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this);
  }
}

/**
 * A column run's verdicts (those `keep` keeps, by position), in order, each a fresh record whose prototype is its
 * shared slim record and which owns only its `trajectory_id` (as `readLeanVerdicts` makes them; read-only). Made
 * one at a time as iterated: a single pass holds none of them.
 */
export function* columnVerdicts(run: ColumnRun, keep?: (i: number, v: Verdict) => boolean): Generator<Verdict> {
  for (let i = 0; i < run.nVerdicts; i++) {
    const shared = run.verdicts[run.vCode[i]];
    if (keep && !keep(i, shared)) continue;
    const v = Object.create(shared) as Verdict;
    v.trajectory_id = run.ids.id(run.vSlot[i]);
    yield v;
  }
}
