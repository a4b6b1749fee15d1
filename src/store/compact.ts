/**
 * Fixed-width, exact structures for what a run holds per trajectory and per verdict (issue 26: memory that does not
 * grow by kilobytes per trajectory). Nothing here is a lossy fingerprint: a trajectory id maps to a slot number
 * exactly (`./id-slots.ts`: its bytes are the one copy of the id the store keeps), repeated strings (judge ids,
 * prompt and configuration hashes, statuses, models) are interned to small integers, and a resume key is the exact
 * pair (slot, interned rest of the key) in a typed-array open-addressing table. So a lookup never confuses two keys,
 * and no collision can skip work.
 */
import { HashPool } from "./hash-pool.js";

export { IdSlots } from "./id-slots.js";
export { HashPool } from "./hash-pool.js";

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
 * doubles (1024, 2048, ...: the order {@link entries} gives depends on it, and the resume keys' loose table keeps it);
 * {@link PairTable.TIGHT} (load <= 0.7, grown by 1.5x) holds a million pairs in ~18 MB instead of ~25 MB.
 */
export class PairTable {
  /** Load <= 0.7, capacity grown by 1.5x: for tables whose {@link entries} order is not used. */
  static readonly TIGHT = { load: 0.7, growth: 1.5 };
  private cap = 1024;
  private ka = new Uint32Array(this.cap);
  private kb = new Uint32Array(this.cap);
  private vals = new Int32Array(this.cap).fill(-1);
  private n = 0;

  /** @param shape most entries per slot of capacity before growing, and the growth factor. */
  constructor(private readonly shape: { load: number; growth: number } = { load: 0.5, growth: 2 }) {}

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
    return this.vals[this.index(a, b)];
  }

  /** Set (a, b) -> v (v >= 0). */
  set(a: number, b: number, v: number): void {
    if (v < 0) throw new RangeError("PairTable values are >= 0");
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
    return this.n;
  }

  /** Every (a, b, value), in table order. */
  *entries(): Generator<[number, number, number]> {
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
