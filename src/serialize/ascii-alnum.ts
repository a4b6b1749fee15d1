/**
 * The ASCII letters and digits of an all-ASCII text, in one pass over its char codes (issue 26: two hot paths of
 * the offline judge, each the ASCII case of a Unicode regex definition, property-tested against it):
 * - `serialize/surface.ts` `surfaceForm` (lowercased: A-Z become a-z);
 * - `verdict/exposure.ts` `skeletonOfNorm` (case kept).
 *
 * A backslash followed by `n`, `r` or `t` is dropped with its letter, taken left to right as the definitions' regex
 * replace does (an escaped newline, return or tab in JSON-ish text); every other character but A-Z, a-z and 0-9 is
 * dropped.
 *
 * @param text any string; @param lower lowercase A-Z.
 * @returns the kept characters, or `null` at the first non-ASCII character (the caller takes the Unicode route).
 */
export function asciiAlnum(text: string, lower: boolean): string | null {
  const n = text.length;
  // one scratch buffer for every call up to SCRATCH_MAX characters (issue 26: a Buffer per call cost about as much as
  // the pass on the longer tool results); longer texts get their own
  if (n > scratch.length) {
    if (n > SCRATCH_MAX) return pass(text, Buffer.allocUnsafe(n), lower ? LOWER : KEEP);
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(n, 2 * scratch.length)));
  }
  return pass(text, scratch, lower ? LOWER : KEEP);
}

/** Longest text (characters) the shared scratch buffer grows to. */
const SCRATCH_MAX = 1 << 20;
let scratch = Buffer.allocUnsafeSlow(1 << 12);

/**
 * Each ASCII character's kept byte (a letter or digit, lowercased in `LOWER`), 0 when dropped: one table look-up per
 * character instead of the range tests (same result, property-tested against the regex definitions).
 */
const LOWER = new Uint8Array(128);
const KEEP = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const upper = c >= 0x41 && c <= 0x5a;
  if (upper || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
    KEEP[c] = c;
    LOWER[c] = upper ? c + 32 : c;
  }
}

/** The pass of {@link asciiAlnum} into `out` (at least `text.length` bytes) with the table `map`. */
function pass(text: string, out: Buffer, map: Uint8Array): string | null {
  const n = text.length;
  let len = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return null;
    const m = map[c];
    if (m !== 0) out[len++] = m;
    else if (c === 0x5c && i + 1 < n) {
      // a backslash (dropped) and, when it escapes n, r or t, its letter with it
      const d = text.charCodeAt(i + 1);
      if (d === 0x6e || d === 0x72 || d === 0x74) i++;
    }
  }
  return out.toString("latin1", 0, len);
}
