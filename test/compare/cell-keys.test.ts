import { describe, expect, it } from "vitest";
import { cellId, lowExposureCells } from "../../src/compare/analysis.js";
import { pooledExposureLowWarnings } from "../../src/agree/exposure-groups.js";
import type { Verdict } from "../../src/types.js";

describe("a name holding ' | ' does not merge two (model, condition) groups (red team 25)", () => {
  it("compare: the flagged cells are keyed apart", () => {
    const cells = [
      { model: "a | b", condition: "c", suite: null, exposure_low: true },
      { model: "a", condition: "b | c", suite: null, exposure_low: false },
    ] as unknown as Parameters<typeof lowExposureCells>[0];
    const low = lowExposureCells(cells);
    expect(low.has(cellId("a | b", "c"))).toBe(true);
    expect(low.has(cellId("a", "b | c"))).toBe(false);
  });

  it("agree: the unexposed group is named, not pooled with the exposed one", () => {
    const v = (agent_model: string, condition: string, label: string, i: number) =>
      ({ judge_id: "j", status: "ok", label, agent_model, condition, trajectory_id: `${agent_model}/${condition}/${i}` }) as unknown as Verdict;
    const used = [
      ...Array.from({ length: 20 }, (_, i) => v("a | b", "c", "not_exposed", i)),
      ...Array.from({ length: 20 }, (_, i) => v("a", "b | c", "unaffected", i)),
    ];
    const w = pooledExposureLowWarnings(used, ["j"]);
    expect(w).toHaveLength(1);
    expect(w[0]).toContain("pool 2 (agent model, condition) groups, 1 of them EXPOSURE LOW");
    expect(w[0]).toContain("a | b | c 0/20 exposed");
  });
});

describe("a '/' in a suite or task id does not make two tasks one like-for-like cell (red team 36 M2)", () => {
  it("suite s/t with user task u and suite s with user task t/u are different cells", async () => {
    const { cellKey } = await import("../../src/compare/cells.js");
    const a = cellKey({ suite: "s/t", user_task_id: "u", injection_task_id: "i", attack: "x" }, "condition");
    const b = cellKey({ suite: "s", user_task_id: "t/u", injection_task_id: "i", attack: "x" }, "condition");
    expect(a).not.toBe(b);
  });
});

describe("a suite named (all) is a suite, not the pooled figure (fix50b)", () => {
  it("asrTable: the suite's cell and the pooled cell (suite null) are tallied apart", async () => {
    const { asrTable } = await import("../../src/compare/analysis.js");
    const o = (suite: string, goal: boolean) => ({ model: "m", condition: "c", suite, goal, compromised: goal, blocked: false, exposed: true }) as never;
    const cells = asrTable([o("(all)", true), o("(all)", true), o("s1", false)]);
    expect(cells.map((c) => [c.suite, c.asr_goal.count, c.asr_goal.n])).toEqual([
      ["(all)", 2, 2],
      ["s1", 0, 1],
      [null, 2, 3],
    ]);
  });
});
