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
  const out = Buffer.allocUnsafe(n);
  let len = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return null;
    if (c === 0x5c && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d === 0x6e || d === 0x72 || d === 0x74) {
        i++;
        continue;
      }
    }
    if (c >= 0x61 ? c <= 0x7a : c >= 0x41 ? c <= 0x5a : c >= 0x30 && c <= 0x39) out[len++] = lower && c >= 0x41 && c <= 0x5a ? c + 32 : c;
  }
  return out.toString("latin1", 0, len);
}
