import { describe, expect, it } from "vitest";
import { endsAtPoint, intervalsLine } from "../../src/compare/index.js";

const ci = (lower: number | null, upper: number | null) => ({ lower, upper, level: 0.95, B: 2000, defined: 2000, seed: 1 });

describe("compare's intervals footnote (new user 24b: an interval ending at its point read as a fault)", () => {
  it("finds a reversal share whose percentile interval has a bound on the share (as printed, 0.1 percent)", () => {
    expect(endsAtPoint({ share: 0.5, ci95: ci(0, 0.5) })).toBe(true);
    expect(endsAtPoint({ share: 0.5, ci95: ci(0.5, 1) })).toBe(true);
    expect(endsAtPoint({ share: 0.5, ci95: ci(0.5004, 0.9) })).toBe(true);
    expect(endsAtPoint({ share: 0.5, ci95: ci(0.1, 0.9) })).toBe(false);
    expect(endsAtPoint({ share: 0.5, ci95: ci(null, null) })).toBe(false);
    expect(endsAtPoint({ share: 0.5, ci95: null })).toBe(false);
    expect(endsAtPoint({ share: null, ci95: ci(0, 0) })).toBe(false);
  });

  it("says why only when such an interval is printed", () => {
    const boot = { B: 2000, seed: 1 };
    expect(intervalsLine(boot, true)).toMatch(/; a reversal share over few model pairs takes few values, so its percentile interval can end exactly at the share itself \(e\.g\. 3\/6 \(50\.0%\) \[0\.0%, 50\.0%\]: at most 2\.5% of the resamples gave more than 50\.0%\): not an error$/);
    expect(intervalsLine(boot)).not.toContain("can end exactly");
    expect(intervalsLine({ B: 0, seed: 1 }, true)).not.toContain("can end exactly");
  });
});
