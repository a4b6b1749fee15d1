/**
 * Bootstrap: the binomial/multinomial samplers against exact distributions, the exact bootstrap distribution
 * of kappa (all resampled tables enumerated) against large-B percentiles (they must land on the atoms),
 * undefined-replicate counting, determinism by seed, and the type-1 quantile rule. No timing asserts
 * (see bench/stats-bootstrap.ts).
 */
import prand from "pure-rand";
import { describe, expect, it } from "vitest";
import {
  binomial,
  bootstrapItems,
  bootstrapKappa,
  bootstrapTable,
  cohenKappa,
  fleissKappa,
  gammaQ,
  kappaStatistic,
  lnGamma,
  multinomialFromCounts,
  nextIndex,
  quantileType1,
} from "../../src/stats/index.js";

/** Chi-square upper tail P(X > x) with df degrees of freedom. */
const chi2Upper = (x: number, df: number) => gammaQ(df / 2, x / 2);

function binomPmf(n: number, p: number, k: number): number {
  return Math.exp(lnGamma(n + 1) - lnGamma(k + 1) - lnGamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p));
}

describe("binomial sampler (inversion and BTPE)", () => {
  const cases: [number, number][] = [
    [50, 0.2], // inversion
    [40000, 0.0004], // inversion, np = 16
    [100, 0.5], // BTPE
    [40000, 0.3], // BTPE, large n
    [1000, 0.97], // flipped to BTPE on q
    [200, 0.9], // flipped to inversion on q (nq = 20)
  ];
  for (const [n, p] of cases) {
    it(`Bin(${n}, ${p}) matches the exact pmf (chi-square, mean, variance)`, () => {
      const rng = prand.xoroshiro128plus(12345 + n);
      const draws = 100_000;
      const freq = new Map<number, number>();
      let s = 0;
      let s2 = 0;
      let bad = 0;
      for (let i = 0; i < draws; i++) {
        const x = binomial(rng, n, p);
        if (!(Number.isInteger(x) && x >= 0 && x <= n)) bad++;
        freq.set(x, (freq.get(x) ?? 0) + 1);
        s += x;
        s2 += x * x;
      }
      expect(bad).toBe(0);
      const mean = s / draws;
      const variance = s2 / draws - mean * mean;
      const sd = Math.sqrt(n * p * (1 - p));
      expect(Math.abs(mean - n * p)).toBeLessThan((5 * sd) / Math.sqrt(draws));
      expect(Math.abs(variance / (n * p * (1 - p)) - 1)).toBeLessThan(0.03);
      // chi-square over bins with expected count >= 5, tails pooled
      const lo = Math.max(0, Math.floor(n * p - 8 * sd));
      const hi = Math.min(n, Math.ceil(n * p + 8 * sd));
      let chi = 0;
      let bins = 0;
      let accE = 0;
      let accO = 0;
      for (let k = lo; k <= hi; k++) {
        accE += binomPmf(n, p, k) * draws;
        accO += freq.get(k) ?? 0;
        if (accE >= 5) {
          chi += ((accO - accE) * (accO - accE)) / accE;
          bins++;
          accE = 0;
          accO = 0;
        }
      }
      const pValue = chi2Upper(chi, bins - 1);
      expect(pValue).toBeGreaterThan(1e-4);
    });
  }

  it("degenerate and invalid arguments", () => {
    const rng = prand.xoroshiro128plus(1);
    expect(binomial(rng, 0, 0.3)).toBe(0);
    expect(binomial(rng, 10, 0)).toBe(0);
    expect(binomial(rng, 10, 1)).toBe(10);
    expect(() => binomial(rng, 2.5, 0.5)).toThrow(RangeError);
    expect(() => binomial(rng, 10, 1.5)).toThrow(RangeError);
  });

  it("multinomial draws keep n and the cell means", () => {
    const rng = prand.xoroshiro128plus(99);
    const counts = [500, 0, 300, 200];
    const out = new Float64Array(4);
    const sums = [0, 0, 0, 0];
    let bad = 0;
    for (let b = 0; b < 20_000; b++) {
      multinomialFromCounts(rng, counts, out, 1000);
      if (out.reduce((s, x) => s + x, 0) !== 1000 || out[1] !== 0) bad++;
      for (let k = 0; k < 4; k++) sums[k] += out[k];
    }
    expect(bad).toBe(0);
    for (let k = 0; k < 4; k++) expect(sums[k] / 20_000).toBeCloseTo(counts[k], 0);
  });

  it("nextIndex is uniform on [0, n)", () => {
    const rng = prand.xoroshiro128plus(3);
    const n = 7;
    const f = new Array(n).fill(0);
    for (let i = 0; i < 70_000; i++) f[nextIndex(rng, n)]++;
    const chi = f.reduce((s, o) => s + ((o - 10_000) * (o - 10_000)) / 10_000, 0);
    expect(chi2Upper(chi, n - 1)).toBeGreaterThan(1e-4);
  });
});

/** Exact bootstrap distribution of kappa: enumerate every resampled table (multinomial compositions). */
function exactKappaBootstrap(table: number[][]) {
  const q = table.length;
  const flat = table.flat();
  const n = flat.reduce((s, x) => s + x, 0);
  const cells = flat.map((c, i) => ({ c, i })).filter((x) => x.c > 0);
  const stat = kappaStatistic(q);
  const atoms = new Map<number, number>();
  let pUndefined = 0;
  const buf = new Float64Array(q * q);
  const comp = new Array(cells.length).fill(0);
  const rec = (k: number, left: number, logp: number) => {
    if (k === cells.length - 1) {
      comp[k] = left;
      const lp = logp + left * Math.log(cells[k].c / n) - lnGamma(left + 1);
      buf.fill(0);
      cells.forEach((cell, j) => (buf[cell.i] = comp[j]));
      const prob = Math.exp(lnGamma(n + 1) + lp);
      const v = stat(buf, q);
      if (v === null) pUndefined += prob;
      else {
        const key = Math.round(v * 1e12) / 1e12;
        atoms.set(key, (atoms.get(key) ?? 0) + prob);
      }
      return;
    }
    for (let x = 0; x <= left; x++) {
      comp[k] = x;
      rec(k + 1, left - x, logp + x * Math.log(cells[k].c / n) - lnGamma(x + 1));
    }
  };
  rec(0, n, 0);
  const sorted = [...atoms.entries()].sort((a, b) => a[0] - b[0]);
  const defined = 1 - pUndefined;
  let cum = 0;
  const cdf = sorted.map(([x, pr]) => {
    cum += pr / defined;
    return { x, F: cum };
  });
  /** type-1 quantile of the conditional (defined) distribution, with the CDF just below and at the atom */
  const quantile = (p: number) => {
    const j = cdf.findIndex((a) => a.F >= p - 1e-12);
    const neighbours = [cdf[j - 1]?.x, cdf[j].x, cdf[j + 1]?.x].filter((x) => x !== undefined);
    return { x: cdf[j].x, below: j > 0 ? cdf[j - 1].F : 0, at: cdf[j].F, neighbours };
  };
  return { pUndefined, atoms: sorted, quantile, total: sorted.reduce((s, a) => s + a[1], 0) + pUndefined };
}

describe("exact bootstrap distribution vs large-B percentile bootstrap", () => {
  const tables: { name: string; table: number[][] }[] = [
    { name: "binary n = 10 with P(undefined) ≈ 0.107", table: [[8, 1], [0, 1]] },
    { name: "3-class n = 7", table: [[2, 1, 0], [0, 1, 1], [1, 0, 1]] },
    // dense atoms: the exact 2.5% CDF sits within MC error of an atom boundary, so only the neighbours are checked
    { name: "3-class n = 12", table: [[4, 1, 0], [1, 3, 1], [0, 0, 2]] },
  ];
  for (const { name, table } of tables) {
    const ex = exactKappaBootstrap(table);
    it(`${name}: enumeration is a probability distribution`, () => {
      expect(ex.total).toBeCloseTo(1, 12);
    });
    for (const resampling of ["multinomial", "items"] as const) {
      it(`${name}: ${resampling} percentiles land on the exact atoms; undefined share matches`, () => {
        const B = resampling === "multinomial" ? 200_000 : 100_000;
        const r = bootstrapKappa(table, { B, seed: 2024, resampling, keepReplicates: true });
        expect(r.B).toBe(B);
        expect(r.defined + r.undefined_resamples).toBe(B);
        const mcSe = (p: number) => Math.sqrt((p * (1 - p)) / B);
        // undefined share within 5 Monte-Carlo SE of the exact probability
        expect(Math.abs(r.undefined_fraction - ex.pUndefined)).toBeLessThan(5 * mcSe(ex.pUndefined) + 1e-9);
        for (const [p, got] of [
          [0.025, r.lower],
          [0.975, r.upper],
        ] as const) {
          const qx = ex.quantile(p);
          const margin = Math.min(Math.abs(qx.at - p), Math.abs(p - qx.below));
          if (margin > 5 * mcSe(p)) {
            // the exact CDF is far from p at this atom's edges: the large-B percentile must be exactly this atom
            expect(got).toBeCloseTo(qx.x, 10);
          } else {
            // an atom boundary lies within MC error of p: the percentile is this atom or a neighbouring one
            expect(name).toMatch(/n = 12/); // only the dense-atom table is expected here
            expect(qx.neighbours.some((x) => Math.abs(x - (got as number)) < 1e-10)).toBe(true);
          }
        }
        // every replicate is an atom of the exact distribution
        const atomSet = new Set(ex.atoms.map((a) => a[0]));
        for (const x of new Set(r.replicates)) expect(atomSet.has(Math.round(x * 1e12) / 1e12)).toBe(true);
      });
    }
  }
});

describe("bootstrapKappa / bootstrapTable behaviour", () => {
  const table = [
    [20, 5, 1],
    [4, 15, 3],
    [1, 2, 9],
  ];

  it("records the seed and generator, is reproducible, and differs by seed", () => {
    const a = bootstrapKappa(table, { B: 2000, seed: 11 });
    const b = bootstrapKappa(table, { B: 2000, seed: 11 });
    const c = bootstrapKappa(table, { B: 2000, seed: 12 });
    expect(a).toEqual(b);
    expect(a.seed).toBe(11);
    expect(a.generator).toBe("pure-rand/xoroshiro128plus");
    expect(a.quantile_rule).toBe("type1");
    expect(a.resampling).toBe("multinomial");
    expect([c.lower, c.upper]).not.toEqual([a.lower, a.upper]);
  });

  it("the interval brackets kappa and is near the Wald interval for a moderate table", () => {
    const k = cohenKappa(table);
    const r = bootstrapKappa(table, { B: 10_000, seed: 5 });
    expect(r.lower!).toBeLessThan(k.value!);
    expect(r.upper!).toBeGreaterThan(k.value!);
    expect(Math.abs(r.upper! - r.lower! - (k.ci_wald!.upper - k.ci_wald!.lower))).toBeLessThan(0.06);
  });

  it("items and multinomial resampling agree (same distribution)", () => {
    const a = bootstrapKappa(table, { B: 20_000, seed: 8, resampling: "items" });
    const m = bootstrapKappa(table, { B: 20_000, seed: 8, resampling: "multinomial" });
    expect(Math.abs(a.lower! - m.lower!)).toBeLessThan(0.02);
    expect(Math.abs(a.upper! - m.upper!)).toBeLessThan(0.02);
  });

  it("weighted kappa bootstrap uses the weights", () => {
    const lin = bootstrapKappa(table, { B: 3000, seed: 1, weights: "linear", keepReplicates: true });
    const un = bootstrapKappa(table, { B: 3000, seed: 1, keepReplicates: true });
    expect(lin.replicates).not.toEqual(un.replicates);
  });

  it("empty table, invalid B/seed, non-integer counts", () => {
    const e = bootstrapKappa([[0, 0], [0, 0]], { B: 100, seed: 1 });
    expect(e.lower).toBeNull();
    expect(e.reason).toBe("empty_input");
    expect(() => bootstrapKappa(table, { B: 0, seed: 1 })).toThrow(/B must be/);
    expect(() => bootstrapKappa(table, { B: 10, seed: 1.5 })).toThrow(/seed/);
    expect(() => bootstrapTable([[1.5, 0], [0, 1]], kappaStatistic(2), { B: 10, seed: 1 })).toThrow(/integer/);
  });

  it("single category: every resample undefined, interval undefined with counts", () => {
    const r = bootstrapKappa([[10, 0], [0, 0]], { B: 1000, seed: 3 });
    expect(r).toMatchObject({ lower: null, upper: null, reason: "all_resamples_undefined", undefined_resamples: 1000, defined: 0, undefined_fraction: 1 });
    expect(JSON.stringify(r)).not.toMatch(/NaN/);
  });
});

describe("cohenKappa({ bootstrap }) attaches ci_bootstrap to the one result shape", () => {
  it("defined kappa: same interval as bootstrapKappa, replicates not embedded, JSON-clean", () => {
    const t = [
      [12, 3],
      [2, 8],
    ];
    const r = cohenKappa(t, { bootstrap: { B: 3000, seed: 42 } });
    const direct = bootstrapKappa(t, { B: 3000, seed: 42 });
    expect(r.ci_bootstrap).toEqual(direct);
    expect(r.ci_bootstrap).not.toHaveProperty("replicates");
    expect(r.ci_bootstrap).toMatchObject({ B: 3000, seed: 42, level: 0.95 });
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
  it("undefined kappa: the bootstrap reports every resample undefined", () => {
    const r = cohenKappa([[6, 0], [0, 0]], { bootstrap: { B: 200, seed: 1 } });
    expect(r.value).toBeNull();
    expect(r.ci_bootstrap).toMatchObject({ lower: null, upper: null, reason: "all_resamples_undefined", undefined_resamples: 200 });
  });
});

describe("quantileType1 (inverse empirical CDF)", () => {
  it("returns the ceil(p·m)-th smallest, robust to p·m rounding", () => {
    const xs = Float64Array.from({ length: 10_000 }, (_, i) => i + 1);
    expect(quantileType1(xs, 0.025)).toBe(250);
    expect(quantileType1(xs, (1 - 0.95) / 2)).toBe(250); // 0.025000000000000022 * 10000
    expect(quantileType1(xs, 0.975)).toBe(9750);
    expect(quantileType1(xs, (1 + 0.95) / 2)).toBe(9750);
    expect(quantileType1([1, 2, 3], 0)).toBe(1);
    expect(quantileType1([1, 2, 3], 1)).toBe(3);
    expect(quantileType1([1, 2, 3], 0.34)).toBe(2);
    expect(() => quantileType1([], 0.5)).toThrow();
  });
});

describe("bootstrapItems: committee resampling of whole items", () => {
  it("Fleiss kappa over items, deterministic, brackets the estimate", () => {
    const counts = [
      [3, 0, 0],
      [0, 3, 0],
      [2, 1, 0],
      [0, 0, 3],
      [1, 1, 1],
      [0, 2, 1],
      [3, 0, 0],
      [0, 3, 0],
    ];
    const k = fleissKappa(counts).value!;
    const stat = (s: readonly number[][]) => fleissKappa(s).value;
    const a = bootstrapItems(counts, stat, { B: 4000, seed: 9 });
    const b = bootstrapItems(counts, stat, { B: 4000, seed: 9 });
    expect(a).toEqual(b);
    expect(a.resampling).toBe("items");
    expect(a.lower!).toBeLessThan(k);
    expect(a.upper!).toBeGreaterThan(k);
    expect(bootstrapItems([], stat, { B: 10, seed: 1 }).reason).toBe("empty_input");
  });
});
