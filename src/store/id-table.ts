/**
 * A table of trajectory ids held as columns, not strings: every id once, UTF-8, in one growing byte buffer with
 * an offset table (`Float64Array`), found by an open-addressing hash table (`Int32Array`) over the bytes. A
 * million ids of ~70 characters take ~80 MB here, against ~150 MB as JS strings in a `Map`. Slots are numbered
 * 0, 1, 2... in order of first {@link IdTable.add}; {@link IdTable.id} gives the exact string back.
 *
 * Ids that UTF-8 cannot carry exactly (a lone UTF-16 surrogate, possible through a JSON `\ud800` escape: the
 * encoder would turn it into U+FFFD, and two different ids into the same bytes) are held as strings beside the
 * buffer, so every id round-trips exactly and two different ids never share a slot.
 */

const EMPTY = -1;

/** FNV-1a (32 bits) of `len` bytes of `b` (Fowler, Noll, Vo; the published offset basis and prime). */
function fnv1a(b: Uint8Array, len: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < len; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

/** Whether UTF-8 carries `s` exactly (no lone surrogate). */
function wellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false;
    const d = s.charCodeAt(i + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/** Ids as one byte buffer plus offsets (module docstring). */
export class IdTable {
  private bytes = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  /** start of slot i's bytes at `starts[i]`, its end at `starts[i + 1]` */
  private starts = new Float64Array(1025);
  private hashes = new Uint32Array(1024);
  private table = new Int32Array(2048).fill(EMPTY);
  private n = 0;
  private scratch = Buffer.allocUnsafe(4096);
  /** ids UTF-8 cannot carry exactly, by slot and by id */
  private readonly oddBySlot = new Map<number, string>();
  private readonly oddById = new Map<string, number>();

  /** Number of ids held. */
  get size(): number {
    return this.n;
  }

  /** The slot of `id`, or -1 when the table does not hold it. */
  slotOf(id: string): number {
    if (!wellFormed(id)) return this.oddById.get(id) ?? -1;
    const len = this.encode(id);
    const h = fnv1a(this.scratch, len);
    const mask = this.table.length - 1;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const s = this.table[p];
      if (s === EMPTY) return -1;
      if (this.hashes[s] === h && this.equals(s, len)) return s;
    }
  }

  /** The slot of `id`, added at the end when new. */
  add(id: string): number {
    if (!wellFormed(id)) {
      const hit = this.oddById.get(id);
      if (hit !== undefined) return hit;
      const s = this.push(0, 0);
      this.oddBySlot.set(s, id);
      this.oddById.set(id, s);
      return s;
    }
    const len = this.encode(id);
    const h = fnv1a(this.scratch, len);
    const mask = this.table.length - 1;
    let p = h & mask;
    for (; ; p = (p + 1) & mask) {
      const s = this.table[p];
      if (s === EMPTY) break;
      if (this.hashes[s] === h && this.equals(s, len)) return s;
    }
    if (this.used + len > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + len));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.scratch.copy(this.bytes, this.used, 0, len);
    const s = this.push(len, h);
    this.table[p] = s;
    if (2 * this.n > this.table.length) this.rehash();
    return s;
  }

  /** The id of a slot (a new string each call). @throws RangeError for a slot the table does not hold. */
  id(slot: number): string {
    if (!(slot >= 0 && slot < this.n)) throw new RangeError(`no id at slot ${slot} (${this.n} held)`);
    const odd = this.oddBySlot.get(slot);
    if (odd !== undefined) return odd;
    return this.bytes.toString("utf8", this.starts[slot], this.starts[slot + 1]);
  }

  /**
   * Compare the ids of two slots by UTF-16 code units, as `a < b` compares the strings (`compareCodeUnits` of
   * src/sample/draw.ts), without building them: UTF-8 bytes sort by code point, which is the code-unit order
   * except that a character above U+FFFF (lead byte F0-F4; surrogates D800-DBFF in UTF-16) sorts after
   * U+E000-U+FFFF (lead byte EE or EF) in UTF-8 and before it in UTF-16: that one case is turned round.
   * @returns negative, 0 or positive.
   */
  compare(a: number, b: number): number {
    if (this.oddBySlot.size && (this.oddBySlot.has(a) || this.oddBySlot.has(b))) {
      const x = this.id(a);
      const y = this.id(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    const B = this.bytes;
    let i = this.starts[a];
    let j = this.starts[b];
    const ea = this.starts[a + 1];
    const eb = this.starts[b + 1];
    for (; i < ea && j < eb; i++, j++) {
      const x = B[i];
      const y = B[j];
      if (x === y) continue;
      // the first byte that differs starts a character in both ids, or is inside characters of one lead byte
      if (x >= 0xf0 && (y === 0xee || y === 0xef)) return -1;
      if (y >= 0xf0 && (x === 0xee || x === 0xef)) return 1;
      return x < y ? -1 : 1;
    }
    return ea - i - (eb - j);
  }

  /** Bytes held (buffer, offsets, hashes, table): the table's own memory, for the figures. */
  get byteSize(): number {
    return this.bytes.length + this.starts.byteLength + this.hashes.byteLength + this.table.byteLength;
  }

  private encode(id: string): number {
    if (id.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(id.length * 3);
    return this.scratch.write(id, 0, "utf8");
  }

  private equals(s: number, len: number): boolean {
    const a = this.starts[s];
    const b = this.starts[s + 1];
    return b - a === len && !this.oddBySlot.has(s) && this.bytes.compare(this.scratch, 0, len, a, b) === 0;
  }

  /** Append a slot of `len` bytes (already copied at `used`) with hash `h`. */
  private push(len: number, h: number): number {
    const s = this.n;
    if (s + 2 > this.starts.length || s >= this.hashes.length) {
      const st = new Float64Array(this.hashes.length * 2 + 1);
      st.set(this.starts);
      this.starts = st;
      const hs = new Uint32Array(st.length - 1);
      hs.set(this.hashes);
      this.hashes = hs;
    }
    this.starts[s] = this.used;
    this.used += len;
    this.starts[s + 1] = this.used;
    this.hashes[s] = h;
    this.n++;
    return s;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2).fill(EMPTY);
    const mask = table.length - 1;
    for (let s = 0; s < this.n; s++) {
      if (this.oddBySlot.has(s)) continue;
      let p = this.hashes[s] & mask;
      while (table[p] !== EMPTY) p = (p + 1) & mask;
      table[p] = s;
    }
    this.table = table;
  }
}
