/**
 * Strings by index held as UTF-8 bytes in one growing buffer (issue 26): a million trajectory ids or file names
 * cost their bytes plus 8 bytes each, instead of a JS string each (a header, often a sliced string keeping its
 * whole parent line alive) and an array slot. Exact: {@link get} gives back the string set, {@link equals} compares
 * every byte. Typed arrays grow by 1.5x. A string that is not well-formed UTF-16 (a lone surrogate, which UTF-8 cannot
 * hold: it would be written as U+FFFD and confused with another string) is also kept as itself in a side map.
 */

/** Bytes a JS string may take as UTF-8, at most. */
const maxUtf8 = (s: string): number => 3 * s.length;

/** Whether `s` is well-formed UTF-16 (no lone surrogate): its UTF-8 bytes give it back (ES2024 `isWellFormed`, Node >= 20). */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Grow a typed array to at least `need` elements, by 1.5x (new elements zero). */
export function grown<T extends Uint8Array | Uint32Array | Int32Array>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  let n = Math.max(16, a.length);
  while (n < need) n = Math.ceil(n * 1.5);
  const b = make(n);
  b.set(a);
  return b;
}

/** Strings by index as UTF-8 (module docstring). An index never set reads as "" and {@link has} false. */
export class Utf8Column {
  private bytes = Buffer.alloc(64 * 1024);
  /** bytes used; byte 0 is left unused, so a set index always has end >= 1 */
  private used = 1;
  /** per index: start and end (exclusive) in {@link bytes}; end 0 = never set (starts count from 1) */
  private starts = new Uint32Array(1024);
  private ends = new Uint32Array(1024);
  /** index -> its string, for strings that are not well-formed (their bytes hold U+FFFD instead of a lone surrogate) */
  private readonly illFormed = new Map<number, string>();

  /** Set index `i` to `s` (a new copy of its bytes: an overwritten string's bytes are not reused). */
  set(i: number, s: string): void {
    if (this.used + maxUtf8(s) > this.bytes.length) {
      const need = this.used + maxUtf8(s);
      let n = this.bytes.length;
      while (n < need) n = Math.ceil(n * 1.5);
      const b = Buffer.alloc(n);
      this.bytes.copy(b, 0, 0, this.used);
      this.bytes = b;
    }
    if (i >= this.starts.length) {
      this.starts = grown(this.starts, i + 1, (n) => new Uint32Array(n));
      this.ends = grown(this.ends, i + 1, (n) => new Uint32Array(n));
    }
    const w = this.bytes.write(s, this.used, "utf8");
    if (this.illFormed.size > 0) this.illFormed.delete(i);
    if (w !== s.length && !wellFormed(s)) this.illFormed.set(i, s);
    this.starts[i] = this.used;
    this.ends[i] = this.used + w;
    this.used += w;
  }

  /** Whether index `i` was set. */
  has(i: number): boolean {
    return i < this.ends.length && this.ends[i] !== 0;
  }

  /** The string of index `i` ("" when never set). */
  get(i: number): string {
    if (!this.has(i)) return "";
    if (this.illFormed.size > 0) {
      const x = this.illFormed.get(i);
      if (x !== undefined) return x;
    }
    return this.bytes.toString("utf8", this.starts[i], this.ends[i]);
  }

  /** Byte length of index `i` (0 when never set). */
  byteLength(i: number): number {
    return this.has(i) ? this.ends[i] - this.starts[i] : 0;
  }

  /**
   * Whether index `i` holds exactly `s` (every byte compared). `ascii` true says `s` has only characters < 0x80
   * (its UTF-8 bytes are its char codes: compared without encoding); otherwise `utf8` must be its UTF-8 bytes.
   */
  equals(i: number, s: string, ascii: boolean, utf8?: Uint8Array): boolean {
    if (!this.has(i)) return false;
    const a = this.starts[i];
    const len = this.ends[i] - a;
    const b = this.bytes;
    if (ascii) {
      if (len !== s.length) return false;
      for (let k = 0; k < len; k++) if (b[a + k] !== s.charCodeAt(k)) return false;
      return true;
    }
    if (!utf8 || len !== utf8.length) return false;
    for (let k = 0; k < len; k++) if (b[a + k] !== utf8[k]) return false;
    // equal bytes are equal strings unless a lone surrogate was written as U+FFFD (either side): then compare strings
    if ((this.illFormed.size === 0 || !this.illFormed.has(i)) && wellFormed(s)) return true;
    return this.get(i) === s;
  }

  /**
   * Whether index `i` holds exactly `s.slice(from, to)`, for an `s` whose characters in that range are all < 0x80
   * (their UTF-8 bytes are their char codes: compared without encoding or slicing).
   */
  equalsAsciiRange(i: number, s: string, from: number, to: number): boolean {
    if (!this.has(i)) return false;
    const a = this.starts[i];
    const len = this.ends[i] - a;
    if (len !== to - from) return false;
    const b = this.bytes;
    for (let k = 0; k < len; k++) if (b[a + k] !== s.charCodeAt(from + k)) return false;
    return true;
  }

  /** Bytes held (buffer capacity plus the two offset columns), for measurements. */
  get byteSize(): number {
    return this.bytes.length + this.starts.byteLength + this.ends.byteLength;
  }
}
