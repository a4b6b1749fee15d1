/**
 * originalSpan (blocks of SPAN_BLOCK units, offsets found without a map) against the full map, on texts made of the
 * hard cases: surrogate pairs, combining marks (alone and after a dropped character), NFKC expansions (U+FDFA, U+00A8
 * to space + mark, ligatures), dropped format characters (also astral tag characters), whitespace runs of every kind
 * (NBSP, U+3000, U+2028, NEL) pushed up to the 4 Ki block cuts, lone surrogates; ranges at the very end, past it,
 * empty, negative and fractional. Found no difference in review.
 */
import { describe, expect, it } from "vitest";
import { normalize, normalizeWithMap, originalSlice, originalSpan } from "../../src/evidence/normalize.js";

let seed = 1;
const rnd = (): number => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const PIECES = [
  "a", "B", "1", ".", "-", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028", "\u0085", "\u0301", "\u0308",
  "e\u0301", "\u00e9", "\u{1F600}", "\u{1D400}", "\ufb01", "\u3392", "\u00bc", "\u00a8", "\u01c5", "\ufdfa", "\u200b",
  "\ufe0f", "\u{E0041}", "\u{E0101}", "\u0130", "\u2019", "\u201c", "\u2014", "\u2033", "\ud800", "\udc00", "\u1100\u1161",
  "\u1161", "\uff76\uff9e", "\uff9e", "\u00ad", "\u034f", "\u00df", "\u03a3", "\u212b", "\u1e9b\u0323", "\u0345", "A\u030a",
  "\u2460", "\uff21", "\u2002", "\u180e", "\u202e", "x\u200by", "ab", "XY",
] as const;
const SOLID = [..."abcdefKLMN0123!#$%&()*+,/:;<=>?@[]^_{|}~"];

function text(n: number, asciiRatio: number): string {
  let s = "";
  while (s.length < n) {
    s += rnd() < asciiRatio ? pick(SOLID) + pick(SOLID) : pick(PIECES);
    if (rnd() < 0.003) {
      // no cut point up to the next 4 Ki boundary: the block runs on past it
      const boundary = Math.ceil(s.length / 4096) * 4096;
      while (s.length < boundary - 2) s += pick(["\u00e9", " ", "\u0301", "\u{1F600}", "\ufdfa", "\u00a0"]);
    }
  }
  return s;
}

describe("originalSpan on hostile non-ASCII text", () => {
  it("equals originalSlice over the full map, and is null exactly off the valid ranges", () => {
    for (let it = 0; it < 24; it++) {
      const s = text(pick([10, 100, 4090, 4097, 8200, 13000]), pick([0, 0.05, 0.3, 0.8, 0.97]));
      const full = normalizeWithMap(s);
      expect(full.norm).toBe(normalize(s));
      const L = full.norm.length;
      const ranges: Array<[number, number]> = [[0, L], [0, 1], [L - 1, L], [L, L + 1], [0, L + 1], [L - 1, L + 1], [3, 3], [-1, 2], [0.5, 3]];
      for (let k = 0; k < 25; k++) {
        const a = Math.floor(rnd() * (L + 2));
        ranges.push([a, a + 1 + Math.floor(rnd() * (rnd() < 0.5 ? 20 : L))]);
      }
      for (let m = 4096; m < L + 4096; m += 4096) for (const d of [-3, -1, 0, 1, 2]) ranges.push([Math.max(0, m + d - 5), m + d], [m + d, m + d + 7]);
      for (const [a, b] of ranges) {
        const got = originalSpan(s, a, b);
        if (Number.isInteger(a) && Number.isInteger(b) && 0 <= a && a < b && b <= L) {
          expect(got, `[${a}, ${b}) of ${L}`).not.toBeNull();
          expect(s.slice(got!.start, got!.end)).toBe(originalSlice(s, full, a, b));
        } else expect(got, `[${a}, ${b}) of ${L}`).toBeNull();
      }
    }
  });
});
