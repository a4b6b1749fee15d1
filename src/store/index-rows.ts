/**
 * The slim index row (`slimIndexRow`) of each trajectory of a run, for its summary, held compactly (issue 26): a row
 * is its trajectory's slot plus a shared "shape" (the slim row without its `id`: attacked, agent model, condition,
 * attack, suite, surface; few distinct values in a run). A read-only `Map` view: rows are rebuilt (`{id, ...shape}`: same
 * fields, order and values) when read; iteration is in first-stored order, a later row of an id replacing it in place.
 * `run_folder` (the last field of a slim row) is coded in a column of its own, not in the shape: a run over many run
 * folders (the scale bench's 88 copies) times the other fields' combinations would pass {@link ROW_SHAPES_SHARED_MAX}
 * and keep a shape object per row.
 */
import type { TrajectoryIndexRow } from "./records.js";
import { IdSlots, IntColumn } from "./compact.js";
import { sameJson } from "./same-json.js";

/** Most distinct shapes shared through the lookup table; past it a shape is kept per row. */
export const ROW_SHAPES_SHARED_MAX = 10_000;

/** The slim index rows of a run by id (module docstring). */
export class IndexRows implements ReadonlyMap<string, TrajectoryIndexRow> {
  /** per slot: its shape, -1 = no row */
  private readonly shapeOf = new IntColumn();
  /** slots in first-stored order */
  private readonly order = new IntColumn();
  private n = 0;
  private readonly shapes: Array<Omit<TrajectoryIndexRow, "id">> = [];
  private readonly shapeCodes = new Map<string, number>();
  /** the shape of the row set last (-1: none yet) */
  private lastCode = -1;
  /** per slot: its `run_folder`'s code in {@link folders}, -1 = none */
  private readonly folderOf = new IntColumn();
  private readonly folders: string[] = [];
  private readonly folderCodes = new Map<string, number>();

  /** @param ids the trajectory slots (shared with the store). */
  constructor(readonly ids: IdSlots) {}

  /** Set the slim row of `row.id` (JSON values, as a journal line reads back). */
  set(row: TrajectoryIndexRow): void {
    const slot = this.ids.slot(row.id);
    const { id: _id, run_folder, ...shape } = row;
    let folder = -1;
    if (typeof run_folder === "string") {
      folder = this.folderCodes.get(run_folder) ?? -1;
      if (folder === -1) {
        folder = this.folders.push(run_folder) - 1;
        this.folderCodes.set(run_folder, folder);
      }
    }
    this.folderOf.set(slot, folder);
    // most rows have the shape of the one before: no JSON text built for them
    let code = this.lastCode !== -1 && sameJson(shape, this.shapes[this.lastCode]) ? this.lastCode : undefined;
    if (code === undefined) {
      const json = JSON.stringify(shape);
      code = this.shapeCodes.get(json);
      if (code === undefined) {
        code = this.shapes.length;
        Object.freeze(shape);
        this.shapes.push(shape);
        if (this.shapeCodes.size < ROW_SHAPES_SHARED_MAX) this.shapeCodes.set(json, code);
      }
      this.lastCode = code;
    }
    if (this.shapeOf.get(slot) === -1) this.order.set(this.n++, slot);
    this.shapeOf.set(slot, code);
  }

  private row(slot: number): TrajectoryIndexRow {
    const row = { id: this.ids.id(slot), ...this.shapes[this.shapeOf.get(slot)] } as TrajectoryIndexRow;
    const folder = this.folderOf.get(slot);
    if (folder !== -1) row.run_folder = this.folders[folder];
    return row;
  }

  /** The slot of the `i`-th row in first-stored order (0 <= i < {@link size}), as iteration takes them. */
  slotAt(i: number): number {
    return this.order.get(i);
  }

  /**
   * The fields of `slot`'s row other than `id` and `run_folder` (the store's shared, frozen object: read only), or
   * undefined when the slot has no row (or is -1, as `ids.find` gives for an id never seen): for a reader of those
   * fields by slot, without rebuilding the row.
   */
  fieldsOf(slot: number): Readonly<Omit<TrajectoryIndexRow, "id" | "run_folder">> | undefined {
    const code = slot === -1 ? -1 : this.shapeOf.get(slot);
    return code === -1 ? undefined : this.shapes[code];
  }

  /** Called every 1,024 rows an iteration rebuilds (the CLI's heap-size GC trigger, set by the store; as `CurrentVerdicts`). */
  heapCheck?: () => void;

  get size(): number {
    return this.n;
  }

  has(id: string): boolean {
    const slot = this.ids.find(id);
    return slot !== -1 && this.shapeOf.get(slot) !== -1;
  }

  get(id: string): TrajectoryIndexRow | undefined {
    const slot = this.ids.find(id);
    return slot === -1 || this.shapeOf.get(slot) === -1 ? undefined : this.row(slot);
  }

  *entries(): MapIterator<[string, TrajectoryIndexRow]> {
    for (let i = 0; i < this.n; i++) {
      if ((i & 1023) === 1023) this.heapCheck?.();
      const slot = this.order.get(i);
      yield [this.ids.id(slot), this.row(slot)];
    }
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.n; i++) yield this.ids.id(this.order.get(i));
  }

  *values(): MapIterator<TrajectoryIndexRow> {
    for (let i = 0; i < this.n; i++) {
      if ((i & 1023) === 1023) this.heapCheck?.();
      yield this.row(this.order.get(i));
    }
  }

  [Symbol.iterator](): MapIterator<[string, TrajectoryIndexRow]> {
    return this.entries();
  }

  forEach(cb: (value: TrajectoryIndexRow, key: string, map: ReadonlyMap<string, TrajectoryIndexRow>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }
}
