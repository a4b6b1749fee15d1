/**
 * Unicode letter/digit scans that hold on any input size (red team 30 H2). A regex whose quantifier repeats a
 * Unicode property class (`/[^\p{L}\p{N}]+/gu`, `/\p{L}{4,}/gu`, `/[\p{L}\p{N}_-]*\d.../gu`) backtracks through
 * V8's regex stack one character at a time: about 4.5 million consecutive matching characters of a two-byte string
 * (U+2014 dashes, U+202E overrides, Cyrillic letters) throw "Maximum call stack size exceeded", which aborted
 * `sample` and `view` on one hostile tool result. The functions here give the same results with regexes that match
 * one code point at a time (no quantifier over a property class), whose cost is linear and whose stack is flat.
 */

/**
 * `text` with every character that is not a Unicode letter (`\p{L}`) or number (`\p{N}`) removed: the result of
 * `text.replace(/[^\p{L}\p{N}]+/gu, "")`, one code point at a time (safe on runs of any length).
 */
export function lettersAndDigits(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, "");
}

/**
 * The maximal runs of `text` made of characters outside `separator`, left to right, empty runs left out.
 * @param separator a regex matching ONE code point (a class, no quantifier) with the `g` and `u` flags, e.g.
 *   `/[^\p{L}\p{N}_-]/gu`; it must not match a plain space (runs are cut at spaces after the separators become
 *   spaces: a space must itself be a separator, which every class here makes it).
 * @throws RangeError when `separator` lacks the `g` or `u` flag or does not match a space.
 */
export function runsBetween(text: string, separator: RegExp): string[] {
  if (!separator.global || !separator.unicode) throw new RangeError(`runsBetween needs a /gu separator, got ${separator}`);
  separator.lastIndex = 0;
  if (!separator.test(" ")) throw new RangeError(`runsBetween needs a separator that matches a space, got ${separator}`);
  separator.lastIndex = 0;
  return text.replace(separator, " ").split(/ +/).filter((r) => r !== "");
}

/** Number of code points of `s` (a surrogate pair counts once), as a `u`-flag regex counts them. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
