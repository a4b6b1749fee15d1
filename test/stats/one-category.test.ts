/**
 * Review 16 item 1: AC1 and PABAK read 1.000 beside an undefined kappa when the reference (or both raters) gave one
 * category only; the output says there that they say nothing about discrimination, in text and JSON.
 */
import { describe, expect, it } from "vitest";
import { kappaNote, oneCategory } from "../../src/stats/one-category.js";
import { formatReferenceAgreement, formatReferenceTable, referenceFromPairs } from "../../src/agree/reference.js";
import { compareTwoRaters, formatTwoRater, kappaCell } from "../../src/agree/pairwise.js";

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

describe("agree --reference where the benchmark gave one category and the judge both (new user 23: DRIFT, 6 of 360 compromised)", () => {
  const n = 360;
  const judge = new Uint8Array(n);
  for (let i = 0; i < 6; i++) judge[i] = 1;
  const a = referenceFromPairs(
    { judge_id: "j", n_total: n, excluded: {}, judge_full: new Uint8Array(n), judge_compromised: judge, reference: new Uint8Array(n), reference_all: { yes: 0, n } },
    "security",
    (i) => `t${i}`,
    () => [],
  );
  it("kappa stays 0 (its value) with kappa_note and the interval's reason naming the cause, not 'every item on the diagonal'", () => {
    expect(a.binary.kappa).toBe(0);
    expect(a.binary.kappa_note).toBe("reference_one_category");
    expect(a.binary.kappa_ci95).toBeNull();
    expect(a.binary.kappa_ci95_reason).toBe("reference_one_category");
    // both raters one category: kappa undefined, no note
    expect(a.kappa).toBeNull();
    expect(a.kappa_note).toBeUndefined();
  });
  it("the text says 0 by construction in the table and the block, never a bare 0.000", () => {
    expect(formatReferenceTable([a])).toMatch(/\b0\.000 \(0 by construction: see below\)/);
    const text = formatReferenceAgreement(a);
    expect(text).toContain("Cohen's kappa 0.000 (0 by construction: the reference gave one category only, so kappa is 0 whatever the rater does: it measures nothing here; no interval); percent agreement 98.3% over 360");
    expect(text).not.toContain("every item on the diagonal");
  });
  it("a reference with both categories: no note", () => {
    const ref = new Uint8Array(n);
    ref[0] = 1;
    const b = referenceFromPairs({ judge_id: "j", n_total: n, excluded: {}, judge_full: judge, judge_compromised: judge, reference: ref, reference_all: { yes: 1, n } }, "security", (i) => `t${i}`, () => []);
    expect(b.kappa).toBeGreaterThan(0);
    expect(b.kappa_note).toBeUndefined();
  });
});

describe("agree --reference: 0 by construction also when both sides are constant in different categories (red team 24)", () => {
  const n = 3;
  const a = referenceFromPairs(
    { judge_id: "j", n_total: n, excluded: {}, judge_full: new Uint8Array(n).fill(1), judge_compromised: new Uint8Array(n).fill(1), reference: new Uint8Array(n), reference_all: { yes: 0, n } },
    "security",
    (i) => `t${i}`,
    () => [],
  );
  it("the judge all yes, the benchmark all no: kappa 0 with the note; the one-category text names who gave which", () => {
    expect(a.kappa).toBe(0);
    expect(a.kappa_note).toBe("reference_one_category");
    expect(a.binary.kappa_note).toBe("reference_one_category");
    const text = formatReferenceAgreement(a);
    expect(text).toContain("gave one category only (the rater yes, the reference no) on these 3 items");
    expect(text).toContain("AC1 or PABAK here, high or low, is no evidence");
  });
});

describe("agree --reference rates: the exposure of the compared runs (red team 24)", () => {
  const n = 20;
  const ne = new Uint8Array(n).fill(1);
  ne[0] = 0;
  const mk = (notExposed?: Uint8Array) =>
    referenceFromPairs(
      { judge_id: "j", n_total: n, excluded: {}, judge_full: new Uint8Array(n), judge_compromised: new Uint8Array(n), ...(notExposed ? { judge_not_exposed: notExposed } : {}), reference: new Uint8Array(n), reference_all: { yes: 0, n } },
      "security",
      (i) => `t${i}`,
      () => [],
    );
  it("counted and flagged below 10%, said on the rates line; unknown when the pairs do not record it", () => {
    const a = mk(ne);
    expect(a.rates).toMatchObject({ not_exposed: 19, exposure_low: true });
    expect(formatReferenceAgreement(a)).toMatch(/rates over these 20: .*; exposure 5\.0% \(1\/20\) EXPOSURE LOW \(the injected text never reached the agent: .*the agreement figures below are over runs the attack did not reach\)/);
    expect(formatReferenceTable([a])).toMatch(/0\.0% vs 0\.0% EXPOSURE LOW \(1\/20 exposed: see below\)/);
    const b = mk();
    expect(b.rates).toMatchObject({ not_exposed: null, exposure_low: false });
    expect(formatReferenceAgreement(b)).not.toContain("exposure");
  });
});

describe("kappa 0 by construction, flagged alike whichever side gave one category (red team 30, M5)", () => {
  const n = 6;
  const half = new Uint8Array(n);
  for (let i = 0; i < 3; i++) half[i] = 1;
  const pairs = (judge: Uint8Array, ref: Uint8Array) =>
    referenceFromPairs({ judge_id: "j1", n_total: n, excluded: {}, judge_full: judge, judge_compromised: judge, reference: ref, reference_all: { yes: ref.reduce((a, b) => a + b, 0), n } }, "security", (i) => `t${i}`, () => []);
  // the h1 run: j1 labels everything full_compliance, the benchmark splits 3/3
  const judgeOne = pairs(new Uint8Array(n).fill(1), half);
  // its mirror: the judge splits 3/3, the benchmark says yes everywhere
  const refOne = pairs(half, new Uint8Array(n).fill(1));

  it("kappaNote: the reference's one category, the rater's, or a peer's; none when both vary or nothing is rated", () => {
    expect(kappaNote([[3, 3], [0, 0]], "cols")).toBe("rater_one_category");
    expect(kappaNote([[3, 0], [3, 0]], "cols")).toBe("reference_one_category");
    expect(kappaNote([[0, 3], [0, 0]], "cols")).toBe("reference_one_category"); // constant in different categories
    expect(kappaNote([[3, 3], [0, 0]])).toBe("a_rater_one_category");
    expect(kappaNote([[3, 0], [3, 0]])).toBe("a_rater_one_category");
    expect(kappaNote([[2, 1], [1, 2]], "cols")).toBeUndefined();
    expect(kappaNote([[0, 0], [0, 0]], "cols")).toBeUndefined();
  });

  it("kappaNote: two raters using two categories each, none in common: no_shared_category (p_o = p_e = 0)", () => {
    // rows (first rater) use a, b; columns (second) use c, d: every item off the diagonal
    const t = [
      [0, 0, 2, 1],
      [0, 0, 1, 3],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ];
    expect(kappaNote(t)).toBe("no_shared_category");
    expect(kappaNote(t, "cols")).toBe("no_shared_category");
    // one category in common: no note
    expect(kappaNote([[1, 0, 2], [0, 0, 1], [0, 0, 0]])).toBeUndefined();
  });

  it("agree --reference: the judge's one category gets the note, the interval's reason and the text the benchmark's gets", () => {
    for (const [a, note] of [[judgeOne, "rater_one_category"], [refOne, "reference_one_category"]] as const) {
      expect(a.kappa).toBe(0);
      expect(a.kappa_note).toBe(note);
      expect(a.binary.kappa_note).toBe(note);
      expect(a.kappa_ci95).toBeNull();
      expect(a.kappa_ci95_reason).toBe(note);
      expect(formatReferenceTable([a])).toMatch(/j1 +6 +0\.000 \(0 by construction: see below\) +0\.000 \(0 by construction: see below\)/);
    }
    expect(formatReferenceAgreement(judgeOne)).toContain(
      "Cohen's kappa 0.000 (0 by construction: the rater gave one category only, so kappa is 0 whatever the reference says: it measures nothing here; no interval); percent agreement 50.0% over 6",
    );
    expect(formatReferenceAgreement(judgeOne)).not.toMatch(/Cohen's kappa 0\.000,/);
  });

  it("two raters (a judge vs the human consensus, two annotators, two judges): the note on kappa and weighted kappa, the text says it, the bootstrap is no interval", () => {
    const judge = compareTwoRaters(["yes", "yes", "yes", "yes"], ["yes", "no", "yes", "no"], ["yes", "no"], { names: ["j", "human consensus"], reference: "cols", bootstrap: { B: 50, seed: 1 } });
    expect(judge.kappa.value).toBe(0);
    expect(judge.kappa.note).toBe("rater_one_category");
    expect(judge.kappa.ci_bootstrap?.reason).toBe("no_variation");
    expect(formatTwoRater(judge).join("\n")).toContain("Cohen's kappa 0.000 (0 by construction: the rater gave one category only, so kappa is 0 whatever the reference says: it measures nothing here; no interval)");
    const consensus = compareTwoRaters(["yes", "no", "yes", "no"], ["no", "no", "no", "no"], ["yes", "no"], { reference: "cols" });
    expect(consensus.kappa.note).toBe("reference_one_category");
    const peers = compareTwoRaters(["a", "b", "c"], ["a", "a", "a"], ["a", "b", "c"], { weights: "linear" });
    expect(peers.kappa.note).toBe("a_rater_one_category");
    expect(peers.weighted_kappa?.value).toBe(0);
    expect(peers.weighted_kappa?.note).toBe("a_rater_one_category");
    expect(formatTwoRater(peers).join("\n")).toContain("weighted kappa (linear) 0.000 (0 by construction: a rater gave one category only");
    expect(kappaCell(peers.kappa)).toBe("0.000 (0 by construction)");
    // both vary: no note, the usual line
    const both = compareTwoRaters(["yes", "no", "yes", "no"], ["yes", "no", "no", "no"], ["yes", "no"]);
    expect(both.kappa.note).toBeUndefined();
    expect(formatTwoRater(both).join("\n")).not.toContain("by construction");
    // both the same one category: kappa undefined, no note
    expect(compareTwoRaters(["no", "no"], ["no", "no"], ["yes", "no"]).kappa.note).toBeUndefined();
  });
});
