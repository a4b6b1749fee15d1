import { describe, expect, it } from "vitest";
import { utilitySubTableHtml } from "../../src/report/utility-html.js";
import { utilityTable } from "../../src/compare/utility.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const row = (id: string, model: string, condition: string, attacked: boolean, utility: boolean) =>
  ({ id, agent_model: model, condition, attacked, ...(attacked ? { attack: "ii" } : {}), reference: { utility } }) as unknown as TrajectoryIndexRow;
const prop = (p: { value: number | null; x?: number; n?: number } | null) => (p && p.value !== null ? `${(100 * p.value).toFixed(1)}% (${p.x}/${p.n})` : "undefined");
const cell = (x: number, n: number) => ({ value: x / n, ci95: null, x, n });

describe("utilitySubTableHtml: each row over its own runs, said, the paper table's like-for-like figure beside (break53 #1)", () => {
  // base: 4 attacked runs (3 pass), def: 2 (1 pass); like for like base is over 2 (1 pass): the sign of def's effect flips
  const cells = utilityTable([row("1", "m", "base", true, true), row("2", "m", "base", true, true), row("3", "m", "base", true, true), row("4", "m", "base", true, false), row("5", "m", "def", true, true), row("6", "m", "def", true, false)], "condition");
  const rows = [
    { agent_model: "m", condition: "base", utility_under_attack: cell(1, 2), utility: null },
    { agent_model: "m", condition: "def", utility_under_attack: cell(1, 2), utility: null },
  ];
  it("like for like: the heading says the rows are not, and a cut row shows the table's figure with its counts", () => {
    const h = utilitySubTableHtml(cells, { rows, likeForLike: true }, prop);
    expect(h).toContain("<h3>Utility per agent model and condition, each row over all its own runs (NOT like for like across conditions: the table above is)</h3>");
    expect(h).toContain("75.0% (3/4)<br><span class=\"over\">like for like (the table above): 50.0% (1/2)</span>");
    expect(h).toContain("its like-for-like figure is beside it (1 cell)");
    // def's row is over the same runs as the table's: no second figure
    expect(h.match(/like for like \(the table above\)/g)).toHaveLength(1);
  });
  it("--own-mix: the table's rows are over every run too, said, nothing beside; one condition: no sub-table", () => {
    const h = utilitySubTableHtml(cells, { rows, likeForLike: false }, prop);
    expect(h).toContain("as the rows of the table above are.");
    expect(h).not.toContain("like for like (the table above)");
    expect(utilitySubTableHtml(cells.slice(0, 1), { rows, likeForLike: true }, prop)).toBe("");
  });
});
