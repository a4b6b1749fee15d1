/**
 * One rendering of undefined and degenerate statistics everywhere (src/format/stat-text.ts). Before, the same
 * degenerate kappa read "kappa 0.000 (SE 0.000), 95% Wald CI [0.000, 0.000]" in one command and "n/a" or "null"
 * in others.
 */
import { describe, expect, it } from "vitest";
import { bootstrapLine, ciText, estimateText, pctText, ppText, statText } from "../../src/format/stat-text.js";
import { compareTwoRaters, formatTwoRater } from "../../src/agree/pairwise.js";
import { formatReferenceAgreement, referenceAgreement } from "../../src/agree/reference.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

describe("format", () => {
  it("undefined values, intervals and degenerate intervals read 'undefined (why)'", () => {
    expect(statText(null, "undefined_single_category")).toBe("undefined (every rating is in one category, so chance agreement is 1)");
    expect(statText(0.41234)).toBe("0.412");
    expect(statText(Number.NaN)).toBe("undefined (no value)");
    expect(pctText(null, "empty_input")).toBe("undefined (no item to compare)");
    expect(ciText({ lower: 0, upper: 0, lower_clipped: 0, upper_clipped: 0, degenerate: true })).toMatch(/^undefined \(its standard error is 0/);
    expect(ciText({ lower: null, upper: null, reason: "all_resamples_undefined" })).toBe("undefined (undefined on every bootstrap resample)");
    expect(estimateText({ value: null, reason: "empty_input", se: null })).toBe("undefined (no item to compare)");
    // the classic Fleiss' kappa's SE reason reads as words, not its code (new user 30, L10)
    expect(estimateText({ value: 0.847, se: null, se_reason: "use_fleissKappaGeneralized_for_nonnull_se" })).toBe(
      "0.847 (SE undefined (Fleiss, Nee & Landis's (1979) SE holds only under the null of chance agreement, so it gives no interval: see the generalised Fleiss' kappa's))",
    );
  });
  it("a constant rater: kappa 0 with SE 0 shows its interval as undefined, never [0.000, 0.000], in every text output", () => {
    // judge always "no", reference mixed: kappa = 0, SE = 0, the Wald interval collapses to a point
    const c = compareTwoRaters(["n", "n", "n", "n"], ["y", "n", "n", "y"], ["y", "n"]);
    expect(c.kappa.value).toBe(0);
    const text = formatTwoRater(c).join("\n");
    expect(text).not.toMatch(/\[0\.000, 0\.000\]|n\/a|null/);
    // a constant rater makes kappa 0 whatever the other does: said as such, never a bare 0.000 (red team 30, M5)
    expect(text).toMatch(/Cohen's kappa 0\.000 \(0 by construction: a rater gave one category only, so kappa is 0 whatever the other does: it measures nothing here; no interval\)/);
    const index = new Map<string, TrajectoryIndexRow>();
    const verdicts: Verdict[] = [];
    ["a", "b", "c", "d"].forEach((id, i) => {
      index.set(id, { id, attacked: true, reference: { security: i % 3 === 0 } } as TrajectoryIndexRow);
      verdicts.push({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: "unaffected" } as Verdict);
    });
    const r = referenceAgreement("j", verdicts, index);
    expect(r.kappa).toBe(0);
    expect(r.kappa_ci95).toBeNull();
    expect(r.kappa_ci95_reason).toBe("rater_one_category");
    const rt = formatReferenceAgreement(r);
    expect(rt).not.toMatch(/\[0\.000, 0\.000\]|n\/a|null/);
    expect(rt).toMatch(/Cohen's kappa 0\.000 \(0 by construction: the rater gave one category only, so kappa is 0 whatever the reference says: it measures nothing here; no interval\)/);
  });
  it("an undefined kappa reads the same in the reference and the pairwise outputs", () => {
    const c = compareTwoRaters(["y", "y"], ["y", "y"], ["y", "n"]);
    expect(formatTwoRater(c).join("\n")).toContain("Cohen's kappa undefined (every rating is in one category, so chance agreement is 1)");
    const index = new Map<string, TrajectoryIndexRow>([["a", { id: "a", attacked: true, reference: { security: false } } as TrajectoryIndexRow]]);
    const r = referenceAgreement("j", [{ trajectory_id: "a", judge_id: "j", repeat: 0, status: "ok", label: "unaffected" } as Verdict], index);
    expect(formatReferenceAgreement(r)).toContain("Cohen's kappa undefined (every rating is in one category, so chance agreement is 1)");
  });
});

describe("bootstrapLine", () => {
  it("names B, seed and the method as the committee report does, then what the intervals are; none with B 0", () => {
    expect(bootstrapLine({ B: 2000, seed: 1 })).toBe("bootstrap: B 2000, seed 1 (percentile, pure-rand xoroshiro128+)");
    expect(bootstrapLine({ B: 300, seed: 5 }, "the CIs resample the items")).toBe("bootstrap: B 300, seed 5 (percentile, pure-rand xoroshiro128+): the CIs resample the items");
    expect(bootstrapLine({ B: 0, seed: 5 }, "nothing has an interval")).toBe("bootstrap: none (--bootstrap 0): nothing has an interval");
  });
});

describe("ppText: a difference of two rates", () => {
  it("reads in percentage points, never as a percent (new-user report 16, finding 8)", () => {
    expect(ppText(0.1 - 0.064)).toBe("3.6 pp");
    expect(ppText(null, "no_oracle_gain")).toBe(pctText(null, "no_oracle_gain"));
  });
});

describe("never -0.000; a zero-width interval of a statistic that measures nothing is none (new user 19)", () => {
  it("values that round to zero from below print as 0", () => {
    expect(statText(-1e-17)).toBe("0.000");
    expect(statText(-0)).toBe("0.000");
    expect(statText(-0.0004)).toBe("0.000");
    expect(statText(-0.0006)).toBe("-0.001");
    expect(pctText(-1e-9)).toBe("0.0%");
    expect(ppText(-1e-9)).toBe("0.0 pp");
    expect(ciText({ lower: -1e-12, upper: 0.5 })).toBe("[0.000, 0.500]");
    expect(estimateText({ value: -1e-17, se: 0 })).toBe("0.000 (SE 0)");
  });
  it("one category: kappa's bootstrap bounds stay in the JSON with reason no_variation, the text says none", () => {
    // the human consensus all not_compromised (cols), the judge says compromised on 2 of 15: kappa 0 on every resample
    const judge = [...Array(2).fill("c"), ...Array(13).fill("n")];
    const human = Array(15).fill("n");
    const c = compareTwoRaters(judge, human, ["c", "n"], { names: ["judge", "human"], bootstrap: { B: 200, seed: 1 }, reference: "cols" });
    expect(c.one_category).toBeDefined();
    expect(c.kappa.ci_bootstrap).toMatchObject({ lower: 0, upper: 0, reason: "no_variation" });
    const text = formatTwoRater(c).join("\n");
    // the text says why there is no interval: kappa is 0 by construction (red team 30, M5)
    expect(text).toContain("Cohen's kappa 0.000 (0 by construction: the reference gave one category only, so kappa is 0 whatever the rater does: it measures nothing here; no interval)");
    expect(text).not.toContain("[0.000, 0.000]");
    expect(text).not.toContain("-0.000");
    // variation: the interval is printed, no reason added
    const v = compareTwoRaters(["c", "n", "c", "n", "n"], ["c", "n", "n", "c", "n"], ["c", "n"], { bootstrap: { B: 200, seed: 1 } });
    expect(v.kappa.ci_bootstrap?.reason).toBeUndefined();
    expect(formatTwoRater(v).join("\n")).toMatch(/bootstrap CI \[/);
  });
});

describe("droppedResamplesText: bootstrap resamples left out as undefined (stats55 finding 3)", () => {
  it("says the count and share, nothing when none, nothing again when the reason says all were", async () => {
    const { droppedResamplesText } = await import("../../src/format/stat-text.js");
    expect(droppedResamplesText({ B: 2000, undefined_resamples: 138 })).toBe("138 of 2000 resamples (6.9%) undefined, left out");
    expect(droppedResamplesText({ B: 2000, undefined_resamples: 1 })).toBe("1 of 2000 resamples (0.05%) undefined, left out");
    expect(droppedResamplesText({ B: 2000, undefined_resamples: 0 })).toBe("");
    expect(droppedResamplesText({ B: 10, undefined_resamples: 10, reason: "all_resamples_undefined" })).toBe("");
    expect(estimateText({ value: 0.545, ci_bootstrap: { lower: 0, upper: 1, B: 2000, seed: 12345, undefined_resamples: 145 } })).toBe(
      "0.545 (bootstrap CI [0.000, 1.000] (B=2000, seed 12345; 145 of 2000 resamples (7.3%) undefined, left out))",
    );
  });
});
