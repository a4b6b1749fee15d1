/**
 * API behaviour beyond the vectors: empty input, a single item, all ratings missing, declared categories
 * nobody used, invalid input (errors thrown), clipping and degenerate intervals, JSON-ability (no NaN), and
 * the distribution functions against R values.
 */
import { describe, expect, it } from "vitest";
import {
  agreementWeights,
  brennanPrediger,
  brennanPredigerRaw,
  cohenKappa,
  cohenKappaFromLabels,
  confusionMatrix,
  congerKappa,
  designAgreement,
  encodeLabels,
  fleissKappa,
  fleissKappaGeneralized,
  gwetAC1,
  gwetAC1Raw,
  horvitzThompsonWeights,
  inclusionProbabilities,
  kishEffectiveN,
  krippendorffAlpha,
  krippendorffAlphaGwet,
  krippendorffAlphaRatings,
  normalCdf,
  normalQuantile,
  normalUpperTail,
  pairLabels,
  percentAgreement,
  percentAgreementRaw,
  postStratifiedWeights,
  ratingCounts,
  scottPi,
  studentTQuantile,
  studentTUpperTail,
  transpose,
  weightedAgreement,
  weightedConfusion,
  weightsFromDistances,
  withMarginals,
  wilsonInterval,
} from "../../src/stats/index.js";

/** Every number in a result is finite and the JSON round trip is lossless. */
function expectJsonClean(x: unknown): void {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "number") expect(Number.isFinite(v), `${path} = ${v}`).toBe(true);
    else if (Array.isArray(v)) v.forEach((e, i) => walk(e, `${path}[${i}]`));
    else if (v && typeof v === "object") for (const [k, e] of Object.entries(v)) walk(e, `${path}.${k}`);
  };
  walk(x, "$");
  expect(JSON.parse(JSON.stringify(x))).toEqual(x);
}

const CATS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

describe("empty input", () => {
  const z6 = CATS.map(() => CATS.map(() => 0));
  it("every coefficient is null with empty_input, never 0 or 1", () => {
    const results = [
      cohenKappa(z6),
      cohenKappa(z6, { weights: "quadratic" }),
      percentAgreement(z6),
      gwetAC1(z6),
      brennanPrediger(z6),
      scottPi(z6),
      fleissKappa([]),
      percentAgreementRaw([]),
      gwetAC1Raw([]),
      fleissKappaGeneralized([]),
      brennanPredigerRaw([]),
      krippendorffAlphaGwet([]),
    ];
    for (const r of results) {
      expect(r.value).toBeNull();
      expect(r.reason).toBe("empty_input");
      expectJsonClean(r);
    }
    expect(krippendorffAlpha([]).reason).toBe("no_pairable_units");
    const w = weightedAgreement([], [], [], CATS);
    expect(w.kappa.value).toBeNull();
    expect(w.kappa.reason).toBe("empty_input");
    expectJsonClean(w);
  });
  it("labels: empty arrays give n = 0 and empty_input", () => {
    const r = cohenKappaFromLabels([], [], CATS);
    expect(r).toMatchObject({ value: null, reason: "empty_input", n: 0, n_total: 0 });
  });
});

describe("single item", () => {
  it("two raters: same label undefined, different labels 0 with SE undefined", () => {
    const same = cohenKappaFromLabels(["unaffected"], ["unaffected"], CATS);
    expect(same.value).toBeNull();
    expect(same.reason).toBe("undefined_single_category");
    const diff = cohenKappaFromLabels(["unaffected"], ["not_exposed"], CATS);
    expect(diff.value).toBe(0);
    expect(diff.se).toBeNull();
    expect(diff.se_reason).toBe("n_lt_2");
    expect(diff.ci_wald).toBeNull();
    expect(percentAgreement(diff.table)).toMatchObject({ value: 0, se: null, se_reason: "n_lt_2" });
    expectJsonClean(diff);
  });
  it("many raters: one item gives a value but no SE", () => {
    const r = gwetAC1Raw([[2, 1, 0]]);
    expect(r.value).not.toBeNull();
    expect(r.se).toBeNull();
    expect(r.se_reason).toBe("n_lt_2");
    const f = fleissKappa([[2, 1, 0]]);
    expect(f.n).toBe(1);
    expectJsonClean(f);
  });
});

describe("all ratings missing", () => {
  it("pairLabels keeps nothing and counts every pair", () => {
    const p = pairLabels([null, "JUDGE_ERROR", undefined], ["unaffected", null, "judge_refused"], { categories: CATS });
    expect(p.n_used).toBe(0);
    expect(p.excluded).toEqual({ missing: 2, judge_error: 1 });
    const k = cohenKappaFromLabels([null, null], [null, "unaffected"], CATS);
    expect(k).toMatchObject({ value: null, reason: "empty_input", n_total: 2, n_excluded: 2 });
  });
  it("multi-rater rows with no rating are dropped and counted", () => {
    const counts = ratingCounts(
      [
        [null, null, null],
        [null, null, null],
      ],
      CATS,
    );
    const r = gwetAC1Raw(counts);
    expect(r).toMatchObject({ value: null, reason: "empty_input", n_dropped_unrated: 2 });
    expect(krippendorffAlphaRatings([[null, null]], CATS).reason).toBe("no_pairable_units");
    // one rating per item: nothing pairable
    expect(percentAgreementRaw(ratingCounts([["unaffected", null], [null, "not_exposed"]], CATS)).reason).toBe("no_pairable_units");
  });
});

describe("declared categories nobody used", () => {
  const a = ["unaffected", "unaffected", "not_exposed", "full_compliance", "not_exposed", "unaffected", "not_exposed"];
  const b = ["unaffected", "not_exposed", "not_exposed", "full_compliance", "not_exposed", "unaffected", "unaffected"];
  const used = ["full_compliance", "unaffected", "not_exposed"];
  it("kappa, its SEs and alpha do not change; AC1 and BP do", () => {
    const t3 = confusionMatrix(a, b, used).table;
    const t6 = confusionMatrix(a, b, CATS).table;
    const k3 = cohenKappa(t3);
    const k6 = cohenKappa(t6);
    expect(k6.value).toBeCloseTo(k3.value!, 14);
    expect(k6.se).toBeCloseTo(k3.se!, 14);
    expect(k6.se0).toBeCloseTo(k3.se0!, 14);
    expect(krippendorffAlphaRatings(transpose([a, b]), CATS).value).toBeCloseTo(krippendorffAlphaRatings(transpose([a, b]), used).value!, 14);
    expect(gwetAC1(t6).value).not.toBeCloseTo(gwetAC1(t3).value!, 3);
    expect(brennanPrediger(t6).value).not.toBeCloseTo(brennanPrediger(t3).value!, 3);
  });
  it("confusion matrix keeps zero rows/columns and marginals", () => {
    const cm = confusionMatrix(a, b, CATS);
    expect(cm.table.length).toBe(6);
    expect(cm.row_totals[1]).toBe(0);
    expect(cm.col_totals[2]).toBe(0);
    expect(cm.n).toBe(7);
    expect(cm.row_prevalence!.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 14);
  });
  it("Fleiss: unchanged by an empty column; the unused category's kappa is null with a reason", () => {
    const counts = [
      [2, 1],
      [0, 3],
      [3, 0],
      [1, 2],
    ];
    const withEmpty = counts.map((r) => [...r, 0]);
    expect(fleissKappa(withEmpty).value).toBeCloseTo(fleissKappa(counts).value!, 14);
    expect(fleissKappa(withEmpty).per_category[2]).toMatchObject({ value: null, reason: "category_unused" });
    expect(fleissKappa(withEmpty).randolph.value).not.toBeCloseTo(fleissKappa(counts).randolph.value!, 3);
  });
});

describe("invalid input throws", () => {
  it("tables", () => {
    expect(() => cohenKappa([[1, 2], [3]])).toThrow(/ragged|non-square/);
    expect(() => cohenKappa([[1, 2, 3], [3, 4, 5]])).toThrow(/ragged|non-square/);
    expect(() => cohenKappa([[1, -1], [0, 2]])).toThrow(/non-negative/);
    expect(() => cohenKappa([[1, Number.NaN], [0, 2]])).toThrow(/finite/);
    expect(() => cohenKappa([])).toThrow(/no categories/);
    expect(() => fleissKappa([[1, 2], [1]])).toThrow(/ragged/);
    expect(() => fleissKappa([[1, 0], [1, 0]])).toThrow(/at least 2 ratings/);
  });
  it("labels and categories", () => {
    expect(() => confusionMatrix(["a"], ["z"], ["a", "b"])).toThrow(/"z" outside the declared categories/);
    expect(() => confusionMatrix(["a"], ["a", "b"], ["a", "b"])).toThrow(/different numbers/);
    expect(() => encodeLabels(["a"], ["a", "a"])).toThrow(/duplicate/);
    expect(() => encodeLabels(["a"], [])).toThrow(/at least one/);
    expect(() => ratingCounts([["a", "q"]], ["a"])).toThrow(/outside/);
    // no implicit string/number coercion
    expect(() => confusionMatrix([1], ["1"], [1, 2])).toThrow(/outside/);
  });
  it("weights", () => {
    expect(() => cohenKappa([[1, 0], [0, 1]], { weights: [[1, 0.5], [0.5, 0.9]] })).toThrow(/diagonal/);
    expect(() => cohenKappa([[1, 0], [0, 1]], { weights: [[1, 2], [0, 1]] })).toThrow(/outside \[0, 1\]/);
    expect(() => cohenKappa([[1, 0], [0, 1]], { weights: [[1, 0, 0]] })).toThrow(/2 x 2/);
    expect(() => weightsFromDistances([1, 1, 1])).toThrow(/constant/);
    expect(() => agreementWeights(0, "unweighted")).toThrow();
  });
  it("multi-rater and design", () => {
    expect(() => congerKappa([["a", "b"], ["a"]], ["a", "b"])).toThrow(/same number of rater columns/);
    expect(() => postStratifiedWeights(["A", "X"], { A: 10 })).toThrow(/"X"/);
    expect(() => postStratifiedWeights(["A", "A", "A"], { A: 2 })).toThrow(/N_h = 2/);
    expect(() => horvitzThompsonWeights([0.5, 0])).toThrow(/π\[1\]/);
    expect(() => inclusionProbabilities({ N: 10, N_D: 20, n1: 1, n2: 1, variant: "independent" })).toThrow();
    expect(() => weightedConfusion(["a"], ["a"], [-1], ["a", "b"])).toThrow(/weight\[0\]/);
    expect(() => krippendorffAlpha([[1, 1]], { metric: "interval" })).toThrow(/values/);
  });
});

describe("intervals: clipping, degenerate flag, irrCAC t variant", () => {
  it("a Wald interval past 1 keeps the raw bound and clips the display bound", () => {
    const r = cohenKappa([
      [9, 1],
      [0, 3],
    ]);
    expect(r.ci_wald!.upper).toBeGreaterThan(1);
    expect(r.ci_wald!.upper_clipped).toBe(1);
    expect(r.ci_wald!.lower_clipped).toBe(r.ci_wald!.lower);
    expect(r.ci_wald!.degenerate).toBe(false);
    expect(r.ci_t!.method).toBe("student_t");
    expect(r.ci_t!.df).toBe(12);
    expect(r.ci_t!.upper - r.value!).toBeCloseTo((r.se as number) * studentTQuantile(0.975, 12), 12);
  });
  it("perfect agreement: ASE 0, degenerate [1, 1], flagged", () => {
    const r = cohenKappa([
      [3, 0],
      [0, 2],
    ]);
    expect(r).toMatchObject({ value: 1, se: 0, flags: ["degenerate_ci"] });
    expect(r.ci_wald).toMatchObject({ lower: 1, upper: 1, degenerate: true });
  });
  it("Wilson interval of 0/n and n/n: the bound at 0 or 1 exactly, no float residue (new user 32: 5.55e-17 for 0/3)", () => {
    for (const n of [1, 2, 3, 7, 10, 1000]) {
      expect(wilsonInterval(0, n).lower).toBe(0);
      expect(wilsonInterval(1, n).upper).toBe(1);
    }
  });
  it("Wilson interval (x = 6, n = 10)", () => {
    const w = wilsonInterval(0.6, 10);
    expect(w.lower).toBeCloseTo(0.312674, 5);
    expect(w.upper).toBeCloseTo(0.831820, 5);
    const pa = percentAgreement([
      [3, 1],
      [3, 3],
    ]);
    expect(pa.ci_wilson).toEqual(w);
    expect(pa.ci_wald!.lower_clipped).toBeGreaterThanOrEqual(0);
  });
  it("custom weight matrix equal to linear gives the linear kappa; marginals helper", () => {
    const t = [
      [5, 2, 0],
      [1, 4, 2],
      [0, 1, 6],
    ];
    const lin = cohenKappa(t, { weights: "linear" });
    const cus = cohenKappa(t, { weights: agreementWeights(3, "linear") });
    expect(cus.value).toBe(lin.value);
    expect(cus.weights).toBe("custom");
    expect(withMarginals(t, ["x", "y", "z"]).col_totals).toEqual([6, 7, 8]);
  });
});

describe("design-weighted estimates: edge behaviour", () => {
  it("a stratum with one sampled item: point estimates, SE null with a reason", () => {
    const r = designAgreement(
      [
        { judge: "comp", human: "comp", stratum: "A" },
        { judge: "not", human: "not", stratum: "A" },
        { judge: "comp", human: "not", stratum: "D" },
      ],
      { A: 50, D: 10 },
      ["comp", "not"],
    );
    expect(r.kappa.value).not.toBeNull();
    expect(r.kappa.se).toBeNull();
    expect(r.kappa.se_reason).toBe("stratum_n_lt_2");
    expect(r.weights_used).toBe("post_stratified");
    expectJsonClean(r);
  });
  it("zero total weight and a single category", () => {
    const z = weightedAgreement(["a"], ["a"], [0], ["a", "b"]);
    expect(z.kappa).toMatchObject({ value: null, reason: "zero_total_weight" });
    const one = weightedAgreement(["a", "a"], ["a", "a"], [1, 3], ["a", "b"]);
    expect(one.kappa).toMatchObject({ value: null, reason: "undefined_single_category" });
    expect(one.ac1.value).toBe(1);
    expect(one.pabak.value).toBe(1);
  });
  it("Kish effective n", () => {
    expect(kishEffectiveN([1, 1, 1, 1])).toBe(4);
    expect(kishEffectiveN([])).toBeNull();
    expect(kishEffectiveN([3, 1])).toBeCloseTo(16 / 10, 14);
  });
});

describe("distribution functions (R reference values)", () => {
  it("normal", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 13);
    expect(normalQuantile(0.995)).toBeCloseTo(2.5758293035489, 12);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 10);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316301, 15);
    expect(normalUpperTail(10) / 7.61985302416047e-24).toBeCloseTo(1, 10);
  });
  it("Student t", () => {
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228138851986274, 10);
    expect(studentTQuantile(0.025, 3)).toBeCloseTo(-3.182446305284263, 10);
    expect(studentTUpperTail(2.5, 5)).toBeCloseTo(0.027245050, 8);
    expect(studentTUpperTail(-1, 7)).toBeCloseTo(0.8246917, 7);
    expect(studentTUpperTail(0, 4)).toBeCloseTo(0.5, 15);
  });
});
