import { describe, expect, it } from "vitest";
import { cellText } from "../../src/estimate/table.js";

const cell = (coverage_low: boolean) => ({ value: 0.05, ci95: { lower: 0.009, upper: 0.236 }, coverage_low });

describe("estimate --table's exposure cell (red team 24b L4: `LOW EXPOSURE LOW`)", () => {
  it("says which LOW is the coverage's when a cell carries both marks", () => {
    expect(cellText(cell(true), true, true)).toBe("5.0 [0.9, 23.6] LOW coverage; EXPOSURE LOW");
    expect(cellText(cell(false), true, true)).toBe("5.0 [0.9, 23.6] EXPOSURE LOW");
    expect(cellText(cell(true), true, false)).toBe("5.0 [0.9, 23.6] LOW");
    expect(cellText(null, true, true)).toBe(" EXPOSURE LOW");
  });

  it("a withheld or undefined exposure cell still says EXPOSURE LOW after its reason", () => {
    expect(cellText(cell(true), false, true)).toBe("coverage_low EXPOSURE LOW");
    expect(cellText({ value: null, reason: "no_labelled_attacked", ci95: null }, false, true)).toMatch(/^undefined \(.*\) EXPOSURE LOW$/);
  });
});
