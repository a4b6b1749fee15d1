/**
 * Fixed-width, exact structures for what a run holds per trajectory and per verdict (issue 26: memory that does not
 * grow by kilobytes per trajectory). Nothing here is a lossy fingerprint: a trajectory id maps to a slot number
 * exactly (`./id-slots.ts`: its bytes are the one copy of the id the store keeps), repeated strings (judge ids,
 * prompt and configuration hashes, statuses, models) are interned to small integers, and a resume key is the exact
 * pair (slot, interned rest of the key) in a typed-array open-addressing table. So a lookup never confuses two keys,
 * and no collision can skip work.
 */
import { HashPool } from "./hash-pool.js";
import { grownSize, IntColumn } from "./int-column.js";

export { IdSlots } from "./id-slots.js";
export { HashPool } from "./hash-pool.js";
export { IntColumn } from "./int-column.js";

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
 * A growable column of numbers (NaN where never set). Most runs store costs that are 0 or unknown: those take one
 * byte each (a kind); any other value is kept exactly in a Float64Array made on first use. Grown by 1.5x.
 */
export class FloatColumn {
  /** 0 = NaN (never set or set to NaN), 1 = +0, 2 = in {@link vals} */
  private kind = new Uint8Array(1024);
  private vals: Float64Array | null = null;
  get(i: number): number {
    const k = i < this.kind.length ? this.kind[i] : 0;
    return k === 0 ? NaN : k === 1 ? 0 : this.vals![i];
  }
  set(i: number, v: number): void {
    if (i >= this.kind.length) {
      const b = new Uint8Array(grownSize(this.kind.length, i + 1));
      b.set(this.kind);
      this.kind = b;
    }
    if (Number.isNaN(v)) this.kind[i] = 0;
    else if (Object.is(v, 0)) this.kind[i] = 1;
    else {
      if (!this.vals || this.vals.length < this.kind.length) {
        const b = new Float64Array(this.kind.length);
        if (this.vals) b.set(this.vals);
        this.vals = b;
      }
      this.vals[i] = v;
      this.kind[i] = 2;
    }
  }
}

/**
 * Content hashes (`content_sha256`) by slot, each a 4-byte code into a {@link HashPool} that several columns share
 * (`./hash-pool.ts`: a value held once, 32 bytes for 64 hex digits, any other string as it is), so {@link get}
 * always gives back exactly what was set. "" = none set.
 */
export class HashColumn {
  private readonly codes = new IntColumn();

  /** @param pool where the values are held (shared with the other hash columns of a store). */
  constructor(readonly pool: HashPool = new HashPool()) {}

  set(i: number, sha: string): void {
    this.codes.set(i, this.pool.code(sha));
  }

  /** The pool code of slot `i`'s hash (-1 when none): equal hashes, equal codes (the pool holds a value once). */
  code(i: number): number {
    return this.codes.get(i);
  }

  /** Whether slot `i` holds a hash. */
  has(i: number): boolean {
    return this.codes.get(i) !== -1;
  }

  /** The hash of slot `i` ("" when none). */
  get(i: number): string {
    const c = this.codes.get(i);
    return c === -1 ? "" : this.pool.value(c);
  }

  /** Whether slot `i` holds exactly `sha` (equal codes: the pool holds each value once; no string made). */
  equals(i: number, sha: string): boolean {
    const c = this.codes.get(i);
    return c !== -1 && c === this.pool.find(sha);
  }

  /** Forget slot `i`'s hash. */
  clear(i: number): void {
    if (this.codes.get(i) !== -1) this.codes.set(i, -1);
  }
}

/**
 * An exact map (a, b) -> int (both uint32), open addressing with linear probing in typed arrays (12 bytes a slot).
 * Used with a = trajectory slot and b = the interned rest of a resume key. By default load <= 1/2 and the capacity
 * doubles (1024, 2048, ...: the order {@link entries} gives depends on it);
 * {@link PairTable.TIGHT} (load <= 0.7, grown by 1.5x, dense first key) holds a million pairs in ~4-18 MB instead
 * of ~25 MB. Dense: the pairs whose b is the first b ever set (in a run, the one judge and repeat most keys have)
 * are a plain column a -> value (an {@link IntColumn}), the others go to the table; exact all the same.
 */
export class PairTable {
  /** Load <= 0.7, capacity grown by 1.5x: for tables whose {@link entries} order is not used. */
  static readonly TIGHT = { load: 0.7, growth: 1.5, dense: true };
  private cap = 1024;
  private ka = new Uint32Array(this.cap);
  private kb = new Uint32Array(this.cap);
  private vals = new Int32Array(this.cap).fill(-1);
  private n = 0;

  /** the b of the dense column (-1 until the first set), its column and how many pairs it holds */
  private denseB = -1;
  private dense: IntColumn | null = null;
  private denseN = 0;

  /** @param shape most entries per slot of capacity before growing, the growth factor, and whether the first b is dense. */
  constructor(private readonly shape: { load: number; growth: number; dense?: boolean } = { load: 0.5, growth: 2 }) {}

  private static hash(a: number, b: number): number {
    let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    return (h ^ (h >>> 13)) >>> 0;
  }

  private index(a: number, b: number): number {
    const cap = this.cap;
    let i = PairTable.hash(a, b) % cap; // = & (cap - 1) for the default power-of-two capacities
    while (this.vals[i] !== -1 && (this.ka[i] !== a || this.kb[i] !== b)) if (++i === cap) i = 0;
    return i;
  }

  /** The value of (a, b), or -1. */
  get(a: number, b: number): number {
    if (b === this.denseB) return this.dense!.get(a);
    return this.n === 0 ? -1 : this.vals[this.index(a, b)];
  }

  /** Set (a, b) -> v (v >= 0). */
  set(a: number, b: number, v: number): void {
    if (v < 0) throw new RangeError("PairTable values are >= 0");
    if (this.shape.dense && (this.denseB === -1 || b === this.denseB)) {
      if (this.denseB === -1) {
        this.denseB = b;
        this.dense = new IntColumn();
      }
      if (this.dense!.get(a) === -1) this.denseN++;
      this.dense!.set(a, v);
      return;
    }
    if (this.n + 1 > this.shape.load * this.cap) this.rehash();
    const i = this.index(a, b);
    if (this.vals[i] === -1) {
      this.n++;
      this.ka[i] = a;
      this.kb[i] = b;
    }
    this.vals[i] = v;
  }

  get size(): number {
    return this.n + this.denseN;
  }

  /** Every (a, b, value), in table order (a dense table: its dense column first, by a). */
  *entries(): Generator<[number, number, number]> {
    for (let a = 0, seen = 0; seen < this.denseN; a++) {
      const v = this.dense!.get(a);
      if (v !== -1) {
        seen++;
        yield [a, this.denseB, v];
      }
    }
    for (let i = 0; i < this.cap; i++) if (this.vals[i] !== -1) yield [this.ka[i], this.kb[i], this.vals[i]];
  }

  private rehash(): void {
    const { ka, kb, vals, cap } = this;
    this.cap = Math.ceil(cap * this.shape.growth);
    this.ka = new Uint32Array(this.cap);
    this.kb = new Uint32Array(this.cap);
    this.vals = new Int32Array(this.cap).fill(-1);
    this.n = 0;
    for (let i = 0; i < cap; i++) if (vals[i] !== -1) this.set(ka[i], kb[i], vals[i]);
  }
}
