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

describe("two raters with no category in common (fixM 1)", () => {
  const cats = ["a", "b", "c", "d"];
  // each rater uses two categories, never the other's: p_o = 0 and p_e = 0, kappa 0 with SE 0
  const x = ["a", "b", "a", "b", "a", "a"];
  const y = ["c", "d", "d", "c", "c", "d"];

  it("kappa is 0 by construction with the note no_shared_category, not an SE-0 reason about the diagonal", () => {
    const c = compareTwoRaters(x, y, cats, { ...boot, weights: "linear" });
    expect(c.kappa).toMatchObject({ value: 0, po: 0, pe: 0, note: "no_shared_category" });
    const text = formatTwoRater(c).join("\n");
    expect(text).toMatch(/Cohen's kappa 0\.000 \(0 by construction: the two raters never used a category in common .*observed and chance agreement are both 0/);
    expect(text).not.toMatch(/Cohen's kappa[^\n]*every item on the diagonal/);
    // a weighted kappa gives partial credit off the diagonal: it is no 0 by construction and keeps no note
    expect(c.weighted_kappa?.note).toBeUndefined();
    expect(c.weighted_kappa?.pe).toBeGreaterThan(0);
  });

  it("a rater with one category keeps its own note (said first)", () => {
    const c = compareTwoRaters(["a", "a", "a"], ["c", "d", "c"], cats);
    expect(c.kappa.note).toBe("a_rater_one_category");
  });
});
