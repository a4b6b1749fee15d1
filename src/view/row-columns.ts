/**
 * The view's rows as columns (one slot per trajectory): the id in an {@link IdTable}, each metadata field and the
 * search text as a code into its distinct strings, `labels`/`status`/`downgraded`/`committee` as codes into their
 * distinct values (shared, never written into), `attacked`, `reference`, the unverified-quote count and the head
 * of the row's verdict-line chain (run-data.ts `RefStore`) in typed arrays; human labels in a map of the few rows
 * that have them. A {@link ViewRow} is built when a request reads the row ({@link RowColumns.row}) and dropped after:
 * ~150 B a trajectory held instead of a live object graph of ~350-1,050 B.
 */
import { IdTable } from "../store/id-table.js";

/** One trajectory of a run, as the list shows and filters it. */
export interface ViewRow {
  id: string;
  agent_model?: string;
  suite?: string;
  condition?: string;
  attack?: string;
  surface?: string;
  user_task_id?: string;
  injection_task_id?: string;
  attacked: boolean;
  /** The benchmark's `security` where it means something (attacked, no run error); undefined elsewhere. */
  reference?: boolean;
  /** Judge id -> repeat-0 label (null: no label, see `status`). A judge without a verdict is absent. */
  labels: Record<string, string | null>;
  /** Judge id -> repeat-0 status. */
  status: Record<string, string>;
  /** Judges whose repeat-0 verdict was downgraded. */
  downgraded: string[];
  /** Quotes of the repeat-0 verdicts that did not verify. */
  unverified_quotes: number;
  committee?: { label: string | null; status: string };
  /** Annotator -> label (from `--human` and the sample's annotation files). */
  humans?: Record<string, string>;
  /** Where this row's current verdicts are: the first entry of its chain in the run's `RefStore` (./run-data.ts) (-1: none);
   * `refsOf` reads them back per judge. A number, not per-row arrays of objects (~200 B a row at 1M). */
  refs: number;
  /** The rationales of the repeat-0 verdicts (each ` ` + its first 400 characters): the search box looks in
   * `searchText` (./run-data.ts), these with the id, task ids, model, suite, attack and condition, lowercased. */
  search: string;
}

/** Distinct values by code; code 0 is `undefined`. Objects are keyed by their JSON (equal JSON: one shared value). */
export class Codes<T> {
  readonly values: Array<T | undefined> = [undefined];
  private readonly byKey = new Map<string, number>();
  /** The code of `v` (added on first sight); `undefined` is 0. */
  code(v: T | undefined): number {
    if (v === undefined) return 0;
    const k = typeof v === "string" ? `s${v}` : `o${JSON.stringify(v)}`;
    let c = this.byKey.get(k);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(v);
      this.byKey.set(k, c);
    }
    return c;
  }
}

/** The string fields of a row, in the order the page's JSON has them. */
export const ROW_FIELDS = ["agent_model", "suite", "condition", "attack", "surface", "user_task_id", "injection_task_id"] as const;
type Field = (typeof ROW_FIELDS)[number];
type Obj = Record<string, unknown> | unknown[];

/** Rows of a run as columns by slot (module docstring). Slots are the {@link IdTable}'s: order of first sight. */
export class RowColumns {
  readonly ids = new IdTable();
  readonly strings = new Codes<string>();
  readonly objects = new Codes<Obj>();
  private cap = 1024;
  fields = ROW_FIELDS.map(() => new Uint32Array(1024));
  attacked = new Uint8Array(1024);
  /** -1: no reference; 0 / 1: the benchmark's security verdict. */
  reference = new Int8Array(1024);
  labels = new Uint32Array(1024);
  status = new Uint32Array(1024);
  downgraded = new Uint32Array(1024);
  committee = new Uint32Array(1024);
  unverified = new Uint32Array(1024);
  refs = new Int32Array(1024);
  search = new Uint32Array(1024);
  /** Where this row's index line is in `trajectories.jsonl` (bytes); -1: none. */
  lineStart = new Float64Array(1024);
  lineLength = new Uint32Array(1024);
  readonly humans = new Map<number, Record<string, string>>();

  /** Number of slots. */
  get size(): number {
    return this.ids.size;
  }

  /** The slot of `id`, a new empty row (no labels, no refs) when the id is new. */
  slot(id: string): { slot: number; added: boolean } {
    const n = this.ids.size;
    const s = this.ids.add(id);
    if (s !== n) return { slot: s, added: false };
    if (s === this.cap) this.grow();
    this.clear(s);
    return { slot: s, added: true };
  }

  /** Reset a slot to an empty row (a later index row of an id replaces the earlier one in its place). */
  clear(s: number): void {
    for (const f of this.fields) f[s] = 0;
    this.attacked[s] = 0;
    this.reference[s] = -1;
    this.labels[s] = this.objects.code({});
    this.status[s] = this.labels[s];
    this.downgraded[s] = this.objects.code([]);
    this.committee[s] = 0;
    this.unverified[s] = 0;
    this.search[s] = this.strings.code("");
    this.lineStart[s] = -1;
    this.lineLength[s] = 0;
    this.refs[s] = -1;
  }

  /** Set a string field of a slot (undefined: absent). */
  setField(s: number, f: Field, v: string | undefined): void {
    this.fields[ROW_FIELDS.indexOf(f)][s] = this.strings.code(v);
  }

  /** The value of an object code (labels, status, downgraded, committee). */
  obj<T>(code: number): T {
    return this.objects.values[code] as T;
  }

  /**
   * The row of a slot as the list and the item read it: every field in the page's JSON order, absent ones
   * `undefined` (JSON leaves them out). A new object each call; writing into it changes nothing.
   */
  row(s: number): ViewRow {
    const str = this.strings.values;
    const f = this.fields;
    const ref = this.reference[s];
    return {
      id: this.ids.id(s),
      attacked: this.attacked[s] === 1,
      labels: this.obj(this.labels[s]),
      status: this.obj(this.status[s]),
      downgraded: this.obj(this.downgraded[s]),
      unverified_quotes: this.unverified[s],
      refs: this.refs[s],
      search: str[this.search[s]]!,
      agent_model: str[f[0][s]],
      suite: str[f[1][s]],
      condition: str[f[2][s]],
      attack: str[f[3][s]],
      surface: str[f[4][s]],
      user_task_id: str[f[5][s]],
      injection_task_id: str[f[6][s]],
      reference: ref === -1 ? undefined : ref === 1,
      committee: this.obj(this.committee[s]),
      humans: this.humans.get(s),
    };
  }

  private grow(): void {
    const cap = this.cap * 2;
    const g = <T extends Uint8Array | Int8Array | Uint32Array | Int32Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.set(a);
      return b;
    };
    this.fields = this.fields.map(g);
    this.attacked = g(this.attacked);
    this.reference = g(this.reference);
    this.labels = g(this.labels);
    this.status = g(this.status);
    this.downgraded = g(this.downgraded);
    this.committee = g(this.committee);
    this.unverified = g(this.unverified);
    this.refs = g(this.refs);
    this.search = g(this.search);
    this.lineStart = g(this.lineStart);
    this.lineLength = g(this.lineLength);
    this.cap = cap;
  }
}

/** The rows of a run in list order, built one at a time from their columns. Arrays of rows fit it too. */
export interface RowList {
  readonly length: number;
  at(i: number): ViewRow | undefined;
  [Symbol.iterator](): Iterator<ViewRow>;
}

/** A {@link RowList} over columns: positions `0..nIndexed-1` are slots in order, then the orphans' slots in `tail`. */
export class ColumnRows implements RowList {
  constructor(
    private readonly cols: RowColumns,
    private readonly nIndexed: number,
    private readonly tail: readonly number[],
  ) {}
  get length(): number {
    return this.nIndexed + this.tail.length;
  }
  /** The slot at list position `i` (undefined past the end). */
  slotAt(i: number): number | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) return undefined;
    return i < this.nIndexed ? i : this.tail[i - this.nIndexed];
  }
  at(i: number): ViewRow | undefined {
    const s = this.slotAt(i < 0 ? this.length + i : i);
    return s === undefined ? undefined : this.cols.row(s);
  }
  *[Symbol.iterator](): Iterator<ViewRow> {
    for (let i = 0; i < this.length; i++) yield this.cols.row(i < this.nIndexed ? i : this.tail[i - this.nIndexed]);
  }
}
