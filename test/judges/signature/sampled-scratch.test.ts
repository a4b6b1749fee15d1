/**
 * sampledRuns keeps its held runs in module scratch arrays: scans one after another
 * (a long scan with many held runs, then short ones) give what a fresh rolling scan gives (`commonChunks`,
 * `maskCommon`, `shareRun`), on repetitive texts that hold many runs at once. Belongs in test/judges/signature/.
 */
import { describe, expect, it } from "vitest";
import { sampledChunks, sampledMaskRuns, sampledShare } from "../../../src/judges/signature/sampled.js";
import { commonChunks, gramIndex, maskCommon, shareRun } from "../../../src/judges/signature/text.js";

let seed = 5;
const rnd = (): number => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const rtext = (n: number, alpha: string): string => {
  let s = "";
  while (s.length < n) s += alpha[Math.floor(rnd() * alpha.length)];
  return s;
};
function pair(): [string, string] {
  const alpha = pick(["ab", "abc", "abcdefgh", "abcdefghijklmnopqrstuvwxyz 0123456789"]);
  const a = pick([() => rtext(pick([20, 40, 400, 2000]), alpha), () => "ab".repeat(pick([10, 300])), () => rtext(30, alpha).repeat(pick([2, 20]))])();
  let b = "";
  const target = pick([50, 300, 3000, 12000]);
  while (b.length < target) {
    const r = rnd();
    if (r < 0.45) {
      const i = Math.floor(rnd() * a.length);
      b += a.slice(i, i + 1 + Math.floor(rnd() * 60));
    } else b += rtext(1 + Math.floor(rnd() * 30), alpha);
  }
  return [a, b];
}
const sorted = <T extends { aStart: number; bStart: number; length: number }>(xs: T[]): string =>
  JSON.stringify([...xs].sort((x, y) => y.length - x.length || x.bStart - y.bStart || x.aStart - y.aStart));

describe("sampled scans one after another (module scratch)", () => {
  it("each scan answers as a fresh rolling scan does", () => {
    for (let it = 0; it < 150; it++) {
      const [a, b] = pair();
      for (const m of [8, 12, 20]) {
        const idx = gramIndex(a, 8);
        expect(sorted(sampledChunks(idx, b, m))).toBe(sorted(commonChunks(a, b, m)));
        const mr = sampledMaskRuns(idx, b, m);
        expect(mr.masked).toBe(maskCommon(a, b, m));
        expect(sampledShare(idx, b, m)).toBe(shareRun(a, b, m));
        // a scan of another pair in between (many runs held, then dropped)
        const [a2, b2] = pair();
        sampledChunks(gramIndex(a2, 8), b2, 8);
      }
    }
  });
});
