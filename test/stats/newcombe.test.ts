import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newcombeUnpaired } from "../../src/stats/newcombe-unpaired.js";
import { newcombePaired } from "../../src/stats/newcombe-paired.js";
import { mcnemarExact } from "../../src/stats/mcnemar-exact.js";

const v = JSON.parse(readFileSync(new URL("../data/vectors/newcombe_1998_differences.json", import.meta.url), "utf8"));
const tol = v.tolerance as number;

describe("Newcombe 1998 method 10, the papers' own examples", () => {
  for (const x of v.unpaired) {
    it(`unpaired ${x.x1}/${x.n1} - ${x.x2}/${x.n2}`, () => {
      const r = newcombeUnpaired(x.x1, x.n1, x.x2, x.n2);
      expect(r.difference!).toBeCloseTo(x.difference, 10);
      expect(Math.abs(r.lower! - x.lower)).toBeLessThan(tol);
      expect(Math.abs(r.upper! - x.upper)).toBeLessThan(tol);
    });
  }
  for (const x of v.paired) {
    it(`paired e=${x.e} f=${x.f} g=${x.g} h=${x.h}`, () => {
      const r = newcombePaired({ both: x.e, first_only: x.f, second_only: x.g, neither: x.h });
      expect(r.difference!).toBeCloseTo(x.difference, 10);
      expect(Math.abs(r.lower! - x.lower)).toBeLessThan(tol);
      expect(Math.abs(r.upper! - x.upper)).toBeLessThan(tol);
    });
  }
});

describe("undefined is not zero", () => {
  it("an empty sample or table has no difference", () => {
    expect(newcombeUnpaired(0, 0, 3, 10)).toMatchObject({ difference: null, lower: null, upper: null, reason: "empty_sample" });
    expect(newcombePaired({ both: 0, first_only: 0, second_only: 0, neither: 0 })).toMatchObject({ difference: null, reason: "no_pairs" });
    expect(mcnemarExact(0, 0)).toEqual({ p: null, discordant: 0, reason: "no_discordant_pairs" });
  });
  it("refuses counts that are not counts", () => {
    expect(() => newcombeUnpaired(4, 3, 0, 1)).toThrow();
    expect(() => newcombePaired({ both: -1, first_only: 0, second_only: 0, neither: 1 })).toThrow();
    expect(() => mcnemarExact(1.5, 0)).toThrow();
  });
});

describe("exact McNemar", () => {
  it("matches the binomial sums by hand", () => {
    expect(mcnemarExact(0, 5).p).toBeCloseTo(2 / 32, 12); // 2 * C(5,0)/2^5
    expect(mcnemarExact(1, 5).p).toBeCloseTo((2 * (1 + 6)) / 64, 12); // 2 * (C(6,0) + C(6,1))/2^6
    expect(mcnemarExact(3, 3).p).toBe(1); // capped at 1
    expect(mcnemarExact(5, 1).p).toBe(mcnemarExact(1, 5).p); // symmetric
  });
  it("stays finite for thousands of pairs", () => {
    const r = mcnemarExact(1000, 1100);
    expect(r.p).toBeGreaterThan(0);
    expect(r.p).toBeLessThan(0.05);
  });
});

describe("paired interval: coverage by seeded simulation (known truth)", () => {
  it("covers the true difference about 95% of the time", () => {
    // xorshift32, seed 7: a fixed stream
    let s = 7;
    const rnd = () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>> 0) / 4294967296;
    };
    const probs = [0.3, 0.1, 0.15, 0.45]; // both, first only, second only, neither: truth = 0.1 - 0.15 = -0.05
    let covered = 0;
    const reps = 2000;
    for (let k = 0; k < reps; k++) {
      const t = { both: 0, first_only: 0, second_only: 0, neither: 0 };
      for (let i = 0; i < 60; i++) {
        const u = rnd();
        if (u < probs[0]) t.both++;
        else if (u < probs[0] + probs[1]) t.first_only++;
        else if (u < probs[0] + probs[1] + probs[2]) t.second_only++;
        else t.neither++;
      }
      const r = newcombePaired(t);
      if (r.lower! <= -0.05 && -0.05 <= r.upper!) covered++;
    }
    expect(covered / reps).toBeGreaterThan(0.93);
    expect(covered / reps).toBeLessThan(0.975);
  });
});
