import { describe, expect, it } from "vitest";
import { formatCellsDropped, groupsNoun, type CellCheck } from "../../src/compare/cells.js";

// nufix13b: `compare --by agent_model` said "conditions compared on the N cells" and "conditions 2" of models.
describe("compare: the compared groups are named by the --by field", () => {
  const check = (): CellCheck => ({
    mode: "common",
    applied: true,
    cell_fields: ["suite", "attack"],
    cells_per_condition: { m1: 3, m2: 2 },
    common_cells: 2,
    cells_dropped: { m1: { cells: 1, trajectories: 1, by_attack: { a: 1 }, by_suite: { s: 1 }, list: ["s/a"], per_model: {}, by_model: { x: { dropped: 1, of: 3 } } } },
    mixes_differ: true,
  });

  it("says conditions for --by condition and '<field> values' otherwise", () => {
    expect(groupsNoun("condition")).toBe("conditions");
    expect(groupsNoun("agent_model")).toBe("agent_model values");
    expect(formatCellsDropped(check(), "condition")[0]).toMatch(/^like-for-like: conditions compared on the 2 \(suite, attack\) cells/);
    const byModel = formatCellsDropped(check(), "agent_model");
    expect(byModel[0]).toMatch(/^like-for-like: agent_model values compared on the 2 \(suite, attack\) cells they all cover/);
    expect(byModel.join("\n")).not.toMatch(/conditions compared/);
    const none = { ...check(), cells_dropped: {} };
    expect(formatCellsDropped(none, "agent_model")).toEqual(["like-for-like: every agent_model covers the same 2 (suite, attack) cells; nothing dropped"]);
  });
});
