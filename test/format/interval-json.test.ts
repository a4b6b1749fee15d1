import { describe, expect, it } from "vitest";
import { intervalsForJson } from "../../src/format/interval-json.js";
import { writeJson } from "../../src/io/json-stream.js";
import { cohenKappaFromLabels } from "../../src/stats/index.js";

const wald = (lower: number, upper: number, degenerate: boolean) => ({ lower, upper, lower_clipped: lower, upper_clipped: upper, level: 0.95, method: "wald_normal", degenerate });
const written = (v: unknown) => {
  const parts: string[] = [];
  writeJson(v, (s) => parts.push(s), { objects: intervalsForJson });
  return JSON.parse(parts.join(""));
};

describe("intervalsForJson (new-user report 31, L3: undefined is not zero)", () => {
  it("an interval with SE 0 is null with reason se_zero; another loses only its always-false flag; nested ones too", () => {
    const out = written({ kappa: { value: 1, se: 0, ci_wald: wald(1, 1, true), ci_t: wald(1, 1, true), ci_t_reason: "kept" }, ac1: { value: 0.5, ci_wald: wald(0.2, 0.8, false) } });
    expect(out.kappa).toEqual({ value: 1, se: 0, ci_wald: null, ci_t: null, ci_t_reason: "kept", ci_wald_reason: "se_zero" });
    expect(out.ac1.ci_wald).toEqual({ lower: 0.2, upper: 0.8, lower_clipped: 0.2, upper_clipped: 0.8, level: 0.95, method: "wald_normal" });
    expect(JSON.stringify(out)).not.toMatch(/degenerate"/);
  });

  it("leaves objects without an interval as they are (the same object), and a look-alike without a method", () => {
    const o = { lower: 1, upper: 1, degenerate: true, x: { ci95: { lower: 0, upper: 1 } } };
    expect(intervalsForJson(o)).toBe(o);
    expect(written([{ c: { lower: 1, upper: 1, degenerate: true } }])).toEqual([{ c: { lower: 1, upper: 1, degenerate: true } }]);
  });

  it("a perfect-agreement Cohen's kappa from the statistics library: its flag kept there, null + se_zero in JSON", () => {
    const k = cohenKappaFromLabels(["a", "b", "a", "b"], ["a", "b", "a", "b"], ["a", "b"]);
    expect(k.ci_wald?.degenerate).toBe(true);
    expect(written({ kappa: { value: k.value, se: k.se, ci_wald: k.ci_wald } }).kappa).toMatchObject({ value: 1, se: 0, ci_wald: null, ci_wald_reason: "se_zero" });
  });
});
