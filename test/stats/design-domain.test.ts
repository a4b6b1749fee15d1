/**
 * New user 37 (H): `agree --human`'s design-weighted SE for a rater that labelled only part of the sample (an LLM
 * judge run on one suite, a committee without quorum on most items) was 8.5 times too small: its items stood for
 * their whole strata. `designAgreement`'s `outOfDomain` makes it a domain estimate (Särndal, Swensson & Wretman 1992
 * §10.3): checked here against the formula written out independently, and by a seeded simulation with a known truth.
 */
import { describe, expect, it } from "vitest";
import { unitStream } from "../helpers/rand.js";
import { designAgreement, type DesignRecord } from "../../src/stats/weighted.js";

const CATS = ["yes", "no"];

/** The domain estimate of percent agreement and its SE, written out (Hájek ratio; z = I·(d − p) / N̂_D; fpc). */
function byHand(inDomain: Array<{ s: string; agree: boolean }>, outside: Record<string, number>, N: Record<string, number>): { po: number; se: number } {
  const n: Record<string, number> = {};
  for (const r of inDomain) n[r.s] = (n[r.s] ?? 0) + 1;
  for (const [s, k] of Object.entries(outside)) n[s] = (n[s] ?? 0) + k;
  let num = 0;
  let den = 0;
  for (const r of inDomain) {
    num += (N[r.s] / n[r.s]) * (r.agree ? 1 : 0);
    den += N[r.s] / n[r.s];
  }
  const po = num / den;
  let v = 0;
  for (const s of Object.keys(n)) {
    const z = [...inDomain.filter((r) => r.s === s).map((r) => (r.agree ? 1 : 0) - po), ...Array(outside[s] ?? 0).fill(0)];
    const m = z.reduce((a, b) => a + b, 0) / z.length;
    const s2 = z.reduce((a, b) => a + (b - m) ** 2, 0) / (z.length - 1);
    v += N[s] ** 2 * (1 - z.length / N[s]) * (s2 / z.length);
  }
  return { po, se: Math.sqrt(v) / den };
}

describe("designAgreement over a rater's domain (new user 37, H)", () => {
  const N = { A: 2000, D: 300 };
  const recs = (rows: Array<[string, string, string]>): DesignRecord[] => rows.map(([stratum, judge, human]) => ({ stratum, judge, human }));
  const inDom: Array<[string, string, string]> = [
    ["A", "yes", "yes"], ["A", "no", "no"], ["A", "yes", "no"], ["A", "no", "no"], ["A", "yes", "yes"],
    ["D", "yes", "no"], ["D", "no", "no"], ["D", "no", "yes"], ["D", "yes", "yes"],
  ];
  it("equals the written-out domain estimate and SE; nothing outside gives the estimate as before", () => {
    const outside = { A: 40, D: 6 };
    const r = designAgreement(recs(inDom), N, CATS, { outOfDomain: outside });
    const h = byHand(inDom.map(([s, j, hu]) => ({ s, agree: j === hu })), outside, N);
    expect(r.po.value).toBeCloseTo(h.po, 12);
    expect(r.po.se).toBeCloseTo(h.se, 12);
    const before = designAgreement(recs(inDom), N, CATS);
    expect(designAgreement(recs(inDom), N, CATS, { outOfDomain: {} })).toEqual(before);
    expect(designAgreement(recs(inDom), N, CATS, { outOfDomain: { A: 0 } })).toEqual(before);
  });
  it("a rater with items in the small stratum only: its SE is over its domain, not divided by every stratum's N (as before: ~8x too small)", () => {
    const onlyD = inDom.filter(([s]) => s === "D");
    const outside = { A: 45, D: 3 };
    const r = designAgreement(recs(onlyD), N, CATS, { outOfDomain: outside });
    const h = byHand(onlyD.map(([s, j, hu]) => ({ s, agree: j === hu })), outside, N);
    expect(r.po.se).toBeCloseTo(h.se, 12);
    // what the caller computed before: N_h of every stratum of the sample, the rater's items in one of them
    const before = designAgreement(recs(onlyD), N, CATS);
    expect(r.po.se! / before.po.se!).toBeGreaterThan(5);
  });

  it("seeded simulation: a judge labelling 30% of the small stratum only; the 95% Wald CI of its agreement covers the domain's truth", () => {
    // population: strata A 2,000 and D 300; the judge labelled a random 30% of D (its domain, like one suite); agreement 70% there
    const rnd = unitStream(37);
    const pop = (["A", "D"] as const).flatMap((s) =>
      Array.from({ length: N[s] }, () => ({ s, inDomain: s === "D" && rnd() < 0.3, agree: rnd() < 0.7 })),
    );
    const dom = pop.filter((p) => p.inDomain);
    const truth = dom.filter((p) => p.agree).length / dom.length;
    const R = 1500;
    let cover = 0;
    let coverOld = 0;
    for (let k = 0; k < R; k++) {
      // stratified SRS: 60 of A, 100 of D (partial Fisher-Yates)
      const sample: typeof pop = [];
      for (const [s, n] of [["A", 60], ["D", 100]] as const) {
        const units = pop.filter((p) => p.s === s);
        for (let i = 0; i < n; i++) {
          const j = i + Math.floor(rnd() * (units.length - i));
          [units[i], units[j]] = [units[j], units[i]];
          sample.push(units[i]);
        }
      }
      const inD = sample.filter((p) => p.inDomain);
      const outside: Record<string, number> = {};
      for (const p of sample) if (!p.inDomain) outside[p.s] = (outside[p.s] ?? 0) + 1;
      const rows = recs(inD.map((p) => [p.s, "yes", p.agree ? "yes" : "no"]));
      const r = designAgreement(rows, N, CATS, { outOfDomain: outside });
      const ci = r.po.ci_wald;
      if (ci && ci.lower <= truth && truth <= ci.upper) cover++;
      const old = designAgreement(rows, N, CATS).po;
      if (old.ci_wald && old.ci_wald.lower <= truth && truth <= old.ci_wald.upper) coverOld++;
    }
    expect(cover / R).toBeGreaterThanOrEqual(0.92);
    expect(coverOld / R).toBeLessThan(0.5); // the SE divided by every stratum's N: ~7x too small
  });
});
