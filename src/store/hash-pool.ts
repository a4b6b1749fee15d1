/**
 * Content hashes held once per distinct value for a whole run store (issue 26): the store's latest hash per
 * trajectory, the ledger's hash per verdict and the one its index recorded at open are nearly always the same
 * value, so each is a 4-byte code into this pool instead of its own 32-byte copy (three copies per trajectory
 * before). A `content_sha256` (64 lowercase hex digits) is kept as 32 bytes; any other string (an old or
 * hand-edited journal) as it is. Exact: a code stands for one value only, found by comparing all 32 bytes (the
 * table's hash only picks where to look), so two hashes are never confused and equal codes mean equal strings.
 */
import { grown } from "./utf8-column.js";

const HEX64 = /^[0-9a-f]{64}$/;
const LOAD = 0.7;

/** Distinct content hashes -> codes >= 0 (module docstring); -1 is "none" for the columns that hold codes. */
export class HashPool {
  private bytes = new Uint8Array(32 * 1024);
  private n = 0;
  /** open addressing over the 32-byte entries: entry number or -1 */
  private table = new Int32Array(2048).fill(-1);
  /** strings that are not 64 lowercase hex digits: code = -2 - their place here */
  private readonly odd: string[] = [];
  private readonly oddCodes = new Map<string, number>();
  private readonly scratch = Buffer.alloc(32);
  /**
   * The last value {@link code} or {@link find} found or added and its code (-1: none yet): a row's hash is coded
   * for the store's column and then for the ledger's in turn; the repeat costs a string comparison. Exact: a code's
   * value never changes and none is removed.
   */
  private lastSha = "";
  private lastCode = -1;

  /** The table hash of the 32 bytes at `b[off..]` (their first 8 bytes mixed: a sha256 is uniform). */
  private static hash(b: Uint8Array, off: number): number {
    let h = (b[off] | (b[off + 1] << 8) | (b[off + 2] << 16) | (b[off + 3] << 24)) ^ Math.imul(b[off + 4] | (b[off + 5] << 8) | (b[off + 6] << 16) | (b[off + 7] << 24), 0x9e3779b1);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    return h >>> 0;
  }

  /** Where the 32 bytes of {@link scratch} are (their entry's position) or would go (an empty position). */
  private position(): number {
    const t = this.table;
    const cap = t.length;
    const s = this.scratch;
    let i = HashPool.hash(s, 0) % cap;
    for (;;) {
      const e = t[i];
      if (e === -1) return i;
      const off = 32 * e;
      let k = 0;
      while (k < 32 && this.bytes[off + k] === s[k]) k++;
      if (k === 32) return i;
      if (++i === cap) i = 0;
    }
  }

  /** The code of `sha`, adding it when new. */
  code(sha: string): number {
    if (sha === this.lastSha && this.lastCode !== -1) return this.lastCode;
    return this.remember(sha, this.codeOf(sha));
  }

  private remember(sha: string, c: number): number {
    this.lastSha = sha;
    this.lastCode = c;
    return c;
  }

  private codeOf(sha: string): number {
    if (!HEX64.test(sha)) {
      let c = this.oddCodes.get(sha);
      if (c === undefined) {
        c = -2 - this.odd.length;
        this.odd.push(sha);
        this.oddCodes.set(sha, c);
      }
      return c;
    }
    this.scratch.write(sha, 0, "hex");
    let i = this.position();
    if (this.table[i] !== -1) return this.table[i];
    if (this.n + 1 > LOAD * this.table.length) {
      this.rehash();
      i = this.position();
    }
    const e = this.n++;
    this.bytes = grown(this.bytes, 32 * this.n, (m) => new Uint8Array(m));
    this.bytes.set(this.scratch, 32 * e);
    this.table[i] = e;
    return e;
  }

  /** The code of `sha`, or -1 when it was never added. */
  find(sha: string): number {
    if (sha === this.lastSha && this.lastCode !== -1) return this.lastCode;
    let c: number;
    if (!HEX64.test(sha)) c = this.oddCodes.get(sha) ?? -1;
    else {
      this.scratch.write(sha, 0, "hex");
      c = this.table[this.position()];
    }
    return c === -1 ? -1 : this.remember(sha, c);
  }

  /** The string of a code (@throws RangeError for -1 or a code never given). */
  value(c: number): string {
    if (c >= 0 && c < this.n) return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + 32 * c, 32).toString("hex");
    const v = c <= -2 ? this.odd[-2 - c] : undefined;
    if (v === undefined) throw new RangeError(`no content hash ${c}`);
    return v;
  }

  private rehash(): void {
    const cap = Math.ceil(this.table.length * 1.5);
    const t = new Int32Array(cap).fill(-1);
    for (let e = 0; e < this.n; e++) {
      let i = HashPool.hash(this.bytes, 32 * e) % cap;
      while (t[i] !== -1) if (++i === cap) i = 0;
      t[i] = e;
    }
    this.table = t;
  }
}
