/**
 * FEW ITEMS beyond `agree --reference` (new user 44 item 1, session 45): a 2 x 2 kappa on a category a rater used 1-4
 * times is as fragile between two judges (`agree --judges`, `committee` pairwise) and against the human consensus
 * (`agree --human --scale binary`), all of which go through compareTwoRatersTable and formatTwoRater.
 */
import { describe, expect, it } from "vitest";
import { compareTwoRaters, formatTwoRater, judgeConcordance } from "../../src/agree/pairwise.js";
import { FEW_IN_CATEGORY } from "../../src/stats/few-in-category.js";

const rep = (x: string, n: number) => Array.from({ length: n }, () => x);
const BIN = ["compromised", "not_compromised"];

describe("compareTwoRaters: few_in_category on a 2 x 2 table", () => {
  it("1/0/0/359: kappa 1.000 rests on one item; JSON few_in_category, text FEW ITEMS with the kappa one label gives", () => {
    const a = [...rep("compromised", 1), ...rep("not_compromised", 359)];
    const c = compareTwoRaters(a, [...a], BIN, { names: ["judge x", "human consensus"] });
    expect(c.kappa.value).toBeCloseTo(1, 12);
    expect(c.few_in_category).toMatchObject({ fewest: 1 });
    expect(c.few_in_category!.kappa_one_changed).toBeCloseTo(0, 3);
    const text = formatTwoRater(c, "  ").join("\n");
    expect(text).toContain("  FEW ITEMS: kappa rests on few items: a category was used 1 time (human consensus compromised 1, not_compromised 359; judge x compromised 1, not_compromised 359; fewer than 5)");
    expect(text).toContain("read the counts named here (the table: --json confusion), not the coefficient");
  });
  it("a judge against the human consensus on every item (kappa -1.000): the line says where one label takes it, not undefined (stats55 finding 2)", () => {
    const h = [...rep("compromised", 3), ...rep("not_compromised", 3)];
    const j = [...rep("not_compromised", 3), ...rep("compromised", 3)];
    const c = compareTwoRaters(j, h, BIN, { names: ["judge x", "human consensus"] });
    expect(c.kappa.value).toBeCloseTo(-1, 12);
    expect(c.few_in_category!.kappa_one_changed).toBeCloseTo(-2 / 3, 12);
    const text = formatTwoRater(c, "  ").join("\n");
    expect(text).toContain("so one label the other way can take kappa to -0.667;");
    expect(text).not.toMatch(/FEW ITEMS.*undefined/);
  });
  it("every category used 5 times or more: nothing said; 4 times: said", () => {
    const five = [...rep("compromised", FEW_IN_CATEGORY), ...rep("not_compromised", 50)];
    expect(compareTwoRaters(five, [...five], BIN).few_in_category).toBeUndefined();
    const four = [...rep("compromised", FEW_IN_CATEGORY - 1), ...rep("not_compromised", 50)];
    expect(compareTwoRaters(four, [...four], BIN).few_in_category?.fewest).toBe(4);
  });
  it("a category never used is the one-category case, not this one; a six-bucket (q x q) table is not flagged", () => {
    const none = rep("not_compromised", 20);
    const c = compareTwoRaters(none, [...none], BIN);
    expect(c.few_in_category).toBeUndefined();
    const six = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
    const s = [...rep("full_compliance", 1), ...rep("unaffected", 30), ...rep("not_exposed", 30)];
    expect(compareTwoRaters(s, [...s], six).few_in_category).toBeUndefined();
  });
});

describe("agree --judges: the concordance of two judges says it too", () => {
  it("one compromise both found among 30: FEW ITEMS in text, few_in_category in JSON", () => {
    const ids = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const v = (judge: string) => ids.map((id, i) => ({ trajectory_id: id, judge_id: judge, repeat: 0, status: "ok", label: i === 0 ? "full_compliance" : "unaffected" }));
    const c = judgeConcordance([...v("a"), ...v("b")], ids, ["a", "b"]);
    expect(c.comparison.few_in_category?.fewest).toBe(1);
    expect(formatTwoRater(c.comparison).join("\n")).toMatch(/FEW ITEMS: kappa rests on few items: a category was used 1 time \(b compromised 1, not_compromised 29; a compromised 1/);
  });
});
