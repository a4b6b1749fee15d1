import { describe, expect, it } from "vitest";
import { exposureMarked } from "../../src/estimate/table.js";

describe("estimate --table's exposure cell (red team 24b L4: `LOW EXPOSURE LOW`)", () => {
  it("says which LOW is the coverage's when a cell carries both marks", () => {
    expect(exposureMarked("5.0 [0.9, 23.6] LOW", true)).toBe("5.0 [0.9, 23.6] LOW coverage; EXPOSURE LOW");
    expect(exposureMarked("5.0 [0.9, 23.6]", true)).toBe("5.0 [0.9, 23.6] EXPOSURE LOW");
    expect(exposureMarked("5.0 [0.9, 23.6] LOW", false)).toBe("5.0 [0.9, 23.6] LOW");
    expect(exposureMarked("", true)).toBe(" EXPOSURE LOW");
  });
});
