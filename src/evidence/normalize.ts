/**
 * Text normalization for evidence matching (docs/DESIGN.md section 2), applied to both the quote and the
 * trajectory text:
 *
 * 1. drop zero-width and other invisible characters ({@link DROPPED}: Unicode's Default_Ignorable_Code_Point set —
 *    U+200B-U+200D, U+2060, BOM U+FEFF, soft hyphen U+00AD, bidi controls, Hangul fillers, tag characters,
 *    variation selectors U+FE0E/U+FE0F, ... — plus U+FFF9-FFFB and U+2800) (done first, so
 *    that a combining mark behind a dropped character composes as it will on the next pass: this keeps
 *    `normalize` idempotent);
 * 2. fold typographic quotes, primes and dashes to ASCII ({@link FOLD}: `‘ ’ ‚ ‛ ′ ‵ ʼ` -> `'`,
 *    `“ ” „ ‟ ″ ‶` -> `"`, `‐ ‑ ‒ – — ― − ﹘ ﹣ －` -> `-`), before and again after NFKC (so `″` is one `"`,
 *    not NFKC's `′′`, and characters NFKC produces are folded too);
 * 3. Unicode NFKC (`String.prototype.normalize("NFKC")`), applied per segment: a segment is a base character
 *    with the combining characters that follow it (so offsets can be mapped back); this equals whole-string
 *    NFKC (property-tested against it);
 * 4. collapse every run of whitespace (JS `\s`, which includes NBSP U+00A0, U+2000-U+200A, U+3000, line and
 *    paragraph separators, plus NEL U+0085) to one ASCII space, and trim both ends;
 * 5. case-fold with `toLowerCase()` applied per segment (simple lowercase mapping, no locale, no final-sigma
 *    context across segments: `Σ` is always `σ`; `ß` stays `ß`, it is not folded to `ss`). Case-folding and
 *    NFKC are applied to a segment together until it no longer changes (at most 4 rounds), because lowercasing
 *    can produce non-NFKC text (`İ` -> `i` + U+0307 must be reordered before a later mark) and NFKC can produce
 *    uppercase (`ᴬ` -> `A`); this keeps `normalize` idempotent. The combining dot above that lowercasing leaves
 *    after `i` (`İ` U+0130 -> `i` + U+0307) is dropped, so `İLETİN` and a lowercased `iletin` match
 *    (test/data/cases/D11).
 *
 * `…` becomes `...` under NFKC; it is a literal, never a wildcard.
 */

import { unitScratch, unitsToString } from "./units.js";

/** `i` followed by a combining dot above (what `toLowerCase` makes of `İ` U+0130). */
const DOTTED_I = /i\u0307/g;

/** Characters folded to ASCII before and after NFKC. */
export const FOLD: ReadonlyMap<number, string> = new Map<number, string>([
  [0x2018, "'"], [0x2019, "'"], [0x201a, "'"], [0x201b, "'"], [0x2032, "'"], [0x2035, "'"], [0x02bc, "'"],
  [0x201c, '"'], [0x201d, '"'], [0x201e, '"'], [0x201f, '"'], [0x2033, '"'], [0x2036, '"'],
  [0x2010, "-"], [0x2011, "-"], [0x2012, "-"], [0x2013, "-"], [0x2014, "-"], [0x2015, "-"], [0x2212, "-"],
  [0xfe58, "-"], [0xfe63, "-"], [0xff0d, "-"],
]);

/** Code points `from`..`to` (inclusive). */
const span = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, k) => from + k);

/**
 * Characters dropped: every invisible character that can split or disguise text without showing. That is Unicode's
 * whole Default_Ignorable_Code_Point set (Unicode 15.1 DerivedCoreProperties.txt; test/evidence/normalize.test.ts
 * checks it against the running engine's `\p{Default_Ignorable_Code_Point}`): soft hyphen U+00AD, combining grapheme
 * joiner U+034F, Arabic letter mark U+061C, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), Khmer inherent
 * vowels U+17B4-17B5, the Mongolian free variation selectors and vowel separator (U+180B-180F), zero-width space /
 * non-joiner / joiner and the directional marks (U+200B-200F), the bidi embeddings and overrides (U+202A-202E), word
 * joiner, invisible operators and deprecated format controls (U+2060-206F, with the isolates U+2066-2069), the
 * variation selectors (U+FE00-FE0F: "⚠️" and "⚠" are one quote, issue 23, test/data/cases/E08, and U+E0100-E01EF),
 * BOM U+FEFF, U+FFF0-FFF8, the shorthand format controls U+1BCA0-1BCA3, the musical format controls
 * U+1D173-1D17A, and the tag plane U+E0000-E0FFF (tag characters smuggle hidden text). Beyond that set: the
 * interlinear annotation controls U+FFF9-FFFB (format characters that render as nothing) and the Braille pattern
 * blank U+2800 (renders as an empty cell; used as an invisible filler). DESIGN section 2 names the zero-width
 * characters; the others are invisible in the same way, so an attacker could otherwise place one inside an account
 * number to make a faithful quote fail (break49 F4: U+3164, U+115F, U+206A, U+180B, U+1D173, U+FFF9, U+2800 each
 * made a faithful compliance quote "not found").
 */
export const DROPPED: ReadonlySet<number> = new Set([
  0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x17b4, 0x17b5, ...span(0x180b, 0x180f), ...span(0x200b, 0x200f),
  ...span(0x202a, 0x202e), ...span(0x2060, 0x206f), 0x3164, ...span(0xfe00, 0xfe0f), 0xfeff, 0xffa0,
  ...span(0xfff0, 0xfff8), ...span(0x1bca0, 0x1bca3), ...span(0x1d173, 0x1d17a), ...span(0xe0000, 0xe0fff),
  ...span(0xfff9, 0xfffb), 0x2800,
]);

/** A normalized text with, per UTF-16 unit of `norm`, the original span it comes from. */
export interface NormalizedText {
  /** The normalized text (same as `normalize(s)`). */
  norm: string;
  /** `map[i]`: offset in the original string (UTF-16 units) where the source of `norm[i]` starts. */
  map: number[];
  /**
   * `ends[i]`: offset just past the source of `norm[i]`. The original text of `norm.slice(a, b)` (b > a) is
   * `s.slice(map[a], ends[b - 1])`. A collapsed space maps to the whole whitespace run.
   */
  ends: number[];
}

const WS_RE = /\s/;
const MARK_RE = /\p{M}/u;

function isWhitespace(cp: number): boolean {
  if (cp < 0x80) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d);
  return cp === 0x85 || WS_RE.test(String.fromCodePoint(cp));
}

/**
 * Whether a code point may combine with what precedes it under NFKC (so it must stay in the previous
 * segment): combining marks, Hangul medial/final jamo, halfwidth katakana voiced sound marks.
 */
function continuesSegment(cp: number): boolean {
  if (cp < 0x300) return false;
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff) || cp === 0xff9e || cp === 0xff9f) return true;
  return MARK_RE.test(String.fromCodePoint(cp));
}

function foldString(s: string): string {
  let out = "";
  for (const ch of s) out += FOLD.get(ch.codePointAt(0)!) ?? ch;
  return out;
}

/**
 * A segment's normal form: fold, NFKC, fold, lowercase (dropping the dot `İ` leaves), repeated until it no longer
 * changes (at most 4 rounds; module docstring, steps 2, 3 and 5). Dropped characters and whitespace are the caller's.
 */
function segmentForm(raw: string): string {
  let seg = raw;
  for (let round = 0; round < 4; round++) {
    // `İ` (U+0130) lowercases to `i` + U+0307: the dot is dropped, so a judge's lowercased "iletin" finds "İLETİN"
    const next = foldString(foldString(seg).normalize("NFKC")).toLowerCase().replace(DOTTED_I, "i");
    if (next === seg) break;
    seg = next;
  }
  return seg;
}

/** {@link segmentForm} of single code points, by code point (bounded: emptied when full). */
const singleForms = new Map<number, string>();
const SINGLE_FORMS_MAX = 4096;

/**
 * {@link segmentForm} of the segment made of code point `cp` alone, from {@link singleForms} (issue 26: each non-ASCII
 * character of a text cost ~10 short strings, the same ones for every occurrence of that character).
 */
function singleSegment(cp: number): string {
  let f = singleForms.get(cp);
  if (f === undefined) {
    if (singleForms.size >= SINGLE_FORMS_MAX) singleForms.clear();
    f = segmentForm(String.fromCodePoint(cp));
    singleForms.set(cp, f);
  }
  return f;
}

/** The length of the normalized text of the last {@link run} (set when it returns; `build` false leaves `norm` empty). */
let runLength = 0;
/** What the last {@link run} given `wantStart` / `wantEnd` found: `map[wantStart]` and `ends[wantEnd]` (-1: none). */
let spanStart = -1;
let spanEnd = -1;

/**
 * Normalize `s` (module docstring) into `norm` (when `build`), with the offset map (when `withMap`); sets
 * {@link runLength}, and {@link spanStart} / {@link spanEnd} to what `map[wantStart]` / `ends[wantEnd]` would be (no map
 * built for them).
 */
function run(s: string, withMap: boolean, build = true, wantStart = -1, wantEnd = -1): NormalizedText {
  // Output as UTF-16 code units in a reused scratch array, turned into a string at the end (much faster than
  // growing a string; `run` calls nothing that uses the scratch array before it is decoded).
  spanStart = spanEnd = -1;
  let codes = unitScratch(Math.max(16, s.length + 8));
  let len = 0;
  const map: number[] = [];
  const ends: number[] = [];
  let pending = false;
  let wsStart = 0;
  let wsEnd = 0;

  const push = (unit: number, a: number, b: number): void => {
    if (len === codes.length) {
      const bigger = unitScratch(codes.length * 2);
      if (bigger !== codes) bigger.set(codes);
      codes = bigger;
    }
    if (len === wantStart) spanStart = a;
    if (len === wantEnd) spanEnd = b;
    codes[len++] = unit;
    if (withMap) {
      map.push(a);
      ends.push(b);
    }
  };
  const flushSpace = (): void => {
    if (len > 0) push(0x20, wsStart, wsEnd);
    pending = false;
  };

  let i = 0;
  const n = s.length;
  while (i < n) {
    const c0 = s.charCodeAt(i);
    // Fast path: an ASCII character followed by ASCII (or the end) is its own segment and NFKC-stable.
    if (c0 < 0x80 && (i + 1 >= n || s.charCodeAt(i + 1) < 0x80)) {
      if (c0 === 0x20 || (c0 >= 0x09 && c0 <= 0x0d)) {
        if (!pending) {
          pending = true;
          wsStart = i;
        }
        wsEnd = i + 1;
      } else {
        if (pending) flushSpace();
        push(c0 >= 0x41 && c0 <= 0x5a ? c0 + 32 : c0, i, i + 1);
      }
      i++;
      continue;
    }
    // General path: one segment = this code point plus the code points that continue it (dropped characters
    // are skipped: they neither start nor end a segment).
    const cp0 = s.codePointAt(i)!;
    let j = i + (cp0 > 0xffff ? 2 : 1);
    const cp1 = j < n ? s.codePointAt(j)! : -1;
    let seg: string;
    if (!DROPPED.has(cp0) && (cp1 === -1 || (!DROPPED.has(cp1) && !continuesSegment(cp1)))) {
      // a segment of one code point (most of them): its normal form depends on that code point alone
      seg = singleSegment(cp0);
    } else {
      let raw = DROPPED.has(cp0) ? "" : s.slice(i, j);
      while (j < n) {
        const cp = s.codePointAt(j)!;
        const w = cp > 0xffff ? 2 : 1;
        if (DROPPED.has(cp)) {
          j += w;
          continue;
        }
        if (!continuesSegment(cp)) break;
        raw += s.slice(j, j + w);
        j += w;
      }
      seg = segmentForm(raw);
    }
    for (let k = 0; k < seg.length; ) {
      const cp = seg.codePointAt(k)!;
      const w = cp > 0xffff ? 2 : 1;
      if (!DROPPED.has(cp)) {
        if (isWhitespace(cp)) {
          if (!pending) {
            pending = true;
            wsStart = i;
          }
          wsEnd = j;
        } else {
          if (pending) flushSpace();
          push(seg.charCodeAt(k), i, j);
          if (w === 2) push(seg.charCodeAt(k + 1), i, j);
        }
      }
      k += w;
    }
    i = j;
  }
  runLength = len;
  return { norm: build ? unitsToString(codes, len) : "", map, ends };
}

/**
 * Normalize a text for evidence matching (module docstring: fold, NFKC, drop zero-width, collapse whitespace,
 * trim, case-fold). Idempotent: `normalize(normalize(s)) === normalize(s)`.
 * @param s any string.
 * @returns the normalized string (possibly empty); never throws.
 */
export function normalize(s: string): string {
  const fast = asciiNormalize(s);
  return fast ?? run(s, false).norm;
}

/** Scratch bytes of {@link asciiNormalize}, grown as needed and reused (one thread runs one normalization at a time). */
let scratch = Buffer.allocUnsafe(1 << 12);

/**
 * {@link normalize} of an all-ASCII text in one pass, or null when `s` holds a character outside ASCII (the caller
 * then takes `run`). ASCII text (most tool output) is all on `run`'s fast path: no fold, drop or NFKC change applies,
 * so the result is the text with A-Z lowercased, each run of ASCII whitespace (tab, LF, VT, FF, CR, space) made one
 * space, and trimmed. The output is written as bytes into a reused buffer and decoded once (latin1: one string, no
 * intermediate copies); `s` itself is returned when nothing changes (issue 26: the `toLowerCase` + `replace` + `trim`
 * chain made three strings of every text and was a third of the analysis' allocation).
 */
function asciiNormalize(s: string): string | null {
  const n = s.length;
  if (scratch.length < n) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
  const out = scratch;
  let len = 0;
  let pending = false; // whitespace seen since the last character written
  let changed = false;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0x80) return null;
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
      // unchanged only for one plain space between two written characters
      if (c !== 0x20 || pending || len === 0) changed = true;
      pending = true;
      continue;
    }
    if (pending) {
      if (len > 0) out[len++] = 0x20;
      pending = false;
    }
    if (c >= 0x41 && c <= 0x5a) {
      c += 32;
      changed = true;
    }
    out[len++] = c;
  }
  if (pending) changed = true; // trailing whitespace trimmed
  return changed ? out.toString("latin1", 0, len) : s;
}

/**
 * {@link normalize} with a map from each normalized UTF-16 unit back to its source span in `s`, for showing the
 * original text of a normalized match (closest-match text, in-place highlighting).
 * @returns `{norm, map, ends}`, `map.length === ends.length === norm.length`; see {@link NormalizedText}.
 */
export function normalizeWithMap(s: string): NormalizedText {
  return run(s, true);
}

/**
 * The original text behind a normalized range `[a, b)` of `normalizeWithMap(s)`; `""` for an empty range.
 * @throws RangeError when `0 <= a <= b <= norm.length` does not hold.
 */
export function originalSlice(s: string, nt: NormalizedText, a: number, b: number): string {
  if (!(0 <= a && a <= b && b <= nt.norm.length)) throw new RangeError(`bad normalized range [${a}, ${b})`);
  if (a === b) return "";
  return s.slice(nt.map[a], nt.ends[b - 1]);
}

/** Whether a UTF-16 unit is printable ASCII other than space: normalization never joins across two of them. */
function asciiSolid(c: number): boolean {
  return c > 0x20 && c < 0x7f;
}

/**
 * {@link originalSpan} for text whose prefix up to the range's end is all ASCII: `run`'s fast path replayed with
 * counters only (no output, no map), so the offsets are those `run` would map (a normalized unit is the lowercased
 * character itself, or a collapsed space standing for its whole whitespace run; leading whitespace emits nothing).
 * `run` is a left-to-right stream, so the units before the range's end depend only on the text before it.
 * @returns the span; `null` when the whole text is ASCII and the range ends past it; `undefined` when a character
 *   off `run`'s fast path comes first (the caller then takes the general route).
 */
function asciiSpan(s: string, a: number, b: number): { start: number; end: number } | null | undefined {
  const n = s.length;
  let len = 0;
  let start = -1;
  let pending = false;
  let wsStart = 0;
  let wsEnd = 0;
  for (let i = 0; i < n; i++) {
    const c0 = s.charCodeAt(i);
    if (c0 >= 0x80 || (i + 1 < n && s.charCodeAt(i + 1) >= 0x80)) return undefined;
    if (c0 === 0x20 || (c0 >= 0x09 && c0 <= 0x0d)) {
      if (!pending) {
        pending = true;
        wsStart = i;
      }
      wsEnd = i + 1;
      continue;
    }
    if (pending) {
      pending = false;
      if (len > 0) {
        if (len === a) start = wsStart;
        if (len === b - 1) return { start, end: wsEnd };
        len++;
      }
    }
    if (len === a) start = i;
    if (len === b - 1) return { start, end: i + 1 };
    len++;
  }
  return null;
}

/** Block size (UTF-16 units) of {@link originalSpan}: each block is sliced and normalized once. */
const SPAN_BLOCK = 1 << 12;

/** End of the block of `s` that starts at `from`: about SPAN_BLOCK units, cut between two printable ASCII characters. */
function blockEnd(s: string, from: number): number {
  let e = Math.min(s.length, from + SPAN_BLOCK);
  while (e < s.length && !(asciiSolid(s.charCodeAt(e - 1)) && asciiSolid(s.charCodeAt(e)))) e++;
  return e;
}

/**
 * The original span behind the normalized range `[a, b)` of `normalize(s)`, without an offset map of the whole
 * text: `s.slice(start, end) === originalSlice(s, normalizeWithMap(s), a, b)`. A full map costs two JS numbers
 * per character (hundreds of MB for a tool result of tens of MB); here the text is cut into blocks of about
 * {@link SPAN_BLOCK} units where normalization is local (between two printable non-space ASCII characters:
 * `normalize(x + y) === normalize(x) + normalize(y)` there, since such a character is its own segment and no
 * whitespace run crosses the cut), each block normalized once, in order, without its string or map: `run` notes
 * the original offsets of the two normalized positions wanted (relative to the block) as it passes them. Linear
 * time (up to the block holding the range's end); memory of one block.
 * @param a normalized start offset, `0 <= a < b`.
 * @param b normalized end offset (exclusive), `b <= normalize(s).length`.
 * @returns original offsets `{start, end}` (UTF-16, end exclusive), or `null` when the range is empty or out of
 *   bounds.
 */
export function originalSpan(s: string, a: number, b: number): { start: number; end: number } | null {
  if (!(Number.isInteger(a) && Number.isInteger(b) && 0 <= a && a < b)) return null;
  const fast = asciiSpan(s, a, b);
  if (fast !== undefined) return fast;
  let from = 0;
  let normPos = 0; // normalized length of the blocks before `from`
  let start = -1;
  while (from < s.length) {
    const e = blockEnd(s, from);
    // `map[a]` and `ends[b - 1]` of the whole text, when they fall in this block
    run(s.slice(from, e), false, false, a - normPos, b - 1 - normPos);
    if (spanStart >= 0) start = from + spanStart;
    if (spanEnd >= 0) return { start, end: from + spanEnd };
    normPos += runLength;
    from = e;
  }
  return null; // b is past the end
}
