/**
 * A point estimate whose interval is undefined is marked, never printed bare like a sound one (newuser51 finding 1: a
 * calibrated 35.0% "CI undefined" stood as the report's headline, one labelled item of a stratum weighing 11.8 points).
 */
import { describe, expect, it } from "vitest";
import { designAsrText } from "../../src/estimate/format.js";
import { NO_INTERVAL_MARK } from "../../src/format/stat-text.js";

describe("designAsrText marks a value without an interval", () => {
  it("no interval: UNSTABLE before the value, the reason after", () => {
    const t = designAsrText({ asr: 0.354, se: null, ci95: null, ci_reason: "stratum_single_item", estimator: "x" });
    expect(t.startsWith(`${NO_INTERVAL_MARK} 35.4% CI undefined (`)).toBe(true);
  });
  it("an interval: no mark", () => {
    expect(designAsrText({ asr: 0.487, se: 0.05, ci95: { lower: 0.368, upper: 0.595 }, estimator: "x" })).toBe("48.7% [36.8, 59.5]");
  });
});

describe("the paper table's text cell marks a value without an interval too", () => {
  it("cellText", async () => {
    const { cellText } = await import("../../src/estimate/table.js");
    expect(cellText({ value: 0.354, ci95: null, ci_reason: "stratum_single_item" } as never)).toMatch(/^UNSTABLE \(no interval: do not quote alone\) 35\.4 CI undefined \(/);
    expect(cellText({ value: 0.5, ci95: { lower: 0.4, upper: 0.6 } } as never)).toBe("50.0 [40.0, 60.0]");
  });
});
