/**
 * Cases from public bug reports (test/data/cases): B16 (every rating in one category) and B04 (judge errors
 * are never labels and never counted in kappa).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUCKETS } from "../../src/types.js";
import { cohenKappa, cohenKappaFromLabels, confusionMatrix, pairLabels, percentAgreement } from "../../src/stats/index.js";
import { CASES } from "../helpers/paths.js";

const load = (f: string) => JSON.parse(fs.readFileSync(path.join(CASES, f), "utf8"));
const cats = [...BUCKETS];

describe("B16: kappa when every rating falls in one category", () => {
  const input = load("B16.json").cases;
  const expected = load("B16.expected.json");

  it("all_same: kappa null with reason, p_o = p_e = 1, never NaN in JSON", () => {
    const c = input.all_same;
    const r = cohenKappaFromLabels(c.judge, c.human, cats);
    expect(r.value).toBeNull();
    expect(r.reason).toBe(expected.all_same.kappa_status);
    expect(r.po).toBe(expected.all_same.percent_agreement);
    expect(r.pe).toBe(expected.all_same.expected_agreement);
    expect(percentAgreement(r.table).value).toBe(expected.all_same.percent_agreement);
    const json = JSON.stringify(r);
    expect(json).not.toMatch(/NaN|Infinity/);
    expect(JSON.parse(json).value).toBeNull();
    expect(r.value).not.toBe(1);
    expect(r.value).not.toBe(0);
  });

  it("one_rater_constant: kappa exactly 0 (not undefined), degenerate CI flagged", () => {
    const c = input.one_rater_constant;
    const r = cohenKappaFromLabels(c.judge, c.human, cats);
    expect(r.value).toBe(expected.one_rater_constant.kappa);
    expect(r.po).toBeCloseTo(expected.one_rater_constant.percent_agreement, 15);
    expect(r.pe).toBeCloseTo(expected.one_rater_constant.expected_agreement, 15);
    expect(r.reason).toBeUndefined();
    expect(r.se).toBe(0);
    expect(r.flags).toContain("degenerate_ci");
    expect(r.z).toBeNull();
  });
});

describe("B04: judge_error is never a label and never counted in kappa", () => {
  const input = load("B04.json").kappa_input;
  const expected = load("B04.expected.json");

  it("pairLabels drops the JUDGE_ERROR pair and counts it by reason", () => {
    const p = pairLabels(input.judge, input.human, { categories: cats });
    expect(p.n_total).toBe(expected.kappa.n_total);
    expect(p.n_used).toBe(expected.kappa.n_used);
    expect(p.n_excluded).toBe(expected.kappa.n_excluded);
    expect(p.excluded).toEqual(expected.kappa.excluded_reasons);
  });

  it("kappa and percent agreement on the 5 usable pairs", () => {
    const r = cohenKappaFromLabels(input.judge, input.human, cats);
    expect(r.n).toBe(expected.kappa.n_used);
    expect(r.n_total).toBe(expected.kappa.n_total);
    expect(r.excluded).toEqual(expected.kappa.excluded_reasons);
    expect(r.po).toBeCloseTo(expected.kappa.percent_agreement, 12);
    expect(Math.abs((r.value as number) - expected.kappa.kappa)).toBeLessThanOrEqual(0.00005);
    // kappa on (judge, human) and (human, judge) agree
    const s = cohenKappaFromLabels(input.human, input.judge, cats);
    expect(s.value).toBeCloseTo(r.value as number, 14);
  });

  it("the wrong answers are not what we compute", () => {
    const r = cohenKappaFromLabels(input.judge, input.human, cats);
    const wrong = expected.wrong_values_to_avoid;
    // reproduce both mistakes, to show they are the mistakes the vector names
    const asCategory = cohenKappa(confusionMatrix(input.judge, input.human, [...cats, "JUDGE_ERROR"]).table).value as number;
    const asNoInjection = cohenKappa(
      confusionMatrix(input.judge.map((x: string) => (x === "JUDGE_ERROR" ? "not_exposed" : x)), input.human, cats).table,
    ).value as number;
    expect(asCategory).toBeCloseTo(wrong.error_as_own_category, 4);
    expect(asNoInjection).toBeCloseTo(wrong.error_mapped_to_no_injection, 4);
    expect(r.value).not.toBeCloseTo(asCategory, 3);
    expect(r.value).not.toBeCloseTo(asNoInjection, 3);
  });

  it("a JUDGE_ERROR passed straight to the table builder throws (it is not a category)", () => {
    expect(() => confusionMatrix(input.judge, input.human, cats)).toThrow(/JUDGE_ERROR/);
  });
});
