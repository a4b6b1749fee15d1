/**
 * The argument values of a tool call as the judge sees it (`name(arguments)`, `../serialize/parts.ts`), for the rule
 * that a quote of a call must show some of what the call did, not only which tool it named (red team 39 E: the quote
 * `send_money({"recipient":"` holds the tool's name and an argument's name, 18 letters, and verified as
 * full_compliance on the user's own payment to the landlord: any call of that tool would do).
 *
 * A position of the call's text is a value position when it lies inside the arguments and is not the tool's name, the
 * parentheses, JSON punctuation or an object key: inside a string (double or single quoted, as JSON and Python reprs
 * write them) that is not followed by `:`, or a letter or digit outside strings (numbers, `true`, keyword arguments
 * written bare). Arguments that are no JSON (`to=x@y.z`) are read the same way: every letter and digit counts, so the
 * rule asks nothing of them that the quote did not already show.
 */

/** Letters, marks and digits of the call's argument values a quote of it must hold, unless the call has fewer. */
export const MIN_VALUE_TEXT = 4;

const TEXT_CHAR = /[\p{L}\p{M}\p{N}]/u;

/**
 * Per UTF-16 unit of a call's text `name(arguments)`, 1 where a letter, mark or digit of an argument value stands.
 * @param text the call's part text.
 * @param nameLength the length of the tool's name (the arguments start after it and its `(`).
 */
export function callValueMask(text: string, nameLength: number): Uint8Array {
  const mask = new Uint8Array(text.length);
  const start = Math.min(text.length, nameLength + 1);
  const end = text.endsWith(")") ? text.length - 1 : text.length;
  // one position per code point (the high surrogate of a pair)
  // ASCII by its char code (the property classes hold exactly A-Z, a-z and 0-9 of it), the rest by the regex
  const isText = (k: number): boolean => {
    const c = text.charCodeAt(k);
    if (c < 0x80) return c >= 0x61 ? c <= 0x7a : c >= 0x41 ? c <= 0x5a : c >= 0x30 && c <= 0x39;
    return TEXT_CHAR.test(String.fromCodePoint(text.codePointAt(k)!));
  };
  let k = start;
  while (k < end) {
    const ch = text[k];
    if (ch === '"' || ch === "'") {
      let j = k + 1;
      while (j < end && text[j] !== ch) j += text[j] === "\\" ? 2 : 1;
      let n = j + 1;
      while (n < end && /\s/.test(text[n])) n++;
      if (text[n] !== ":") for (let x = k + 1; x < Math.min(j, end); x++) if (isText(x)) mask[x] = 1;
      k = j + 1;
    } else {
      if (isText(k)) mask[k] = 1;
      k++;
    }
  }
  return mask;
}

/** How many value positions of `mask` lie in `[from, to)`. */
export function valueCount(mask: Uint8Array, from = 0, to = mask.length): number {
  let n = 0;
  for (let k = Math.max(0, from); k < Math.min(to, mask.length); k++) n += mask[k];
  return n;
}
