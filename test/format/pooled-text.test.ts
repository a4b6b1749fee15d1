import { describe, expect, it } from "vitest";
import { poolingOf } from "../../src/format/pooled-text.js";

describe("poolingOf: what a run-wide figure pools (review, session 15)", () => {
  const rows = [
    { attacked: true, agent_model: "b", condition: "tool_filter" },
    { attacked: true, agent_model: "a", condition: "repeat_user_prompt" },
    { attacked: true, agent_model: "a", condition: "tool_filter" },
    { attacked: false, agent_model: "c", condition: "no_defense" },
  ];
  it("names the agent models and conditions of the attacked trajectories, sorted, and says the figure is over all of them", () => {
    const p = poolingOf(rows, "the figures", "--where condition=... for one");
    expect(p.agent_models).toEqual(["a", "b"]);
    expect(p.conditions).toEqual(["repeat_user_prompt", "tool_filter"]);
    expect(p.text).toBe(
      "the figures pool the 3 attacked trajectories of 2 agent models (a, b) and 2 conditions (repeat_user_prompt, tool_filter): one figure over all of them, not per model or condition (--where condition=... for one)",
    );
  });
  it("one model and one condition: named, without the 'one figure over all' words; no condition recorded is said", () => {
    expect(poolingOf([rows[1]], "x").text).toBe("x pool the 1 attacked trajectories of 1 agent model (a) and 1 condition (repeat_user_prompt)");
    expect(poolingOf([{ attacked: true }], "x").text).toBe("x pool the 1 attacked trajectories of 1 agent model ((none)) and no recorded condition");
  });
  it("runs without a condition or suite beside runs with one are named (none), never dropped (new user 35: '1 condition (no_defense)' over 54 runs with none)", () => {
    const p = poolingOf([{ attacked: true, agent_model: "a", condition: "no_defense", suite: "s" }, { attacked: true, agent_model: "a" }], "x");
    expect(p.conditions).toEqual(["(none)", "no_defense"]);
    expect(p.suites).toEqual(["(none)", "s"]);
    expect(p.text).toBe("x pool the 2 attacked trajectories of 1 agent model (a) and 2 conditions ((none), no_defense), over 2 suites ((none), s): one figure over all of them, not per model, condition or suite");
  });
  it("attackedOnly false counts every row; more than six names are cut with a count", () => {
    expect(poolingOf(rows, "x", "", false).agent_models).toEqual(["a", "b", "c"]);
    const many = Array.from({ length: 8 }, (_, i) => ({ attacked: true, agent_model: `m${i}` }));
    expect(poolingOf(many, "x").text).toContain("8 agent models (m0, m1, m2, m3, m4, m5, ... 2 more)");
  });
});
