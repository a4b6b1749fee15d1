/**
 * The skeleton an injected text is located by (`src/verdict/exposure.ts`): the one-pass route for ASCII text gives
 * what the regex definition gives.
 */
import { describe, expect, it } from "vitest";
import { looseInjectionForm } from "../../src/evidence/context.js";
import { normalize } from "../../src/evidence/normalize.js";
import { skeleton } from "../../src/verdict/exposure.js";

const byRegex = (x: string) => looseInjectionForm(normalize(x)).replace(/[^\p{L}\p{N}]+/gu, "");

describe("skeleton", () => {
  it("equals the regex definition on random ASCII with string escapes, and on text with non-ASCII characters", () => {
    let seed = 9;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    const pieces = [...ascii, "\\n", "\\\\n", "\\t", "\\r", "\\x", "''", "IBAN DE89", "  ", "é", "ＴＨＥ", "\u200b"];
    for (let k = 0; k < 3000; k++) {
      let x = "";
      for (let j = rnd(40); j > 0; j--) x += pieces[rnd(k % 2 ? pieces.length - 3 : pieces.length)];
      expect(skeleton(x)).toBe(byRegex(x));
    }
  });

  it("equals it on text with letters, marks and digits of every plane, HTML escapes and lone surrogates (the Unicode route)", () => {
    let seed = 26;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const pieces = ["a", "Z", "7", " ", "\\n", "\\", "n", "\\t", "''", "&amp;", "&lt;b&gt;", "&#233;", "&eacute;", "é", "e\u0301", "Ж", "٣", "²", "\ud835\udc00", "\ud83d\ude00", "\ud835", "\udc00", "\u200b", "\u00a0", "ＴＨＥ", "\u2019", "-", "\u4e00", "ⅷ"];
    for (let k = 0; k < 5000; k++) {
      let x = "";
      for (let j = rnd(30); j > 0; j--) x += pieces[rnd(pieces.length)];
      expect(skeleton(x)).toBe(byRegex(x));
    }
  });
});
