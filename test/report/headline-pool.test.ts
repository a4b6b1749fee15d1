import { describe, expect, it } from "vitest";
import { headlinePoolText } from "../../src/report/headline-pool.js";

const r = (agent_model: string, condition: string | null, n_attacked = 10) => ({ agent_model, condition, n_attacked });

describe("the report headline says what its figure pools (newuser55 #4)", () => {
  it("models x conditions, with the rows of the table it pools", () => {
    const rows = [r("a", "none"), r("a", "progent"), r("a", "drift"), r("b", "none"), r("b", "tool_filter")];
    expect(headlinePoolText(rows)).toBe(" (pooled over 5 agent model x condition rows of the table: 2 agent models x 4 conditions (defenses))");
  });
  it("one model, or one condition, or nothing pooled", () => {
    expect(headlinePoolText([r("a", "none"), r("a", "progent")])).toBe(" (pooled over 2 conditions (defenses) of agent model a)");
    expect(headlinePoolText([r("a", "none"), r("b", "none")])).toBe(" (pooled over 2 agent models, condition none)");
    expect(headlinePoolText([r("a", null), r("b", null)])).toBe(" (pooled over 2 agent models)");
    expect(headlinePoolText([r("a", "none")])).toBe("");
    expect(headlinePoolText([])).toBe("");
    // a row with no attacked run pools nothing
    expect(headlinePoolText([r("a", "none"), r("b", "none", 0)])).toBe("");
  });
});
