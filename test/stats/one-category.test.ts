/**
 * Review 16 item 1: AC1 and PABAK read 1.000 beside an undefined kappa when the reference (or both raters) gave one
 * category only; the output says there that they say nothing about discrimination, in text and JSON.
 */
import { describe, expect, it } from "vitest";
import { oneCategory } from "../../src/stats/one-category.js";
import { formatReferenceAgreement, referenceFromPairs } from "../../src/agree/reference.js";
import { compareTwoRaters, formatTwoRater } from "../../src/agree/pairwise.js";

describe("oneCategory", () => {
  it("the reference (columns) one category: said, whether the rater varies or not", () => {
    expect(oneCategory([[60, 0], [0, 0]], ["yes", "no"], "cols")?.raters).toBe("both");
    expect(oneCategory([[50, 0], [10, 0]], ["yes", "no"], "cols")?.raters).toBe("reference");
    expect(oneCategory([[50, 3], [10, 7]], ["yes", "no"], "cols")).toBeNull();
    expect(oneCategory([[0, 0], [0, 0]], ["yes", "no"], "cols")).toBeNull();
  });
  it("two peers: only both raters one category is said", () => {
    expect(oneCategory([[50, 0], [10, 0]], ["yes", "no"])).toBeNull();
    expect(oneCategory([[0, 0], [0, 9]], ["yes", "no"])?.category).toBe("no");
  });
});

describe("agree --reference on a subset of successes (VIGIL: 60 labelled, all security=true)", () => {
  const ones = (n: number) => new Uint8Array(n).fill(1);
  const a = referenceFromPairs(
    { judge_id: "j", n_total: 60, excluded: {}, judge_full: ones(60), judge_compromised: ones(60), reference: ones(60), reference_all: { yes: 125, n: 231 } },
    "security",
    (i) => `t${i}`,
    () => [],
  );
  it("AC1 1.000 and PABAK 1.000 beside undefined kappa are said to say nothing, in JSON and text", () => {
    expect(a.kappa).toBeNull();
    expect(a.ac1).toBe(1);
    expect(a.one_category?.raters).toBe("both");
    expect(a.binary.one_category?.category).toBe("yes");
    const text = formatReferenceAgreement(a);
    expect(text).toMatch(/AC1 1\.000; PABAK 1\.000\n  AC1 and PABAK SAY NOTHING HERE: the benchmark's security verdict and the rater gave one category only \(yes\)/);
  });
});

describe("two raters (agree --judges, a judge vs the human consensus)", () => {
  it("both raters one category: said beside AC1 and PABAK", () => {
    const c = compareTwoRaters(["no", "no", "no"], ["no", "no", "no"], ["yes", "no"]);
    expect(c.ac1.value).toBe(1);
    expect(formatTwoRater(c).join("\n")).toContain("AC1 and PABAK SAY NOTHING HERE: both raters gave one category only (no)");
  });
  it("the human consensus one category, the judge varied: said when the consensus is the reference", () => {
    const c = compareTwoRaters(["no", "yes", "no"], ["no", "no", "no"], ["yes", "no"], { names: ["j", "human consensus"], reference: "cols" });
    expect(c.one_category?.raters).toBe("reference");
    expect(compareTwoRaters(["no", "yes", "no"], ["no", "no", "no"], ["yes", "no"]).one_category).toBeUndefined();
  });
});
