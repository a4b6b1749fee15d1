/**
 * agree --human's design-weighted agreement with few disagreements (session 46): the Wald interval joined with the
 * Korn-Graubard exact interval by estimate's rule (src/stats/small-count.ts `smallCountUnion`), said in text and JSON.
 * References from scipy (/work/s46/few46-bench.md, ref1.py): post-stratified p̂, stratified SE with the fpc, Wald
 * 1.96·SE, Clopper-Pearson with x = p̂·n*, n* = p̂(1−p̂)/V̂, the unseen side at least 1 − 0.025^(1/n_Kish).
 */
import { describe, expect, it } from "vitest";
import { designAgreement } from "../../src/stats/weighted.js";
import { smallCountUnion } from "../../src/stats/small-count.js";
import { smallCountFigureText, smallCountNote, withSmallCount, type SmallCountEstimate } from "../../src/agree/design-small-count.js";
import { designFigureText, explainZeroSe, withZeroSe } from "../../src/agree/design-zero-se.js";
import { estimateText } from "../../src/format/stat-text.js";

/** Strata A (N 200, 30 labelled) and D (N 50, 30 labelled); `dis` disagreements (judge yes, human no) in each. */
function design(disA: number, disD: number) {
  const recs = [
    ...Array.from({ length: 30 }, (_, i) => ({ judge: i < disA ? "yes" : "no", human: "no", stratum: "A" })),
    ...Array.from({ length: 30 }, (_, i) => ({ judge: i < disD ? "yes" : i % 2 ? "yes" : "no", human: i < disD ? "no" : i % 2 ? "yes" : "no", stratum: "D" })),
  ];
  return designAgreement(recs, { A: 200, D: 50 }, ["yes", "no"]);
}

describe("agree --human's design-weighted agreement with few disagreements (Korn-Graubard, as estimate)", () => {
  it("2 disagreements among 60: the Wald interval joined with the exact one, the figures scipy gives", () => {
    const d = withSmallCount(design(2, 0));
    const po = d.po as SmallCountEstimate;
    expect(po.value).toBeCloseTo(0.9466666666666667, 12);
    expect(po.se).toBeCloseTo(0.034164353720421814, 10);
    const c = po.ci_small_count!;
    expect(c.method).toBe("union_wald_korn_graubard");
    expect(c.disagreements).toBeCloseTo(2.3529411764705883, 10);
    expect(c.n_eff).toBeCloseTo(44.11764705882352, 10);
    expect(c.n_design).toBeCloseTo(43.25630252100841, 8);
    expect(c.design.lower).toBeCloseTo(0.8797057638195529, 8);
    expect(c.design.upper).toBe(1);
    expect(c.exact.lower).toBeCloseTo(0.8326178018472451, 6);
    expect(c.exact.upper).toBeCloseTo(0.9919402573128046, 6);
    expect([c.lower, c.upper]).toEqual([c.exact.lower, 1]);
    expect(po.ci_method).toBe(c.text);
    expect(c.text).toMatch(/^exact small-count interval: 2\.4 effective disagreements with the human consensus among the 60 labelled items \(Kish effective n 44\.1\), fewer than 10; the interval is the union of the Wald interval \[88\.0%, 100\.0%\] and the Korn-Graubard exact interval \(Clopper-Pearson with the design effective n\) \[83\.3%, 99\.2%\]/);
    // PABAK = 2 p_o − 1: the same interval mapped
    const pb = d.pabak as SmallCountEstimate;
    expect(pb.ci_small_count!.lower).toBeCloseTo(2 * c.lower - 1, 12);
    expect(pb.ci_small_count!.upper).toBeCloseTo(1, 12);
    // kappa and AC1 keep their Wald SE and interval
    expect((d.kappa as SmallCountEstimate).ci_small_count).toBeUndefined();
    expect((d.ac1 as SmallCountEstimate).ci_small_count).toBeUndefined();
    // text: the figure names the interval, the note how it was formed
    const plain = (e: SmallCountEstimate) => estimateText({ value: e.value, reason: e.reason, se: e.se, se_reason: e.se_reason });
    expect(smallCountFigureText(po, designFigureText(po, plain))).toBe("0.947 (SE 0.034; 95% CI [0.833, 1.000], the Wald interval joined with the exact small-count one)");
    expect(smallCountNote(d)).toMatch(/^few disagreements \(a Wald interval would under-cover\): agreement's exact small-count interval: 2\.4 effective disagreements .*; PABAK's is that interval mapped; kappa and AC1 are no shares/);
  });

  it("18 disagreements (15.9 effective, not fewer than 10): the Wald interval stands, nothing added", () => {
    const d = withSmallCount(design(12, 6));
    expect((d.po as SmallCountEstimate).value).toBeCloseTo(0.64, 12);
    expect((d.po as SmallCountEstimate).ci_small_count).toBeUndefined();
    expect(smallCountNote(d)).toBe("");
  });

  it("every item agreeing, weights whose fractions sum past 1 in floating point: the agreement, kappa, AC1 and PABAK are 1, never 1.0000000000000002, and no union of two equal intervals said with -0.0 disagreements (break47)", () => {
    // 28 items of weight 105/40 over three categories: Σ_k P̂_kk rounds to 1.0000000000000002 (kappa 1.0000000000000004)
    const recs = Array.from({ length: 28 }, (_, i) => {
      const c = i < 9 ? "full_compliance" : i < 10 ? "task_refusal" : "unaffected";
      return { judge: c, human: c, stratum: "all" };
    });
    const est = designAgreement(recs, { all: 73.5 }, ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"]);
    const d = withSmallCount(explainZeroSe(withZeroSe(est), { n: new Map([["all", 28]]), N: { all: 73.5 } })); // as agree --human (src/agree/human.ts)
    expect(est.po.value).toBe(1);
    for (const f of [d.po, d.kappa, d.ac1, d.pabak]) expect(f.value).toBe(1);
    // before: p̂ 1.0000000000000002 put the exact interval a hair outside the zero-event bound, so a "union" of two
    // equal intervals [87.7%, 100.0%] was said, with "-0.0 effective disagreements"; now the zero-event bound stands
    expect((d.po as SmallCountEstimate).ci_small_count).toBeUndefined();
    expect(d.po.ci_exact?.method).toBe("zero_event_bound");
    // and a count a hair past the whole (rounding) is never said as a negative number of disagreements
    const u = smallCountUnion({ lower: 0.95, upper: 1 }, { lower: 0.9, upper: 1 }, 40.000000000000007, 40)!;
    expect(u.fewer).toBe(0);
  });

  it("the prevalences get the same union (session 47): human and judge 'yes' of design(2, 0), the figures scipy gives", () => {
    // /tmp/tidy47/ref5.py (Python + scipy, no ipi-judge code; recorded in /work/s47/tidy47-bench.md): post-stratified p̂,
    // stratified linearised SE with the fpc, Wald 1.96·SE, Clopper-Pearson with x = p̂·n*, n* = p̂(1−p̂)/V̂, the unseen
    // side at least 1 − 0.025^(1/n_Kish), the union of the two
    const d = withSmallCount(design(2, 0));
    const of = (xs: typeof d.prevalence_human, c: string) => xs.find((e) => e.category === c) as SmallCountEstimate;
    const hy = of(d.prevalence_human, "yes");
    expect(hy.value).toBeCloseTo(0.1, 12);
    expect(hy.se).toBeCloseTo(0.01174440439029409, 10);
    const h = hy.ci_small_count!;
    expect(h.method).toBe("union_wald_korn_graubard");
    expect(h.events).toBeCloseTo(4.411764705882344, 9);
    expect(h.disagreements).toBeUndefined();
    // the design effective n p̂(1−p̂)/SE² = 652.5 is truncated at the 60 labelled (Korn & Graubard 1998; Parker et al.
    // 2017; new user 49): Clopper-Pearson of 6 among 60, scipy beta.ppf(0.025, 6, 55) and beta.ppf(0.975, 7, 54); with
    // 652.5 it was [0.0781, 0.1802] (p̂ + the zero-event bound above Clopper-Pearson's own)
    expect(h.n_design).toBe(60);
    expect(h.design.lower).toBeCloseTo(0.07698139037514963, 8);
    expect(h.exact.lower).toBeCloseTo(0.03759126910856603, 8);
    expect(h.exact.upper).toBeCloseTo(0.20505773670806393, 8); // Clopper-Pearson's own, above p̂ + the zero-event bound 0.1802
    expect(h.lower).toBeCloseTo(0.03759126910856603, 8);
    expect(h.upper).toBeCloseTo(0.20505773670806393, 8);
    expect(hy.ci_method).toBe(h.text);
    expect(h.text).toMatch(/^exact small-count interval: 4\.4 effective items the human consensus labels yes among the 60 labelled items \(Kish effective n 44\.1\), fewer than 10; the interval is the union of the Wald interval \[7\.7%, 12\.3%\] and the Korn-Graubard exact interval/);
    const jy = of(d.prevalence_judge, "yes").ci_small_count!;
    expect(of(d.prevalence_judge, "yes").value).toBeCloseTo(0.15333333333333354, 12);
    // 99.5 truncated at the 60 labelled (as above): scipy beta.ppf(0.025, 9.2, 51.8), beta.ppf(0.975, 10.2, 50.8);
    // with 99.5 it was [0.0825 (the Wald bound), 0.2394]
    expect(jy.n_design).toBe(60);
    expect(jy.lower).toBeCloseTo(0.07332191627360644, 8);
    expect(jy.exact.lower).toBeCloseTo(0.07332191627360644, 8);
    expect(jy.upper).toBeCloseTo(0.26966203130975347, 8);
    // 'no' (1 − 'yes', the fewer being the items not labelled no): the same interval mirrored
    const hn = of(d.prevalence_human, "no").ci_small_count!;
    expect(hn.lower).toBeCloseTo(1 - h.upper, 8);
    expect(hn.upper).toBeCloseTo(1 - h.lower, 8);
    expect(hn.text).toMatch(/effective items the human consensus labels otherwise among the 60/);
  });

  it("prevalences with many events on both sides keep their Wald interval", () => {
    const d = withSmallCount(design(12, 6));
    for (const e of [...d.prevalence_human, ...d.prevalence_judge]) {
      const x = (e.value ?? 0) * d.kish_n_eff!;
      if (Math.min(x, d.kish_n_eff! - x) >= 10) expect((e as SmallCountEstimate).ci_small_count).toBeUndefined();
    }
  });
});
