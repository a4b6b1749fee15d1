/**
 * Issue 27, "one rule, one place" for the design-based figures: `agree --human` (designAgreement) and `estimate`
 * (domainAsr) give the same SE on the same strata (one stratified-variance function: a census stratum adds 0),
 * the calibrated interval is the clipped unclipped interval, a group whose sample shows no disagreement gets a
 * real interval with its method named, and the prediction used for unusable verdicts is the one reported.
 */
import { describe, expect, it } from "vitest";
import { calibratedInterval, domainAsr, type DomainUnit, type LabelledItem } from "../../src/estimate/calibrated.js";
import { designAgreement } from "../../src/stats/weighted.js";
import { studentTQuantile } from "../../src/stats/distributions.js";

describe("one stratified variance for agree --human and estimate", () => {
  // stratum A is a census (N_A = 1, its one trajectory labelled); stratum B is sampled (4 of 10)
  const human: Record<string, boolean> = { a1: true, b1: true, b2: false, b3: false, b4: true };
  const judge: Record<string, boolean> = { a1: true, b1: true, b2: false, b3: true, b4: false };
  const cell = (id: string) => (id.startsWith("a") ? "A" : "B");
  const sizes = { A: 1, B: 10 };
  const ids = ["a1", ...Array.from({ length: 10 }, (_, i) => `b${i + 1}`)];

  it("a census stratum with one labelled item adds no variance in both (agree --human said SE null)", () => {
    const cats = ["compromised", "not_compromised"];
    const lab = (x: boolean) => (x ? "compromised" : "not_compromised");
    const agree = designAgreement(
      Object.keys(human).map((id) => ({ judge: lab(judge[id]), human: lab(human[id]), stratum: cell(id) })),
      sizes,
      cats,
    );
    const domain: DomainUnit[] = ids.map((id) => ({ id, judge: judge[id] ?? false }));
    const labelled: LabelledItem[] = Object.keys(human).map((id) => ({ id, cell: cell(id), human: human[id] }));
    const est = domainAsr(domain, labelled, new Map(Object.entries(sizes)), { minSampled: 1 });
    const prev = agree.prevalence_human[0];
    expect(prev.value).toBeCloseTo(est.human.asr!, 12);
    expect(prev.se).not.toBeNull();
    expect(est.human.se).not.toBeNull();
    expect(prev.se!).toBeCloseTo(est.human.se!, 12);
    // without the fpc the one-item census stratum has no variance: that SE alone is null, with its reason
    expect(prev.se_no_fpc).toBeNull();
    expect(prev.se_no_fpc_reason).toMatch(/^stratum_n_lt_2/);
  });
});

describe("the calibrated interval", () => {
  it("is the unclipped interval clipped: judge term 0.02, correction -0.20, SE 0.05 -> [0, 0] (was [0, 0.101])", () => {
    const q = studentTQuantile(0.975, 40);
    const r = calibratedInterval(0.02, -0.2, 0.05, q);
    expect(r.estimate).toBe(0);
    expect(r.ci95).toEqual({ lower: 0, upper: 0 });
    // inside [0, 1] nothing changes
    const mid = calibratedInterval(0.3, 0.05, 0.02, q);
    expect(mid.ci95.lower).toBeCloseTo(0.35 - q * 0.02, 14);
    expect(mid.ci95.upper).toBeCloseTo(0.35 + q * 0.02, 14);
  });

  it("a group whose sample shows no disagreement gets a real interval, with the method named", () => {
    const ids = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const domain: DomainUnit[] = ids.map((id, i) => ({ id, judge: i % 4 === 0 }));
    // 20 labelled items, the humans agree with the judge on every one
    const labelled: LabelledItem[] = ids.slice(0, 20).map((id, i) => ({ id, cell: "c", human: i % 4 === 0 }));
    const r = domainAsr(domain, labelled, new Map([["c", 40]]));
    expect(r.calibrated.se).toBe(0);
    expect(r.calibrated.asr).toBeCloseTo(0.25, 14);
    const ci = r.calibrated.ci95!;
    expect(ci.upper - ci.lower).toBeGreaterThan(0.1);
    expect(ci.lower).toBeLessThan(0.25);
    expect(ci.upper).toBeGreaterThan(0.25);
    expect(r.calibrated.ci_method).toMatch(/Clopper-Pearson/);
    expect(r.calibrated.degenerate).toBeUndefined();
    // 0 disagreements among 20: the two-sided 95% Clopper-Pearson upper bound 1 - 0.025^(1/20)
    const bound = 1 - Math.pow(0.025, 1 / 20);
    expect(ci.upper).toBeCloseTo(0.25 + bound, 12);
    expect(ci.lower).toBeCloseTo(0.25 - bound, 12);
  });
});

describe("the prediction for unusable verdicts", () => {
  it("is the number used: with no usable judge verdict in the group it is 0 (said), not null", () => {
    const ids = Array.from({ length: 12 }, (_, i) => `t${i}`);
    const domain: DomainUnit[] = ids.map((id) => ({ id, judge: null }));
    const labelled: LabelledItem[] = ids.map((id, i) => ({ id, cell: "c", human: i < 3 }));
    const r = domainAsr(domain, labelled, new Map([["c", 24]]));
    expect(r.calibrated.prediction_for_unusable).toBe(0);
    expect(r.calibrated.judge_term).toBe(0);
    // every prediction the same constant: the calibrated estimate is the human-only one
    expect(r.calibrated.asr).toBeCloseTo(r.human.asr!, 14);
    expect(r.calibrated.prediction_note).toMatch(/no usable judge verdict/);
  });
});
