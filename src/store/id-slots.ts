/**
 * Trajectory id -> slot number (0, 1, 2, ... in first-seen order), exact, without a JS string per id (issue 26):
 * the ids are held once as UTF-8 bytes ({@link Utf8Column}) and found through an open-addressing table of slot
 * numbers (an Int32Array, load <= 0.7, grown by 1.5x) indexed by a 32-bit hash of the id's bytes. The hash only
 * picks where to look: a slot is taken as the id's only when its stored bytes equal the id's bytes, every one
 * compared, so two ids are never confused and no hash collision can ever skip work (a collision costs one more
 * comparison). A million ids of ~60 characters hold ~75 bytes each instead of ~140 in a `Map` with its strings.
 *
 * An ASCII id with a `/` is held as its folder (up to and including its last `/`) and the rest: the folder once, as a
 * slot of a second table of the same kind (AgentDojo layout ids `<model>/<suite>/<user_task>/<attack>/<injection>`
 * share their folder with the other injection tasks of the same user task, ~5-14 ids a folder), the rest per id
 * (issue 26: ~110 -> ~55 bytes an id at a million ids of ~90 characters). Two ids are equal exactly when their
 * folders (cut at the last `/` of each) and rests are, so the comparison stays byte for byte. Other ids are held whole.
 */
import { IntColumn } from "./int-column.js";
import { grown, Utf8Column } from "./utf8-column.js";

const LOAD = 0.7;

/** Trajectory id -> slot (module docstring). */
export class IdSlots {
  /** per slot: its id, or the rest of its id after its folder when {@link dirOf} names one */
  private readonly ids = new Utf8Column();
  /** per slot: the slot of its id's folder in {@link dirs}, or -1 (the id is held whole) */
  private readonly dirOf = new IntColumn();
  /** the folders of the ids held split, each once (held whole there); made on first use */
  private dirs: IdSlots | null = null;
  /** per slot: the hash of its id */
  private hashes = new Uint32Array(1024);
  private n = 0;
  /** open addressing: slot number or -1 */
  private table = new Int32Array(2048).fill(-1);
  /** scratch for the UTF-8 bytes of a non-ASCII id */
  private scratch = Buffer.alloc(256);
  /** the UTF-8 bytes of the last id {@link hashOf} saw with a non-ASCII character, else null */
  private utf8: Uint8Array | null = null;
  /**
   * The last id {@link slot} or {@link find} found or added, and its slot (-1: none yet). The tables that key by
   * trajectory id (ledger, resume keys, current verdicts, index rows, file stamps) each ask for the same id in turn,
   * 4 times per journal line at load: the repeats cost a string comparison (`===`, by value), not a hash and a byte
   * comparison. Exact: a slot's id never changes and no slot is ever removed, so a remembered pair stays true.
   */
  private lastId = "";
  private lastSlot = -1;

  /** @param split whether ASCII ids with a `/` are held as folder + rest (class docstring; a folder table holds them whole). */
  constructor(private readonly split = true) {}

  /**
   * FNV-1a over the id's UTF-8 bytes, then a final mix (32 bits). An ASCII id is hashed from its char codes (equal
   * to its bytes); another is encoded into {@link scratch} first and its bytes left in {@link utf8}.
   */
  private hashOf(id: string): number {
    let h = 0x811c9dc5;
    this.utf8 = null;
    for (let k = 0; k < id.length; k++) {
      const c = id.charCodeAt(k);
      if (c >= 0x80) return this.hashUtf8(id);
      h = Math.imul(h ^ c, 0x01000193);
    }
    return mix(h);
  }

  private hashUtf8(id: string): number {
    if (this.scratch.length < 3 * id.length) this.scratch = Buffer.alloc(3 * id.length);
    const w = this.scratch.write(id, 0, "utf8");
    const b = (this.utf8 = this.scratch.subarray(0, w));
    let h = 0x811c9dc5;
    for (let k = 0; k < w; k++) h = Math.imul(h ^ b[k], 0x01000193);
    return mix(h);
  }

  /** The table position of `id` (hash `h`, bytes per {@link utf8}): its slot's, or the empty one where it would go. */
  private position(id: string, h: number): number {
    const t = this.table;
    const cap = t.length;
    let i = h % cap;
    for (;;) {
      const s = t[i];
      if (s === -1) return i;
      if (this.hashes[s] === h && this.same(s, id)) return i;
      if (++i === cap) i = 0;
    }
  }

  /** Whether slot `s` holds exactly `id` (whose bytes, when not ASCII, are in {@link utf8}: {@link hashOf} was called on it). */
  private same(s: number, id: string): boolean {
    const d = this.dirOf.get(s);
    if (d === -1) return this.ids.equals(s, id, this.utf8 === null, this.utf8 ?? undefined);
    // held split: only an ASCII id with its last "/" at the same place is equal
    if (this.utf8 !== null) return false;
    const cut = id.lastIndexOf("/") + 1;
    return this.ids.equalsAsciiRange(s, id, cut, id.length) && this.dirs!.ids.equalsAsciiRange(d, id, 0, cut);
  }

  /** The slot of `id`, adding it when new. */
  slot(id: string): number {
    if (id === this.lastId && this.lastSlot !== -1) return this.lastSlot;
    const h = this.hashOf(id);
    let i = this.position(id, h);
    if (this.table[i] !== -1) return this.remember(id, this.table[i]);
    if (this.n + 1 > LOAD * this.table.length) {
      this.rehash();
      i = this.position(id, h);
    }
    const s = this.n++;
    this.hashes = grown(this.hashes, s + 1, (n) => new Uint32Array(n));
    this.hashes[s] = h;
    const cut = this.split && this.utf8 === null ? id.lastIndexOf("/") + 1 : 0;
    if (cut > 0) {
      this.dirOf.set(s, (this.dirs ??= new IdSlots(false)).slot(id.slice(0, cut)));
      this.ids.set(s, id.slice(cut));
    } else this.ids.set(s, id);
    this.table[i] = s;
    return this.remember(id, s);
  }

  /** The slot of `id`, or -1 when never added. */
  find(id: string): number {
    if (id === this.lastId && this.lastSlot !== -1) return this.lastSlot;
    const s = this.table[this.position(id, this.hashOf(id))];
    return s === -1 ? -1 : this.remember(id, s);
  }

  /** Note `id`'s slot as the last one found ({@link lastId}); gives it back. */
  private remember(id: string, s: number): number {
    this.lastId = id;
    this.lastSlot = s;
    return s;
  }

  /** The id of a slot (a new string each call; @throws RangeError for a slot never given). */
  id(slot: number): string {
    if (!(slot >= 0 && slot < this.n)) throw new RangeError(`no trajectory slot ${slot}`);
    const d = this.dirOf.get(slot);
    return d === -1 ? this.ids.get(slot) : this.dirs!.ids.get(d) + this.ids.get(slot);
  }

  /** Add `id` when new and give it back (the store keeps no string per id: the caller's copy is the one used). */
  canonical(id: string): string {
    this.slot(id);
    return id;
  }

  get size(): number {
    return this.n;
  }

  private rehash(): void {
    const cap = Math.ceil(this.table.length * 1.5);
    const t = new Int32Array(cap).fill(-1);
    for (let s = 0; s < this.n; s++) {
      let i = this.hashes[s] % cap;
      while (t[i] !== -1) if (++i === cap) i = 0;
      t[i] = s;
    }
    this.table = t;
  }
}

/** Final avalanche of a 32-bit hash (murmur3 fmix32), unsigned. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
