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
  });
  it("a constant rater: kappa 0 with SE 0 shows its interval as undefined, never [0.000, 0.000], in every text output", () => {
    // judge always "no", reference mixed: kappa = 0, SE = 0, the Wald interval collapses to a point
    const c = compareTwoRaters(["n", "n", "n", "n"], ["y", "n", "n", "y"], ["y", "n"]);
    expect(c.kappa.value).toBe(0);
    const text = formatTwoRater(c).join("\n");
    expect(text).not.toMatch(/\[0\.000, 0\.000\]|n\/a|null/);
    expect(text).toMatch(/Cohen's kappa 0\.000 \(SE 0, 95% Wald CI undefined \(its standard error is 0/);
    const index = new Map<string, TrajectoryIndexRow>();
    const verdicts: Verdict[] = [];
    ["a", "b", "c", "d"].forEach((id, i) => {
      index.set(id, { id, attacked: true, reference: { security: i % 3 === 0 } } as TrajectoryIndexRow);
      verdicts.push({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: "unaffected" } as Verdict);
    });
    const r = referenceAgreement("j", verdicts, index);
    expect(r.kappa).toBe(0);
    expect(r.kappa_ci95).toBeNull();
    expect(r.kappa_ci95_reason).toBe("se_zero");
    const rt = formatReferenceAgreement(r);
    expect(rt).not.toMatch(/\[0\.000, 0\.000\]|n\/a|null/);
    expect(rt).toMatch(/Cohen's kappa 0\.000, 95% Wald CI undefined \(its standard error is 0/);
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
