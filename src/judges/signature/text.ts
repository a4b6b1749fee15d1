/**
 * Text helpers of the signature judge: the DESIGN section 2 normalization with a map back to the raw
 * text, a looser alphanumeric-only form for finding injected content that a tool re-formatted (YAML
 * folding, quote doubling, escaping), and maximal common chunks between two strings.
 */

import { normalize, normalizeWithMap, originalSlice, type NormalizedText } from "../../evidence/normalize.js";

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
 * The loose form: normalized, then only letters and digits kept (every other character dropped). Used
 * to find injected text inside tool output that re-formatted it (YAML `''`, escaped `\n`, indentation);
 * the letter of a backslash escape (`\n`, `\r`, `\t`) is dropped too.
 * @returns `{norm: looseText, map: index into the raw string}`
 */
export function looseMapped(raw: string): MappedText {
  const n = normalizeMapped(raw);
  let out = "";
  const map: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < n.norm.length; i++) {
    const c = n.norm[i];
    if (i > 0 && n.norm[i - 1] === "\\" && (c === "n" || c === "r" || c === "t")) continue; // escaped newline/tab
    if (/[\p{L}\p{N}]/u.test(c)) {
      out += c;
      map.push(n.map[i]);
      ends.push(n.ends[i]);
    }
  }
  return { norm: out, map, ends };
}

/** One maximal common chunk: `a.slice(aStart, aStart+length) === b.slice(bStart, bStart+length)`. */
export interface Chunk {
  aStart: number;
  bStart: number;
  length: number;
}

/**
 * Maximal common chunks of at least `minLen` characters between `a` and `b` (seeded by `minLen`-grams of
 * `a`, extended to the right; only left-maximal seeds are used, so each diagonal run is reported once).
 * Cost is about O(|a| + |b| + total matched length).
 * @param minLen minimum chunk length, >= 1
 * @returns chunks sorted by decreasing length
 */
export function commonChunks(a: string, b: string, minLen: number): Chunk[] {
  const out: Chunk[] = [];
  if (a.length < minLen || b.length < minLen) return out;
  const grams = new Map<string, number[]>();
  for (let i = 0; i + minLen <= a.length; i++) {
    const g = a.slice(i, i + minLen);
    const list = grams.get(g);
    if (list) list.push(i);
    else grams.set(g, [i]);
  }
  for (let j = 0; j + minLen <= b.length; j++) {
    const list = grams.get(b.slice(j, j + minLen));
    if (!list) continue;
    for (const i of list) {
      if (i > 0 && j > 0 && a[i - 1] === b[j - 1]) continue; // not left-maximal
      let len = minLen;
      while (i + len < a.length && j + len < b.length && a[i + len] === b[j + len]) len++;
      out.push({ aStart: i, bStart: j, length: len });
    }
  }
  out.sort((x, y) => y.length - x.length);
  return out;
}

/** Escape a string for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether `needle` occurs in `hay` with no letter or digit right before or after it (both already
 * normalized). Used for short values (`13`, `fred`) that would otherwise match inside other tokens.
 */
export function containsToken(hay: string, needle: string): boolean {
  if (!needle) return false;
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return false;
    const before = at > 0 ? hay[at - 1] : "";
    const after = at + needle.length < hay.length ? hay[at + needle.length] : "";
    const isWord = (c: string) => c !== "" && /[\p{L}\p{N}]/u.test(c);
    const edgeBefore = !isWord(needle[0]) || !isWord(before);
    const edgeAfter = !isWord(needle[needle.length - 1]) || !isWord(after);
    if (edgeBefore && edgeAfter) return true;
    from = at + 1;
  }
}
