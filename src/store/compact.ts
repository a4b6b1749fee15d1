/**
 * Fixed-width, exact structures for what a run holds per trajectory and per verdict (issue 26: memory that does not
 * grow by kilobytes per trajectory). Nothing here is a lossy fingerprint: a trajectory id maps to a slot number
 * through one exact `Map` (its key string is the one copy of the id the store keeps), repeated strings (judge ids,
 * prompt and configuration hashes, statuses, models) are interned to small integers, and a resume key is the exact
 * pair (slot, interned rest of the key) in a typed-array open-addressing table. So a lookup never confuses two keys,
 * and no collision can skip work.
 */

/** Small-integer codes for a set of repeated strings (first seen = 0, 1, 2, ...). */
export class Interner {
  private readonly codes = new Map<string, number>();
  private readonly values: string[] = [];

  /** The code of `s`, adding it when new. */
  code(s: string): number {
    let c = this.codes.get(s);
    if (c === undefined) {
      c = this.values.length;
      this.codes.set(s, c);
      this.values.push(s);
    }
    return c;
  }

  /** The code of `s`, or -1 when it was never added. */
  find(s: string): number {
    return this.codes.get(s) ?? -1;
  }

  /** The string of a code (@throws RangeError for a code never given). */
  value(c: number): string {
    const v = this.values[c];
    if (v === undefined) throw new RangeError(`no interned value ${c}`);
    return v;
  }

  get size(): number {
    return this.values.length;
  }
}

/**
 * Trajectory id -> slot number (0, 1, 2, ... in first-seen order), exact. {@link canonical} gives the store's one copy
 * of an id string, so the records that name it (index rows, slim verdicts) share it instead of holding their own.
 */
export class IdSlots {
  private readonly slots = new Map<string, number>();
  private readonly ids: string[] = [];

  /** The slot of `id`, adding it when new. */
  slot(id: string): number {
    let s = this.slots.get(id);
    if (s === undefined) {
      s = this.ids.length;
      this.slots.set(id, s);
      this.ids.push(id);
    }
    return s;
  }

  /** The slot of `id`, or -1 when never added. */
  find(id: string): number {
    return this.slots.get(id) ?? -1;
  }

  /** The id of a slot (@throws RangeError for a slot never given). */
  id(slot: number): string {
    const v = this.ids[slot];
    if (v === undefined) throw new RangeError(`no trajectory slot ${slot}`);
    return v;
  }

  /** The store's copy of an id (equal to `id`; adds it when new). */
  canonical(id: string): string {
    return this.ids[this.slot(id)];
  }

  get size(): number {
    return this.ids.length;
  }
}

/** A growable Int32Array-backed column, `fill` where never set. */
export class IntColumn {
  private a: Int32Array;
  constructor(private readonly fill = -1, initial = 1024) {
    this.a = new Int32Array(initial).fill(fill);
  }
  get(i: number): number {
    return i < this.a.length ? this.a[i] : this.fill;
  }
  set(i: number, v: number): void {
    if (i >= this.a.length) {
      let n = this.a.length * 2;
      while (n <= i) n *= 2;
      const b = new Int32Array(n).fill(this.fill);
      b.set(this.a);
      this.a = b;
    }
    this.a[i] = v;
  }
}

/** A growable Float64Array-backed column (NaN where never set). */
export class FloatColumn {
  private a = new Float64Array(1024).fill(NaN);
  get(i: number): number {
    return i < this.a.length ? this.a[i] : NaN;
  }
  set(i: number, v: number): void {
    if (i >= this.a.length) {
      let n = this.a.length * 2;
      while (n <= i) n *= 2;
      const b = new Float64Array(n).fill(NaN);
      b.set(this.a);
      this.a = b;
    }
    this.a[i] = v;
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Content hashes (`content_sha256`, 64 lowercase hex digits) by slot, as 32 bytes each; any other string (an old or
 * hand-edited index) is kept as it is, so {@link get} always gives back exactly what was set. "" = none set.
 */
export class HashColumn {
  private bytes = new Uint8Array(32 * 1024);
  /** 0 = none, 1 = bytes, 2 = kept in {@link odd} */
  private kind = new Uint8Array(1024);
  private readonly odd = new Map<number, string>();

  private grow(i: number): void {
    if (i < this.kind.length) return;
    let n = this.kind.length * 2;
    while (n <= i) n *= 2;
    const k = new Uint8Array(n);
    k.set(this.kind);
    this.kind = k;
    const b = new Uint8Array(32 * n);
    b.set(this.bytes);
    this.bytes = b;
  }

  set(i: number, sha: string): void {
    this.grow(i);
    if (HEX64.test(sha)) {
      this.bytes.set(Buffer.from(sha, "hex"), 32 * i);
      this.kind[i] = 1;
      this.odd.delete(i);
    } else {
      this.kind[i] = 2;
      this.odd.set(i, sha);
    }
  }

  /** Whether slot `i` holds a hash. */
  has(i: number): boolean {
    return i < this.kind.length && this.kind[i] !== 0;
  }

  /** The hash of slot `i` ("" when none). */
  get(i: number): string {
    if (i >= this.kind.length || this.kind[i] === 0) return "";
    if (this.kind[i] === 2) return this.odd.get(i)!;
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + 32 * i, 32).toString("hex");
  }

  /** Whether slot `i` holds exactly `sha` (no string made for the usual 64-hex case). */
  equals(i: number, sha: string): boolean {
    if (i >= this.kind.length || this.kind[i] === 0) return false;
    if (this.kind[i] === 2) return this.odd.get(i) === sha;
    if (!HEX64.test(sha)) return false;
    const off = 32 * i;
    for (let k = 0; k < 32; k++) if (this.bytes[off + k] !== parseInt(sha.substr(2 * k, 2), 16)) return false;
    return true;
  }

  /** Forget slot `i`'s hash. */
  clear(i: number): void {
    if (i < this.kind.length) this.kind[i] = 0;
    this.odd.delete(i);
  }
}

/**
 * An exact map (a, b) -> int (both uint32), open addressing with linear probing in typed arrays (12 bytes a slot,
 * load <= 1/2). Used with a = trajectory slot and b = the interned rest of a resume key.
 */
export class PairTable {
  private cap = 1024;
  private ka = new Uint32Array(this.cap);
  private kb = new Uint32Array(this.cap);
  private vals = new Int32Array(this.cap).fill(-1);
  private n = 0;

  private static hash(a: number, b: number): number {
    let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    return (h ^ (h >>> 13)) >>> 0;
  }

  private index(a: number, b: number): number {
    const mask = this.cap - 1;
    let i = PairTable.hash(a, b) & mask;
    while (this.vals[i] !== -1 && (this.ka[i] !== a || this.kb[i] !== b)) i = (i + 1) & mask;
    return i;
  }

  /** The value of (a, b), or -1. */
  get(a: number, b: number): number {
    return this.vals[this.index(a, b)];
  }

  /** Set (a, b) -> v (v >= 0). */
  set(a: number, b: number, v: number): void {
    if (v < 0) throw new RangeError("PairTable values are >= 0");
    if (2 * (this.n + 1) > this.cap) this.rehash();
    const i = this.index(a, b);
    if (this.vals[i] === -1) {
      this.n++;
      this.ka[i] = a;
      this.kb[i] = b;
    }
    this.vals[i] = v;
  }

  get size(): number {
    return this.n;
  }

  /** Every (a, b, value), in table order. */
  *entries(): Generator<[number, number, number]> {
    for (let i = 0; i < this.cap; i++) if (this.vals[i] !== -1) yield [this.ka[i], this.kb[i], this.vals[i]];
  }

  private rehash(): void {
    const { ka, kb, vals, cap } = this;
    this.cap = cap * 2;
    this.ka = new Uint32Array(this.cap);
    this.kb = new Uint32Array(this.cap);
    this.vals = new Int32Array(this.cap).fill(-1);
    this.n = 0;
    for (let i = 0; i < cap; i++) if (vals[i] !== -1) this.set(ka[i], kb[i], vals[i]);
  }
}
