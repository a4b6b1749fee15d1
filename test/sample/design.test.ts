import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  convolve,
  designWeight,
  hypergeometricPmf,
  largestRemainderAllocation,
  twoPhaseInclusion,
  type DesignStratum,
} from "../../src/sample/design.js";
import { inclusionProbabilities } from "../../src/stats/weighted.js";
import { VECTORS } from "../helpers/paths.js";

const tiny = JSON.parse(fs.readFileSync(path.join(VECTORS, "design_two_phase_tiny_exact.json"), "utf8"));
const frac = (s: string) => {
  const [a, b] = s.split("/").map(Number);
  return b === undefined ? a : a / b;
};

function combinations<T>(xs: readonly T[], k: number): T[][] {
  if (k === 0) return [[]];
  if (xs.length < k) return [];
  const [h, ...rest] = xs;
  return [...combinations(rest, k - 1).map((c) => [h, ...c]), ...combinations(rest, k)];
}

/**
 * Inclusion probabilities by brute force over every phase-1 sample (product of within-stratum combinations, each
 * equally likely) and, given it, the phase-2 SRS of min(n2, |D∖S1|) from D∖S1 (each pool member in it with
 * probability k/|pool|).
 */
function enumerate(strata: DesignStratum[], n2: number): Map<string, { other: number | null; d: number | null }> {
  type U = { s: string; d: boolean; id: string };
  const units: U[][] = strata.map((s) =>
    Array.from({ length: s.N }, (_, i) => ({ s: s.key, d: i < s.N_D, id: `${s.key}#${i}` })),
  );
  const pi = new Map<string, number>();
  for (const g of units) for (const u of g) pi.set(u.id, 0);
  const per = strata.map((s, h) => combinations(units[h], s.n1));
  const total = per.reduce((a, c) => a * c.length, 1);
  const rec = (h: number, chosen: U[]) => {
    if (h === strata.length) {
      const inS1 = new Set(chosen.map((u) => u.id));
      const pool = units.flat().filter((u) => u.d && !inS1.has(u.id));
      const k = Math.min(n2, pool.length);
      for (const u of chosen) pi.set(u.id, pi.get(u.id)! + 1 / total);
      for (const u of pool) pi.set(u.id, pi.get(u.id)! + k / pool.length / total);
      return;
    }
    for (const c of per[h]) rec(h + 1, [...chosen, ...c]);
  };
  rec(0, []);
  const out = new Map<string, { other: number | null; d: number | null }>();
  strata.forEach((s, h) => {
    const d = units[h].find((u) => u.d);
    const o = units[h].find((u) => !u.d);
    out.set(s.key, { other: o ? pi.get(o.id)! : null, d: d ? pi.get(d.id)! : null });
  });
  return out;
}

describe("largest-remainder allocation", () => {
  it("gives floor shares plus one seat per largest remainder, summing to n", () => {
    const a = largestRemainderAllocation(
      [
        { key: "a", N: 20 },
        { key: "b", N: 22 },
        { key: "c", N: 20 },
        { key: "d", N: 20 },
      ],
      10,
    );
    // quotas 2.439, 2.683, 2.439, 2.439: floors 2,2,2,2, the two seats left go to b (.683) then a (tie .439: larger N none, smaller key)
    expect(Object.fromEntries(a)).toEqual({ a: 3, b: 3, c: 2, d: 2 });
  });
  it("is exact when quotas are integers, never exceeds a stratum, and handles n = N and n = 0", () => {
    expect(Object.fromEntries(largestRemainderAllocation([{ key: "A", N: 80 }, { key: "D", N: 20 }], 10))).toEqual({ A: 8, D: 2 });
    for (let n = 0; n <= 37; n++) {
      const sizes = [
        { key: "x", N: 1 },
        { key: "y", N: 7 },
        { key: "z", N: 29 },
        { key: "w", N: 0 },
      ];
      const a = largestRemainderAllocation(sizes, n);
      expect([...a.values()].reduce((s, v) => s + v, 0)).toBe(n);
      for (const s of sizes) {
        expect(a.get(s.key)!).toBeLessThanOrEqual(s.N);
        const q = (n * s.N) / 37;
        expect(Math.abs(a.get(s.key)! - q)).toBeLessThan(1);
      }
    }
  });
  it("does not depend on the order strata are given in", () => {
    const s = [
      { key: "p", N: 3 },
      { key: "q", N: 3 },
      { key: "r", N: 3 },
    ];
    const a = Object.fromEntries(largestRemainderAllocation(s, 4));
    const b = Object.fromEntries(largestRemainderAllocation([...s].reverse(), 4));
    expect(a).toEqual(b);
    expect(a).toEqual({ p: 2, q: 1, r: 1 });
  });
  it("rejects impossible requests", () => {
    expect(() => largestRemainderAllocation([{ key: "a", N: 3 }], 4)).toThrow(/cannot allocate 4/);
    expect(() => largestRemainderAllocation([{ key: "a", N: -1 }], 0)).toThrow(RangeError);
    expect(() => largestRemainderAllocation([{ key: "a", N: 1 }, { key: "a", N: 1 }], 1)).toThrow(/duplicate/);
  });
});

describe("hypergeometric distribution", () => {
  it("matches C(K,x)C(N-K,n-x)/C(N,n)", () => {
    const { min, p } = hypergeometricPmf(10, 4, 3);
    expect(min).toBe(0);
    const C = (a: number, b: number) => {
      let r = 1;
      for (let i = 1; i <= b; i++) r = (r * (a - b + i)) / i;
      return r;
    };
    [0, 1, 2, 3].forEach((x) => expect(p[x]).toBeCloseTo((C(4, x) * C(6, 3 - x)) / C(10, 3), 14));
    const h = hypergeometricPmf(9, 8, 5); // at least 4 marked drawn
    expect(h.min).toBe(4);
    expect(h.p[1]).toBeCloseTo(56 / 126, 14);
  });
  it("sums to 1 and has mean nK/N on a large population", () => {
    const { min, p } = hypergeometricPmf(5000, 900, 400);
    expect(p.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
    expect(p.reduce((s, x, j) => s + x * (min + j), 0)).toBeCloseTo((400 * 900) / 5000, 8);
  });
  it("convolves independent counts", () => {
    const c = convolve(hypergeometricPmf(2, 1, 1), hypergeometricPmf(2, 1, 1));
    expect([...c.p]).toEqual([0.25, 0.5, 0.25]);
  });
});

describe("two-phase inclusion probabilities", () => {
  it("reproduce the tiny exact vector: pi_A = 1/10, pi_D = 7/20 (NOTES section 7.1, S2 from D minus S1)", () => {
    const N = tiny.design.population.N;
    const ND = tiny.design.population.N_D_committee_disagreement;
    const [r] = twoPhaseInclusion([{ key: "all", N, N_D: ND, n1: 10 }], 5);
    const piA = frac(tiny.records.find((x: { stratum: string }) => x.stratum === "A").pi_design);
    const piD = frac(tiny.records.find((x: { stratum: string }) => x.stratum === "D").pi_design);
    expect(r.pi_other).toBeCloseTo(piA, 14);
    expect(r.pi_disagreement!).toBeCloseTo(piD, 13);
    const lib = inclusionProbabilities({ N, N_D: ND, n1: 10, n2: 5, variant: "exclude_already_selected" });
    expect(r.pi_disagreement!).toBeCloseTo(lib.D, 13);
    expect(designWeight(r.pi_disagreement!)).toBeCloseTo(frac(tiny.records[10].w_ht), 12);
  });
  it("reproduce NOTES' realistic design: 1000 / 200 / 119 / 100 gives pi_D = 0.619", () => {
    const [r] = twoPhaseInclusion([{ key: "all", N: 1000, N_D: 200, n1: 119 }], 100);
    expect(r.pi_other).toBe(0.119);
    expect(r.pi_disagreement!).toBeCloseTo(0.619, 12);
  });
  it("equal brute-force enumeration with one stratum (never short)", () => {
    const s: DesignStratum[] = [{ key: "g", N: 8, N_D: 4, n1: 2 }];
    const got = twoPhaseInclusion(s, 2)[0];
    const want = enumerate(s, 2).get("g")!;
    expect(got.pi_other).toBeCloseTo(want.other!, 13);
    expect(got.pi_disagreement!).toBeCloseTo(want.d!, 13);
    expect(got.pi_disagreement!).toBeCloseTo(2 / 8 + 2 / 4, 13);
  });
  it("equal brute-force enumeration with several strata, including realisations where the pool is short", () => {
    const cases: Array<[DesignStratum[], number]> = [
      [
        [
          { key: "a", N: 5, N_D: 1, n1: 2 },
          { key: "b", N: 4, N_D: 3, n1: 2 },
          { key: "c", N: 3, N_D: 0, n1: 1 },
        ],
        2,
      ],
      [
        [
          { key: "a", N: 6, N_D: 2, n1: 3 },
          { key: "b", N: 5, N_D: 4, n1: 1 },
        ],
        4,
      ],
      [
        [
          { key: "a", N: 4, N_D: 4, n1: 2 },
          { key: "b", N: 4, N_D: 1, n1: 0 },
          { key: "c", N: 3, N_D: 2, n1: 3 },
        ],
        3,
      ],
    ];
    for (const [strata, n2] of cases) {
      const want = enumerate(strata, n2);
      for (const r of twoPhaseInclusion(strata, n2)) {
        const w = want.get(r.key)!;
        if (w.other !== null) expect(r.pi_other).toBeCloseTo(w.other, 13);
        if (w.d !== null) expect(r.pi_disagreement!).toBeCloseTo(w.d, 13);
        else expect(r.pi_disagreement).toBeNull();
      }
    }
  });
  it("with several strata, D members of different strata get different pi (NOTES' closed form is not exact there)", () => {
    const s: DesignStratum[] = [
      { key: "one", N: 10, N_D: 1, n1: 5 },
      { key: "nine", N: 10, N_D: 9, n1: 5 },
    ];
    const [a, b] = twoPhaseInclusion(s, 1);
    // by hand: 1/2 + 1/2 E[1/(10 - X')]; X' = X_nine in {4,5} w.p. 1/2 each; or X_one + Y, P(4,5,6) = 5/18, 1/2, 2/9
    expect(a.pi_disagreement!).toBeCloseTo(0.5 + 0.5 * (0.5 / 6 + 0.5 / 5), 14);
    expect(b.pi_disagreement!).toBeCloseTo(0.5 + 0.5 * ((5 / 18) / 6 + 0.5 / 5 + (2 / 9) / 4), 14);
    const want = enumerate(s, 1);
    // (the enumeration sums 63,504 float terms: agreement to 1e-11)
    expect(a.pi_disagreement!).toBeCloseTo(want.get("one")!.d!, 11);
    expect(b.pi_disagreement!).toBeCloseTo(want.get("nine")!.d!, 11);
  });
  it("sum to the expected sample size n1 + n2 when the pool can never be short", () => {
    const s: DesignStratum[] = [
      { key: "a", N: 40, N_D: 5, n1: 4 },
      { key: "b", N: 30, N_D: 12, n1: 3 },
      { key: "c", N: 50, N_D: 20, n1: 5 },
    ];
    const r = twoPhaseInclusion(s, 20);
    const sum = r.reduce((acc, x, h) => acc + (s[h].N - s[h].N_D) * x.pi_other + s[h].N_D * x.pi_disagreement!, 0);
    expect(sum).toBeCloseTo(12 + 20, 10);
  });
  it("n2 = 0 leaves pi = n_h/N_h for everyone; a fully drawn stratum has pi = 1", () => {
    const [a, b] = twoPhaseInclusion(
      [
        { key: "a", N: 10, N_D: 3, n1: 2 },
        { key: "b", N: 2, N_D: 1, n1: 2 },
      ],
      0,
    );
    expect(a).toEqual({ key: "a", pi_other: 0.2, pi_disagreement: 0.2 });
    expect(b).toEqual({ key: "b", pi_other: 1, pi_disagreement: 1 });
  });
  it("reject bad counts", () => {
    expect(() => twoPhaseInclusion([{ key: "a", N: 3, N_D: 4, n1: 0 }], 0)).toThrow(RangeError);
    expect(() => twoPhaseInclusion([{ key: "a", N: 3, N_D: 1, n1: 0 }], 2)).toThrow(/exceeds the disagreement pool/);
    expect(() => designWeight(0)).toThrow(RangeError);
  });
});
