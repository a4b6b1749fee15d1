import { describe, expect, it } from "vitest";
import { humanScope, humanScopeText } from "../../src/report/human-scope.js";

describe("humanScope (new-user report 31, item 7: report --where said 'human labels on 85 trajectories' when it kept 19)", () => {
  const h = { items: 85, excluded_items: { outside_where: 66, consensus_tie: 1 } };
  it("counts the labelled trajectories inside --where, and of how many", () => {
    expect(humanScope(h, true)).toEqual({ items: 85, in_where: 19 });
    expect(humanScopeText(h, true, "human.jsonl")).toBe("19 trajectories inside --where (of the 85 labelled in human.jsonl)");
  });
  it("without --where: every labelled trajectory, as before", () => {
    expect(humanScope(h, false)).toEqual({ items: 85, in_where: 85 });
    expect(humanScopeText({ items: 1200, excluded_items: {} }, false)).toBe("1,200 trajectories");
  });
});
