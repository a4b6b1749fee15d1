/**
 * Some slots of an {@link IdTable} seen as a table of their own, numbered 0 .. kept-1 in the order given: the ids
 * of the rows `--where` keeps (`restrictColumns` of ./where-columns.ts) without a second copy of them, while the
 * whole read they come from is held anyway (issue 26 point 3: `report --where attacked=true --human` at a million
 * trajectories held a second table of 955,705 ids, ~100 MB, beside the whole read's while the human figures were
 * made). Two maps of 4 bytes per slot instead (kept slot -> slot of the table, slot of the table -> kept slot or -1).
 *
 * Behaves as an {@link IdTable} holding the kept ids in that order: the same `size`, `id`, `slotOf`, `compare`,
 * and `add` (an id it does not hold, in the table or not, gets the next slot after the kept ones, held apart).
 */
import { IdTable } from "./id-table.js";

/** What a column run reads of its id table (`ColumnRun.ids`): an {@link IdTable} or an {@link IdSubset}. */
export type RunIds = Pick<IdTable, "size" | "id" | "slotOf" | "compare" | "add">;

/** Kept slots of a table as a table (module docstring). */
export class IdSubset implements RunIds {
  /** ids added after the kept ones (slots kept .. kept+extra-1), made on the first such add */
  private extra: IdTable | null = null;

  /**
   * @param base the table the ids are held in (not copied; it must not drop ids while the subset is used; ids
   *   added to it later are not in the subset).
   * @param slots per kept slot k its slot in `base` (distinct).
   * @param slotMap per slot of `base` (at least `base.size` when made) its kept slot k, or -1 when not kept:
   *   `slotMap[slots[k]] === k`.
   */
  constructor(
    private readonly base: RunIds,
    private readonly slots: Uint32Array,
    private readonly slotMap: Int32Array,
  ) {}

  /** Number of ids held. */
  get size(): number {
    return this.slots.length + (this.extra?.size ?? 0);
  }

  /** The slot of `id`, or -1 when the subset does not hold it. */
  slotOf(id: string): number {
    const s = this.base.slotOf(id);
    if (s >= 0 && s < this.slotMap.length && this.slotMap[s] >= 0) return this.slotMap[s];
    const e = this.extra ? this.extra.slotOf(id) : -1;
    return e >= 0 ? this.slots.length + e : -1;
  }

  /** The slot of `id`, added at the end when new (held apart from the base table). */
  add(id: string): number {
    const s = this.slotOf(id);
    if (s >= 0) return s;
    this.extra ??= new IdTable();
    return this.slots.length + this.extra.add(id);
  }

  /** The id of a slot (a new string each call). @throws RangeError for a slot the subset does not hold. */
  id(slot: number): string {
    const n = this.size;
    if (!(slot >= 0 && slot < n)) throw new RangeError(`no id at slot ${slot} (${n} held)`);
    return slot < this.slots.length ? this.base.id(this.slots[slot]) : this.extra!.id(slot - this.slots.length);
  }

  /** Compare the ids of two slots by UTF-16 code units (`IdTable.compare`). @returns negative, 0 or positive. */
  compare(a: number, b: number): number {
    const k = this.slots.length;
    if (a < k && b < k) return this.base.compare(this.slots[a], this.slots[b]);
    const x = this.id(a);
    const y = this.id(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
}
