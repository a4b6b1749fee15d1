/**
 * `prepareCounts` (src/stats/multirater.ts): a table reduced once gives every irrCAC coefficient the very numbers the
 * table itself gives (the same sums in the same order), on seeded random tables with unrated, single-rated and
 * uneven rows, both alpha SE variants and a finite population.
 */
import { describe, expect, it } from "vitest";
import { Rand } from "../helpers/rand.js";
import { brennanPredigerRaw, fleissKappaGeneralized, gwetAC1Raw, krippendorffAlphaGwet, percentAgreementRaw, prepareCounts } from "../../src/stats/multirater.js";

/** Seeded numbers in [0, 1) (test/helpers/rand.ts), so a failure is reproducible. */
function rng(seed: number): () => number {
  const rand = new Rand(seed);
  return () => rand.unit();
}

describe("prepareCounts", () => {
  it("gives the same results as the table, bit for bit", () => {
    const r = rng(26);
    const fns = [percentAgreementRaw, gwetAC1Raw, fleissKappaGeneralized, brennanPredigerRaw, krippendorffAlphaGwet];
    let compared = 0;
    for (let t = 0; t < 400; t++) {
      const q = 1 + Math.floor(r() * 6);
      const maxR = 1 + Math.floor(r() * 5);
      const rows = Array.from({ length: Math.floor(r() * 80) }, () => {
        const row = new Array<number>(q).fill(0);
        const n = Math.floor(r() * (maxR + 1));
        for (let j = 0; j < n; j++) row[Math.floor(r() * (r() < 0.6 ? 1 : q))]++;
        return row;
      });
      const p = prepareCounts(rows);
      for (const f of fns)
        for (const opts of [{}, { variant: "dist" as const }, { N: 500 }]) {
          expect(JSON.stringify(f(p, opts))).toBe(JSON.stringify(f(rows, opts)));
          compared++;
        }
    }
    expect(compared).toBe(6000);
  });

  it("refuses a bad table with the table's own message", () => {
    expect(() => prepareCounts([[1, 2], [1]])).toThrow(/ragged matrix/);
    expect(() => percentAgreementRaw(null as never)).toThrow(/expected an array of rows/);
  });
});
