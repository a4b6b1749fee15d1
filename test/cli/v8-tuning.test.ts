import { describe, expect, it } from "vitest";
import { tuneCompilerForLabel } from "../../src/cli/v8-tuning.js";

describe("tuneCompilerForLabel", () => {
  it("keeps V8's default when IPI_TURBO_INLINING=1", () => {
    expect(tuneCompilerForLabel({ IPI_TURBO_INLINING: "1" })).toBe(false);
  });

  it("switches TurboFan inlining off otherwise (a compiler setting: results of code run after it are unchanged)", () => {
    const f = (xs: number[]) => xs.reduce((a, b) => a + b * 2, 0);
    const before = f([1, 2, 3]);
    expect(tuneCompilerForLabel({})).toBe(true);
    for (let i = 0; i < 2000; i++) expect(f([1, 2, 3])).toBe(before);
  });
});
