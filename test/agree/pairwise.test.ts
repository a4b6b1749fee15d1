/**
 * A zero-width percentile bootstrap interval is undefined with a reason, as the Wald CI beside it (red team 31 L1:
 * kappa 1.000 on 11 items printed "Wald CI undefined" beside "bootstrap CI [1.000, 1.000]").
 */
import { describe, expect, it } from "vitest";
import { compareTwoRaters, formatTwoRater } from "../../src/agree/pairwise.js";

const boot = { bootstrap: { B: 500, seed: 7 } };

describe("zero-width bootstrap intervals", () => {
  it("a perfect table: kappa 1, Wald CI undefined, bootstrap CI null with reason zero_width_bootstrap", () => {
    const a = [...Array(5).fill("full_compliance"), ...Array(5).fill("unaffected"), "partial_compliance"];
    const c = compareTwoRaters(a, [...a], ["full_compliance", "partial_compliance", "unaffected"], boot);
    expect(c.kappa.value).toBe(1);
    expect(c.kappa.ci_wald?.degenerate).toBe(true);
    expect(c.kappa.ci_bootstrap).toMatchObject({ lower: null, upper: null, reason: "zero_width_bootstrap" });
    const text = formatTwoRater(c).join("\n");
    expect(text).toMatch(/bootstrap CI undefined \(its percentiles coincide/);
    expect(text).not.toContain("[1.000, 1.000]");
  });

  it("an interval with width keeps its bounds", () => {
    const a = ["x", "y", "x", "y", "x", "y", "x", "x", "y", "y", "x", "y"];
    const b = ["x", "y", "y", "y", "x", "x", "x", "x", "y", "y", "y", "y"];
    const c = compareTwoRaters(a, b, ["x", "y"], boot);
    expect(c.kappa.ci_bootstrap!.lower).not.toBeNull();
    expect(c.kappa.ci_bootstrap!.lower!).toBeLessThan(c.kappa.ci_bootstrap!.upper!);
    expect(c.kappa.ci_bootstrap!.reason).toBeUndefined();
  });
});
