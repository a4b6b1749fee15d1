/**
 * The rows' weight 1/π against N (session 39: "1/pi weights in the import do not sum to N"): N per sampling stratum
 * for a phase-1 sample with every item labelled; otherwise the sums and why (nonresponse, two phases) are said. The
 * two-phase claim (Σ 1/π over the sample estimates N_h without equalling it) is checked by a seeded simulation of the
 * design of src/sample/design.ts.
 */
import prand from "pure-rand";
import { describe, expect, it } from "vitest";
import { largestRemainderAllocation, twoPhaseInclusion } from "../../src/sample/design.js";
import { weightSums, weightSumWarning } from "../../src/sample/weight-sums.js";
import type { Manifest } from "../../src/sample/import.js";

/** A manifest of `items` ([sampling stratum, phase, weight]) over strata of sizes `sizes`. */
function manifest(sizes: Record<string, number>, items: Array<[string, 1 | 2, number]>): Manifest {
  const N = Object.values(sizes).reduce((a, b) => a + b, 0);
  const design = { population: { N }, phase1: { allocation: Object.entries(sizes).map(([k, n]) => ({ sampling_stratum: k, N: n, N_D: null, n: 0, pi: 0, pi_disagreement: null })) } };
  return {
    header: { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: items.length, design } as unknown as Manifest["header"],
    rows: items.map(([s, phase, weight], i) => ({ item_id: `i${i}`, trajectory_id: `t${i}`, stratum: s, sampling_stratum: s, committee_stratum: null, stratum_size: sizes[s], phase, inclusion_probability: 1 / weight, weight })),
  };
}

describe("weightSums", () => {
  const items: Array<[string, 1 | 2, number]> = [...Array.from({ length: 4 }, () => ["a", 1, 91 / 4] as [string, 1, number]), ...Array.from({ length: 3 }, () => ["b", 1, 20] as [string, 1, number])];
  it("a phase-1 sample with every item labelled: the weights sum to N_h in each stratum, nothing said", () => {
    const w = weightSums(manifest({ a: 91, b: 60 }, items), new Set(items.map((_, i) => `i${i}`)));
    expect(w.N).toBe(151);
    expect(w.labelled).toBeCloseTo(151, 9);
    expect(w.per_sampling_stratum.map((s) => [s.sampling_stratum, s.N, s.labelled_items])).toEqual([["a", 91, 4], ["b", 60, 3]]);
    expect(w.differs_because).toEqual([]);
    expect(weightSumWarning(w)).toBeNull();
  });
  it("nonresponse: the labelled items' sums are said per stratum, with why and that estimate --human does not use them", () => {
    const w = weightSums(manifest({ a: 91, b: 60 }, items), new Set(["i0", "i1", "i4", "i5", "i6"]));
    expect(w.labelled).toBeCloseTo(91 / 2 + 60, 9);
    expect(w.sampled).toBeCloseTo(151, 9);
    expect(w.differs_because).toEqual(["nonresponse"]);
    const t = weightSumWarning(w)!;
    expect(t).toContain("sums over the labelled items to 105.50 of 151, not N (per sampling stratum: a 45.50 of 91 (2 of 4 items labelled))");
    expect(t).toContain("nonresponse");
    expect(t).toContain("estimate --human does not use it");
  });
  it("two phases: said even with every item labelled, with the sample's sum", () => {
    const two: Array<[string, 1 | 2, number]> = [...items, ["a", 2, 5]];
    const w = weightSums(manifest({ a: 91, b: 60 }, two), new Set(two.map((_, i) => `i${i}`)));
    expect(w.differs_because).toEqual(["two_phase"]);
    expect(weightSumWarning(w)).toContain("phase 2 took a random number of disagreements from each stratum, so the sum of 1/pi over the sample (156.00 of 151 here) estimates N without equalling it");
  });
});

describe("the two-phase design's sum of 1/pi per stratum (seeded simulation)", () => {
  it("averages N_h over draws (unbiased) and is N_h in no single draw", () => {
    const strata = [
      { key: "a", N: 91, N_D: 30 },
      { key: "b", N: 206, N_D: 12 },
      { key: "c", N: 122, N_D: 60 },
    ];
    const alloc = largestRemainderAllocation(strata, 60);
    const S = strata.map((s) => ({ ...s, n1: alloc.get(s.key)! }));
    const inc = twoPhaseInclusion(S, 25);
    let g = prand.xoroshiro128plus(39);
    const int = (n: number) => {
      const [v, next] = prand.uniformIntDistribution(0, n - 1, g);
      g = next;
      return v;
    };
    const srs = <T>(xs: T[], k: number) => {
      const a = xs.slice();
      for (let i = 0; i < k; i++) {
        const j = i + int(a.length - i);
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a.slice(0, k);
    };
    const reps = 20000;
    const sums = S.map(() => 0);
    const sq = S.map(() => 0);
    let exact = 0;
    for (let t = 0; t < reps; t++) {
      const pool: number[] = [];
      const tot = S.map(() => 0);
      S.forEach((s, h) => {
        const got = new Set(srs([...Array(s.N).keys()], s.n1));
        for (const i of got) tot[h] += i < s.N_D ? 1 / inc[h].pi_disagreement! : 1 / inc[h].pi_other;
        for (let i = 0; i < s.N_D; i++) if (!got.has(i)) pool.push(h);
      });
      for (const h of srs(pool, 25)) tot[h] += 1 / inc[h].pi_disagreement!;
      if (tot.every((x, h) => Math.abs(x - S[h].N) < 1e-6)) exact++;
      tot.forEach((x, h) => {
        sums[h] += x;
        sq[h] += x * x;
      });
    }
    S.forEach((s, h) => {
      const mean = sums[h] / reps;
      const se = Math.sqrt((sq[h] / reps - mean * mean) / reps);
      expect(Math.abs(mean - s.N), `${s.key}: mean ${mean} vs N ${s.N} (se ${se})`).toBeLessThan(4 * se);
    });
    expect(exact).toBe(0);
  }, 60_000);
});
