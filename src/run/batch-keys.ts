/**
 * A set of string keys held as 128-bit digests in one typed array (open addressing, linear probing, backward-shift
 * deletion): the Batch API path's "in a sent chunk" keys (`./batch.ts`), a million of them in ~32 MB instead of
 * ~210 MB of strings in a `Set` (a verdict key is ~170 characters).
 *
 * Exactness: two different keys are confused only if the first 128 bits of their SHA-256 agree; for a million keys
 * the chance is about 1.5e-27 (birthday bound n^2 / 2^129), the same trust the run store puts in `content_sha256`.
 */
import { createHash } from "node:crypto";

const WORDS = 4; // 4 x 32 bits per slot; a slot of four zeros is empty (a digest of all zeros is stored as 1)

/** A set of keys by their SHA-256 prefix (module docstring). */
export class DigestSet {
  private table: Uint32Array;
  private mask: number;
  private count = 0;

  /** @param capacity slots to start with (rounded up to a power of two, at least 1,024); it grows at 50% load. */
  constructor(capacity = 1024) {
    let n = 1024;
    while (n < capacity) n *= 2;
    this.table = new Uint32Array(n * WORDS);
    this.mask = n - 1;
  }

  /** Keys in the set. */
  get size(): number {
    return this.count;
  }

  private static digest(key: string): Uint32Array {
    const h = createHash("sha256").update(key).digest();
    const d = new Uint32Array([h.readUInt32LE(0), h.readUInt32LE(4), h.readUInt32LE(8), h.readUInt32LE(12)]);
    if ((d[0] | d[1] | d[2] | d[3]) === 0) d[0] = 1;
    return d;
  }

  /** The slot holding `d`, or the empty slot where it would go (as a negative number - 1). */
  private find(d: Uint32Array): number {
    const t = this.table;
    for (let i = d[0] & this.mask; ; i = (i + 1) & this.mask) {
      const o = i * WORDS;
      if ((t[o] | t[o + 1] | t[o + 2] | t[o + 3]) === 0) return -i - 1;
      if (t[o] === d[0] && t[o + 1] === d[1] && t[o + 2] === d[2] && t[o + 3] === d[3]) return i;
    }
  }

  has(key: string): boolean {
    return this.find(DigestSet.digest(key)) >= 0;
  }

  add(key: string): void {
    const d = DigestSet.digest(key);
    const at = this.find(d);
    if (at >= 0) return;
    this.table.set(d, (-at - 1) * WORDS);
    if (++this.count * 2 > this.mask + 1) this.grow();
  }

  delete(key: string): boolean {
    let i = this.find(DigestSet.digest(key));
    if (i < 0) return false;
    const t = this.table;
    // backward-shift: move later entries of the same run into the hole so no probe sequence breaks
    for (let j = (i + 1) & this.mask; ; j = (j + 1) & this.mask) {
      const o = j * WORDS;
      if ((t[o] | t[o + 1] | t[o + 2] | t[o + 3]) === 0) break;
      const home = t[o] & this.mask;
      // the entry at j may move to i when its home is not cyclically within (i, j]
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!between) {
        t.copyWithin(i * WORDS, o, o + WORDS);
        i = j;
      }
    }
    t.fill(0, i * WORDS, i * WORDS + WORDS);
    this.count--;
    return true;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.mask = this.table.length / WORDS - 1;
    for (let o = 0; o < old.length; o += WORDS) {
      if ((old[o] | old[o + 1] | old[o + 2] | old[o + 3]) === 0) continue;
      let i = old[o] & this.mask;
      while (this.table[i * WORDS] | this.table[i * WORDS + 1] | this.table[i * WORDS + 2] | this.table[i * WORDS + 3]) i = (i + 1) & this.mask;
      this.table.set(old.subarray(o, o + WORDS), i * WORDS);
    }
  }
}
