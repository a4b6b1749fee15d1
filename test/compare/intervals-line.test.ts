import { describe, expect, it } from "vitest";
import { endsAtPoint, intervalsLine } from "../../src/compare/index.js";

const ci = (lower: number | null, upper: number | null) => ({ lower, upper, level: 0.95, B: 2000, defined: 2000, seed: 1 });

describe("compare's intervals footnote (new user 24b: an interval ending at its point read as a fault)", () => {
  it("finds a reversal share whose printed interval has a bound equal to the printed share, away from 0% and 100%", () => {
    expect(endsAtPoint({ share: 0.5, ci95: ci(0, 0.5) })).toBe(true);
    expect(endsAtPoint({ share: 0.5, ci95: ci(0.5, 1) })).toBe(true);
    expect(endsAtPoint({ share: 0.5, ci95: ci(0.5004, 0.9) })).toBe(true); // both print 50.0%
    expect(endsAtPoint({ share: 1 / 3, ci95: ci(0.1, 0.334) })).toBe(false); // 33.3% against 33.4%
    expect(endsAtPoint({ share: 1 / 35, ci95: ci(1 / 34, 0.2) })).toBe(true); // both print 2.9%
    expect(endsAtPoint({ share: 0.5, ci95: ci(0.1, 0.9) })).toBe(false);
    expect(endsAtPoint({ share: 0, ci95: ci(0, 0.3) })).toBe(false); // the scale's floor
    expect(endsAtPoint({ share: 1, ci95: ci(0.7, 1) })).toBe(false); // its ceiling
    expect(endsAtPoint({ share: 0.5, ci95: ci(null, 0.5) })).toBe(false); // no interval printed
    expect(endsAtPoint({ share: 0.5, ci95: ci(null, null) })).toBe(false);
    expect(endsAtPoint({ share: 0.5, ci95: null })).toBe(false);
    expect(endsAtPoint({ share: null, ci95: ci(0, 0) })).toBe(false);
  });

  it("says why only when such an interval is printed, on one of the printed figures, naming its end", () => {
    const boot = { B: 2000, seed: 1 };
    expect(intervalsLine(boot, { reversals: 3, pairs: 6, share: 0.5, ci95: ci(0, 0.5) })).toMatch(
      /; a reversal share over few model pairs takes few values, so its percentile interval can end exactly at the share itself \(e\.g\. 3\/6 \(50\.0%\) \[0\.0%, 50\.0%\]: at most 2\.5% of the resamples gave more than 50\.0%, counting those with a model pair observed under both conditions\): not an error$/,
    );
    expect(intervalsLine(boot, { reversals: 1, pairs: 10, share: 0.1, ci95: ci(0.1, 0.2) })).toContain("(e.g. 1/10 (10.0%) [10.0%, 20.0%]: at most 2.5% of the resamples gave less than 10.0%");
    expect(intervalsLine(boot)).not.toContain("can end exactly");
    expect(intervalsLine({ B: 0, seed: 1 }, { reversals: 3, pairs: 6, share: 0.5, ci95: ci(0, 0.5) })).not.toContain("can end exactly");
  });
});
