/**
 * break2_53 #5: a `--by` group the like-for-like cut emptied (Llama / no_defense / slack: 315 runs, all on cells its
 * model's other condition never ran) read "the group has no trajectory"; its figures now give the cut as the reason.
 */
import { describe, expect, it } from "vitest";
import { EMPTIED_BY_CUT, withCutReason } from "../../src/estimate/group-cells.js";
import { reasonText } from "../../src/format/stat-text.js";

describe("withCutReason", () => {
  const group = () => ({ judge: { rate: null, reason: "empty_group" }, human: { rate: null, reason: "no_labelled_item_in_group" }, parts: [{ reason: "empty_group" }] });
  it("a group the cut emptied: every empty_group reason names the cut; other reasons stay", () => {
    const g = withCutReason(group(), { kept: 0, left_out: 315 });
    expect(g.judge.reason).toBe(EMPTIED_BY_CUT);
    expect(g.parts[0].reason).toBe(EMPTIED_BY_CUT);
    expect(g.human.reason).toBe("no_labelled_item_in_group");
    expect(reasonText(EMPTIED_BY_CUT)).toMatch(/^every run of the group is on cells its model's other conditions did not run: the like-for-like cut left none/);
  });
  it("a group cut in part, or not cut: unchanged", () => {
    expect(withCutReason(group(), { kept: 3, left_out: 315 })).toEqual(group());
    expect(withCutReason(group(), undefined)).toEqual(group());
  });
});
