/**
 * est53 #1: a calibrated value with no interval is UNSTABLE in the CSV too, in columns (src/estimate/table-csv-unstable.ts).
 */
import { describe, expect, it } from "vitest";
import { unstableCsvCell, unstableCsvCells, unstableCsvHeader } from "../../src/estimate/table-csv-unstable.js";

const wc = { largest_share: 0.118, stratum: "A|x", stratum_N: 40, stratum_n: 1, kish_n_eff: 8.1, n: 24 };

describe("the CSV's UNSTABLE columns", () => {
  it("header after <col>_reason", () => {
    expect(unstableCsvHeader("calibrated_asr_goal")).toEqual(["calibrated_asr_goal_unstable", "calibrated_asr_goal_largest_weight_share", "calibrated_asr_goal_largest_weight_stratum", "calibrated_asr_goal_kish_n_eff", "calibrated_asr_goal_n_labelled", "calibrated_asr_goal_outside_tie_readings"]);
  });
  it("no interval: true and the weight check; an interval: false and empty weights; no value or withheld: all empty", () => {
    expect(unstableCsvCells({ value: 0.35, ci95: null, weight_check: wc })).toEqual(["true", 0.118, "A|x", 8.1, 24, "false"]);
    expect(unstableCsvCells({ value: 0.35, ci95: { lower: 0.2, upper: 0.5 } })).toEqual(["false", "", "", "", "", "false"]);
    expect(unstableCsvCells({ value: null, ci95: null })).toEqual(["", "", "", "", "", ""]);
    expect(unstableCsvCells(null)).toEqual(["", "", "", "", "", ""]);
    expect(unstableCsvCells({ value: 0.35, ci95: null, weight_check: wc }, true)).toEqual(["", "", "", "", "", ""]);
    // no interval and no weight check recorded: still UNSTABLE, the weights empty (never a plain number)
    expect(unstableCsvCells({ value: 0.35, ci95: null })).toEqual(["true", "", "", "", "", "false"]);
    // outside its ties' readings (fixa54): true whatever its interval, as LaTeX's $^\sharp$ and the text's mark
    expect(unstableCsvCells({ value: 0.156, ci95: null, human_ties: { calibrated_outside: true } })[5]).toBe("true");
    expect(unstableCsvCells({ value: 0.2, ci95: { lower: 0.1, upper: 0.3 }, human_ties: { calibrated_outside: true } })[5]).toBe("true");
    expect(unstableCsvCell({ value: 0.35, ci95: null, weight_check: wc }, "kish_n_eff")).toBe(8.1);
    expect(unstableCsvCell({ value: 0.35, ci95: null, weight_check: wc }, "other")).toBe("");
  });
});
