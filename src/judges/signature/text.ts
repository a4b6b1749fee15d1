/**
 * Text helpers of the signature judge: the DESIGN section 2 normalization with a map back to the raw
 * text, a looser alphanumeric-only form for finding injected content that a tool re-formatted (YAML
 * folding, quote doubling, escaping), and maximal common chunks between two strings.
 *
 * Everything here is linear (or, for `commonChunks` on adversarially repetitive input, capped), because tool
 * results can be tens of MB: grams are found with Rabin-Karp rolling hashes (no substring per position), long
 * texts are masked in one pass (`commonMask` + `applyMask`), and raw offsets of a normalized range are found
 * without an offset map of the whole text (`rawSpan`).
 */

import { peekText } from "./memo.js";
import { normalize, normalizeWithMap, originalSlice, originalSpan, type NormalizedText } from "../../evidence/normalize.js";
import { unitScratch, unitsToString } from "../../evidence/units.js";

export { originalSlice };

/** A normalized string with, for each of its characters, the raw span it came from (`../../evidence/normalize.ts`). */
export type MappedText = NormalizedText;

/** DESIGN section 2 normalization with the offset map (the evidence stage's own, so quotes verify alike). */
export function normalizeMapped(raw: string): MappedText {
  return normalizeWithMap(raw);
}

/** DESIGN section 2 normalization (`normalize` of `src/evidence`). */
export function norm(raw: string): string {
  return normalize(raw);
}

/**
 * A memo of {@link norm} for the texts of one trajectory (each distinct text normalized once, however many passes
 * read it), which also reads the normalized forms kept across trajectories (`./memo.ts`: tool results seen before).
 * Returns exactly what `norm` returns; holds its texts until dropped.
 */
export function normMemo(): (s: string) => string {
  const cache = new Map<string, string>();
  return (s: string): string => {
    let n = cache.get(s);
    if (n === undefined) cache.set(s, (n = peekText(s)?.norm ?? norm(s)));
    return n;
  };
}

/** Whether UTF-16 unit `c` (with its string, for non-ASCII) is a letter or digit. */
const ALNUM_RE = /[\p{L}\p{N}]/u;

/**
 * The loose form: normalized, then only letters and digits kept (every other character dropped). Used
 * to find injected text inside tool output that re-formatted it (YAML `''`, escaped `\n`, indentation);
 * the letter of a backslash escape (`\n`, `\r`, `\t`) is dropped too. Linear; ASCII is classified without a
 * regex, and the result is built from char codes (no string growing one character at a time).
 * @returns the loose text (no offset map: {@link looseMapped} has one)
 */
export function loose(raw: string): string {
  return looseOf(norm(raw), null).norm;
}

/** {@link loose} of a text already passed through {@link norm} (saves normalizing a long text twice). */
export function looseFromNorm(normalized: string): string {
  return looseOf(normalized, null).norm;
}

/**
 * {@link loose} with the offset map into the raw string.
 * @returns `{norm: looseText, map: index into the raw string}`
 */
export function looseMapped(raw: string): MappedText {
  const n = normalizeMapped(raw);
  return looseOf(n.norm, n);
}

/** Scratch bytes of {@link looseBytes}, grown as needed and reused (one thread builds one loose form at a time). */
let looseScratch = Buffer.allocUnsafe(1 << 12);

/**
 * {@link looseOf} without a map for a text whose kept characters are all below U+0100 (most tool output): written as
 * bytes and decoded once as latin1 (issue 26: the code-unit array was scanned, copied to bytes and decoded, three
 * passes more per tool result). Returns null at the first kept character above U+00FF (the caller takes
 * {@link looseOf}).
 */
function looseBytes(s: string): string | null {
  const n = s.length;
  if (looseScratch.length < n) looseScratch = Buffer.allocUnsafe(Math.max(n, looseScratch.length * 2));
  const out = looseScratch;
  let len = 0;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const escaped = prev === 0x5c && (c === 0x6e || c === 0x72 || c === 0x74); // escaped \n \r \t
    prev = c;
    if (escaped) continue;
    if (c < 0x80) {
      if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) out[len++] = c;
    } else if (ALNUM_RE.test(s[i])) {
      if (c > 0xff) return null;
      out[len++] = c;
    }
  }
  return out.toString("latin1", 0, len);
}

function looseOf(s: string, mapped: MappedText | null): MappedText {
  if (!mapped) {
    const fast = looseBytes(s);
    if (fast !== null) return { norm: fast, map: [], ends: [] };
  }
  // written into the reused scratch array (`../../evidence/units.ts`) and decoded once
  const codes = unitScratch(s.length);
  let len = 0;
  const map: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (i > 0 && s.charCodeAt(i - 1) === 0x5c && (c === 0x6e || c === 0x72 || c === 0x74)) continue; // escaped \n \r \t
    let keep: boolean;
    if (c < 0x80) keep = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
    else keep = ALNUM_RE.test(s[i]);
    if (!keep) continue;
    codes[len++] = c;
    if (mapped) {
      map.push(mapped.map[i]);
      ends.push(mapped.ends[i]);
    }
  }
  return { norm: unitsToString(codes, len), map, ends };
}

/** One maximal common chunk: `a.slice(aStart, aStart+length) === b.slice(bStart, bStart+length)`. */
export interface Chunk {
  aStart: number;
  bStart: number;
  length: number;
}

/** Multiplier of the rolling hash (an odd 32-bit constant); arithmetic is mod 2^32 with `Math.imul`. */
const HASH_BASE = 0x01000193;

/** `HASH_BASE^(m-1) mod 2^32`, to remove the unit leaving a window of `m` units. */
function topPower(m: number): number {
  let p = 1;
  for (let k = 1; k < m; k++) p = Math.imul(p, HASH_BASE);
  return p;
}

/**
 * Rolling hashes of every `m`-unit window of `s` (Rabin-Karp, mod 2^32): `h[j]` for `s.slice(j, j + m)`,
 * `j = 0 .. s.length - m`. Linear in `s.length`.
 */
function windowHashes(s: string, m: number): Int32Array {
  const n = s.length - m + 1;
  const out = new Int32Array(Math.max(0, n));
  if (n <= 0) return out;
  const top = topPower(m);
  let h = 0;
  for (let k = 0; k < m; k++) h = (Math.imul(h, HASH_BASE) + s.charCodeAt(k)) | 0;
  out[0] = h;
  for (let j = 1; j < n; j++) {
    h = (h - Math.imul(s.charCodeAt(j - 1), top)) | 0;
    h = (Math.imul(h, HASH_BASE) + s.charCodeAt(j + m - 1)) | 0;
    out[j] = h;
  }
  return out;
}

/**
 * The rolling hash of the `m`-unit window `s.slice(p, p + m)`, computed directly (equal to what the rolling scans and
 * {@link gramIndex} give that window). The caller keeps `p + m <= s.length`.
 */
export function windowHash(s: string, p: number, m: number): number {
  let h = 0;
  for (let k = p, e = p + m; k < e; k++) h = (Math.imul(h, HASH_BASE) + s.charCodeAt(k)) | 0;
  return h;
}

/** Whether `a.slice(i, i + m) === b.slice(j, j + m)` (both in range), compared in place. */
export function sameWindow(a: string, i: number, b: string, j: number, m: number): boolean {
  for (let k = 0; k < m; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
}

/** Where each `m`-gram hash of `a` starts in `a` (first occurrence kept in `first`, the others chained in `next`). */
export interface GramIndex {
  /** The text the index is of, and its gram length. */
  a: string;
  m: number;
  first: Map<number, number>;
  next: Int32Array;
  /** `single[i]` = 1 when the gram at `i` is the only position of `a` with its hash (its chain is `[i]`). */
  single: Uint8Array;
  filter: HashFilter;
  /** The longest chain (most positions of `a` sharing one hash), >= 1 when `a` has a gram. */
  maxChain: number;
}

/**
 * The `m`-gram index of `a` for {@link commonChunks}: build it once for a text that is searched many times (an
 * injected text, `./tables.ts`). Linear in `a.length`.
 */
export function gramIndex(a: string, m: number): GramIndex {
  const ha = windowHashes(a, m);
  const first = new Map<number, number>();
  const next = new Int32Array(ha.length).fill(-1);
  // Chain from the end so each chain lists positions in increasing order.
  for (let i = ha.length - 1; i >= 0; i--) {
    const f = first.get(ha[i]);
    if (f !== undefined) next[i] = f;
    first.set(ha[i], i);
  }
  const single = new Uint8Array(ha.length);
  let maxChain = 0;
  for (const i of first.values()) {
    if (next[i] === -1) single[i] = 1;
    let n = 0;
    for (let x = i; x !== -1; x = next[x]) n++;
    if (n > maxChain) maxChain = n;
  }
  return { a, m, first, next, single, filter: hashFilter(ha), maxChain };
}

/** A bit table over the low bits of a set of hashes: a clear bit proves a hash is absent. */
export interface HashFilter {
  words: Uint32Array;
  /** `words.length - 1` (a power of two minus one). */
  mask: number;
}

/**
 * A bit table over a set of hashes, sized to them: 16 bits per hash rounded up to a power of two, between 2^10 and
 * 2^20 bits (128 B to 128 KiB), so about 1 window in 16 of a long text that shares nothing passes it and reaches the
 * `Map` lookup. (It was a fixed 128 KiB, zeroed for every call: issue 26's profile found 14% of the CPU there.)
 */
function hashFilter(hashes: Int32Array): HashFilter {
  let bits = 1 << 10;
  while (bits < hashes.length * 16 && bits < 1 << 20) bits <<= 1;
  const words = new Uint32Array(bits >>> 5);
  const mask = words.length - 1;
  for (let i = 0; i < hashes.length; i++) words[(hashes[i] >>> 5) & mask] |= 1 << (hashes[i] & 31);
  return { words, mask };
}

function mayHave(f: HashFilter, h: number): boolean {
  return ((f.words[(h >>> 5) & f.mask] >>> (h & 31)) & 1) === 1;
}

/** One position per distinct `m`-gram of `a`, by hash (grams whose hashes collide share a short list). */
export interface DistinctGrams {
  /** The text the grams are of, and their length. */
  a: string;
  m: number;
  byHash: Map<number, number[]>;
  filter: HashFilter;
}

/**
 * The distinct `m`-grams of `a` for {@link shareRun} and {@link commonMask}: build them once for a text that is
 * searched many times (an injected text, `./tables.ts`). Linear in `a.length` (hash hits confirmed by comparison).
 */
export function distinctGrams(a: string, m: number): DistinctGrams {
  const ha = windowHashes(a, m);
  const byHash = new Map<number, number[]>();
  for (let i = 0; i < ha.length; i++) {
    const list = byHash.get(ha[i]);
    if (!list) byHash.set(ha[i], [i]);
    else if (!list.some((p) => sameWindow(a, p, a, i, m))) list.push(i);
  }
  return { a, m, byHash, filter: hashFilter(ha) };
}

/** `pre` when it was built for (`a`, `m`), else a new table (a table for another text is never used). */
function gramsFor(a: string, m: number, pre: DistinctGrams | undefined): DistinctGrams {
  return pre && pre.m === m && pre.a === a ? pre : distinctGrams(a, m);
}

/**
 * Call `visit(j, h)` with the rolling hash `h` of every `m`-unit window `b.slice(j, j + m)` whose hash passes
 * `filter` (a set bit; a clear bit proves the gram absent), in order of `j` (no array of hashes is kept: `b` may be
 * a very long tool result). Stops early when `visit` returns true. The filter is tested inline: most windows of a
 * long tool result fail it, and a call per window was most of the cost of the mask and the exposure test (issue 26).
 */
function rollFiltered(b: string, m: number, filter: HashFilter, visit: (j: number, h: number) => boolean | void): void {
  const n = b.length - m + 1;
  if (n <= 0) return;
  const top = topPower(m);
  const words = filter.words;
  const fm = filter.mask;
  let h = 0;
  for (let k = 0; k < m; k++) h = (Math.imul(h, HASH_BASE) + b.charCodeAt(k)) | 0;
  for (let j = 0; j < n; j++) {
    if (j > 0) {
      h = (h - Math.imul(b.charCodeAt(j - 1), top)) | 0;
      h = (Math.imul(h, HASH_BASE) + b.charCodeAt(j + m - 1)) | 0;
    }
    if (((words[(h >>> 5) & fm] >>> (h & 31)) & 1) === 0) continue;
    if (visit(j, h)) return;
  }
}

/**
 * Where in `a` the `m`-gram of `b` at `j` (hash `h`) occurs as one of `grams`: the position of its one listed
 * occurrence, or -1 when it is not a gram of `a`. A loop, not `Array.some` (no closure per window: it is called for
 * every window of a long tool result that passes the filter).
 */
function gramAt(grams: DistinctGrams, h: number, a: string, b: string, j: number, m: number): number {
  if (!mayHave(grams.filter, h)) return -1;
  const list = grams.byHash.get(h);
  if (list === undefined) return -1;
  for (let k = 0; k < list.length; k++) if (sameWindow(a, list[k], b, j, m)) return list[k];
  return -1;
}

/** Whether the `m`-gram of `b` at `j` (hash `h`) is one of `grams` (of `a`). */
function hasGram(grams: DistinctGrams, h: number, a: string, b: string, j: number, m: number): boolean {
  return gramAt(grams, h, a, b, j, m) !== -1;
}

/**
 * Whether `a` and `b` share a substring of at least `m` units (an `m`-gram of `a` occurs in `b`). Linear in
 * `|a| + |b|` (rolling hashes, hits confirmed character by character).
 * @param pre the grams of `a` built beforehand ({@link distinctGrams}`(a, m)`; ignored unless built for `a` and `m`)
 */
export function shareRun(a: string, b: string, m: number, pre?: DistinctGrams): boolean {
  if (m < 1 || a.length < m || b.length < m) return false;
  const grams = gramsFor(a, m, pre);
  let found = false;
  rollFiltered(b, m, grams.filter, (j, h) => (found = hasGram(grams, h, a, b, j, m)));
  return found;
}

/**
 * The positions of `b` covered by a common substring of at least `m` units with `a`: exactly the union of
 * the `b`-side spans of {@link commonChunks}`(a, b, m)` (every such chunk is covered by its `m`-grams, and every
 * common `m`-gram lies in one), computed in time linear in `|a| + |b|` whatever the chunks' number.
 * @param pre the grams of `a` built beforehand ({@link distinctGrams}`(a, m)`; ignored unless built for `a` and `m`)
 * @returns a mask over `b`: 1 where covered.
 */
export function commonMask(a: string, b: string, m: number, pre?: DistinctGrams): Uint8Array {
  const mask = new Uint8Array(b.length);
  if (m < 1 || a.length < m || b.length < m) return mask;
  const grams = gramsFor(a, m, pre);
  let coveredTo = 0; // mask[.. coveredTo) already set by the last window
  rollFiltered(b, m, grams.filter, (j, h) => {
    if (!hasGram(grams, h, a, b, j, m)) return;
    mask.fill(1, Math.max(j, coveredTo), j + m);
    coveredTo = j + m;
  });
  return mask;
}

/**
 * `applyMask(b, commonMask(a, b, m, pre))`, built without a mask: returns `b` itself when nothing is in common (most
 * tool results hold no injected text), else `b` with the covered spans replaced by U+0000, joined from slices of `b`.
 * A common gram found at `j` (equal to `a`'s gram at `i`) is extended while `a` and `b` agree: every window inside the
 * extension is a substring of `a`, so it is a common gram and adds nothing to the cover (issue 26: the injected text
 * inside a tool result was ~370 hash look-ups and window comparisons per result, one per window, 2.9 M on the 11,384
 * AgentDojo runs).
 */
export function maskCommon(a: string, b: string, m: number, pre?: DistinctGrams): string {
  if (m < 1 || a.length < m || b.length < m) return b;
  const grams = gramsFor(a, m, pre);
  // covered spans [starts[k], ends[k]), increasing and disjoint (adjacent spans merged)
  const starts: number[] = [];
  const ends: number[] = [];
  let coveredTo = 0; // b[.. coveredTo) holds no window start left to look at: every window ending by then is known
  rollFiltered(b, m, grams.filter, (j, h) => {
    if (j + m <= coveredTo) return; // inside a known common stretch: a gram of `a`, already covered
    const i = gramAt(grams, h, a, b, j, m);
    if (i === -1) return;
    let len = m;
    while (i + len < a.length && j + len < b.length && a.charCodeAt(i + len) === b.charCodeAt(j + len)) len++;
    const k = ends.length - 1;
    if (k >= 0 && ends[k] >= j) ends[k] = j + len;
    else {
      starts.push(j);
      ends.push(j + len);
    }
    coveredTo = j + len;
  });
  if (starts.length === 0) return b;
  let out = "";
  let from = 0;
  for (let k = 0; k < starts.length; k++) {
    out += b.slice(from, starts[k]) + "\u0000".repeat(ends[k] - starts[k]);
    from = ends[k];
  }
  return out + b.slice(from);
}

/**
 * `b` with every position set in `mask` replaced by U+0000, built in one pass.
 */
export function applyMask(b: string, mask: Uint8Array): string {
  let any = false;
  for (let k = 0; k < mask.length && !any; k++) any = mask[k] === 1;
  if (!any) return b;
  const codes = unitScratch(b.length);
  for (let k = 0; k < b.length; k++) codes[k] = mask[k] ? 0 : b.charCodeAt(k);
  return unitsToString(codes, b.length);
}

/** Default cap on the work of one {@link commonChunks} call, as a multiple of `|a| + |b|` (see there). */
export const CHUNK_WORK_FACTOR = 64;

/**
 * Maximal common chunks of at least `minLen` characters between `a` and `b` (seeded by `minLen`-grams of
 * `a`, found in `b` with rolling hashes, extended to the right; only left-maximal seeds are used, so each
 * diagonal run is reported once).
 * Cost is about O(|a| + |b| + total matched length). Highly repetitive inputs (a gram occurring many times in
 * both strings, e.g. `"abab..."` against `"abab..."`) can have a quadratic number of seed pairs and of matched
 * characters: the work (seed pairs looked at + characters compared) is capped at
 * `CHUNK_WORK_FACTOR * (|a| + |b|) + 1e6`; past it the search stops and the chunks found so far are returned,
 * so on such inputs the result may miss chunks (never reports a false one).
 * @param minLen minimum chunk length, >= 1
 * @param pre the index of `a` built beforehand ({@link gramIndex}`(a, minLen)`; ignored unless built for them)
 * @returns chunks sorted by decreasing length
 */
export function commonChunks(a: string, b: string, minLen: number, pre?: GramIndex): Chunk[] {
  const out: Chunk[] = [];
  if (minLen < 1 || a.length < minLen || b.length < minLen) return out;
  const idx = pre && pre.m === minLen && pre.a === a ? pre : gramIndex(a, minLen);
  let work = CHUNK_WORK_FACTOR * (a.length + b.length) + 1e6;
  // The chunk reaching furthest right so far, [runStart, runEnd) of `b` on the diagonal `a` = `b` + runOff. A window
  // strictly inside it equals `a`'s gram at j + runOff; when that gram's hash is its alone (`single`), its chain is that
  // one position, which is not left-maximal (the character before it is on the diagonal too): the loop below would
  // look at it once and go on, so it is skipped at the same cost to `work` (issue 26: the injected text inside a tool
  // result was one hash look-up per window for the exposure quote).
  let runStart = 0;
  let runEnd = 0;
  let runOff = 0;
  rollFiltered(b, minLen, idx.filter, (j, h) => {
    if (j > runStart && j + minLen <= runEnd && idx.single[j + runOff] === 1) return --work < 0;
    const f = idx.first.get(h);
    if (f === undefined) return false;
    const prevB = j > 0 ? b.charCodeAt(j - 1) : -1;
    for (let i = f; i !== -1; i = idx.next[i]) {
      if (--work < 0) return true; // stop: see the docstring
      if (i > 0 && j > 0 && a.charCodeAt(i - 1) === prevB) continue; // not left-maximal
      if (!sameWindow(a, i, b, j, minLen)) continue; // hash collision
      let len = minLen;
      while (i + len < a.length && j + len < b.length && a.charCodeAt(i + len) === b.charCodeAt(j + len)) len++;
      work -= len;
      out.push({ aStart: i, bStart: j, length: len });
      if (j + len > runEnd) {
        runStart = j;
        runEnd = j + len;
        runOff = i - j;
      }
    }
    return false;
  });
  out.sort((x, y) => y.length - x.length);
  return out;
}

/**
 * The raw span behind the normalized range `[a, b)` of `norm(raw)`, without an offset map of the whole text
 * (the evidence stage's `originalSpan`: blocks before the range are only normalized).
 * @returns raw offsets `{start, end}`, or `null` when the range is empty or out of bounds.
 */
export function rawSpan(raw: string, a: number, b: number): { start: number; end: number } | null {
  return originalSpan(raw, a, b);
}

/** Escape a string for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether `needle` occurs in `hay` with no letter or digit right before or after it (both already
 * normalized). Used for short values (`13`, `fred`) that would otherwise match inside other tokens. With `domainEnd`
 * (an email), a dot followed by a letter or digit right after it is no edge either: the domain goes on.
 */
export function containsToken(hay: string, needle: string, domainEnd = false): boolean {
  return containsTokenAt(hay, needle, true, domainEnd, 0) >= 0;
}

/**
 * Where {@link containsToken} finds `needle` in `hay` from offset `from` on (with `token` false: `hay.indexOf(needle,
 * from)`, no edges asked for): the offset of the first occurrence with its edges, or -1.
 */
export function containsTokenAt(hay: string, needle: string, token: boolean, domainEnd: boolean, from: number): number {
  if (!needle) return -1;
  if (!token) return hay.indexOf(needle, from);
  // the needle's edges are classified once (a needle edge that is no letter or digit needs no edge in `hay`)
  const wordFirst = isWordUnit(needle, 0);
  const wordLast = isWordUnit(needle, needle.length - 1);
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return -1;
    const end = at + needle.length;
    const edgeBefore = !wordFirst || at === 0 || !isWordUnit(hay, at - 1);
    // an email's domain goes on past a dot: `a@evil.com` is not in `a@evil.com.au` (break49b)
    const edgeAfter = (!wordLast || end >= hay.length || !isWordUnit(hay, end)) && !(domainEnd && hay.charCodeAt(end) === 0x2e && end + 1 < hay.length && isWordUnit(hay, end + 1));
    if (edgeBefore && edgeAfter) return at;
    from = at + 1;
  }
}

/** Whether the UTF-16 unit at `i` of `s` (alone) is a letter or digit: ASCII without a regex, else {@link ALNUM_RE}. */
function isWordUnit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
  return ALNUM_RE.test(s[i]);
}
