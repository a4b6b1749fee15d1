import { describe, expect, it } from "vitest";
import { utilityDrops, utilityDropWarning } from "../../src/compare/utility-drop.js";
import type { UtilityCell, UtilityRate } from "../../src/compare/utility.js";
import { wilsonInterval } from "../../src/stats/confusion.js";

function rate(passed: number, n: number): UtilityRate {
  if (n === 0) return { rate: null, reason: "no_attacked_trajectories", passed, n, missing: 0, ci95: null };
  const ci = wilsonInterval(passed / n, n);
  return { rate: passed / n, passed, n, missing: 0, ci95: { lower: ci.lower, upper: ci.upper, method: "wilson" } };
}
const cell = (model: string, condition: string, att: [number, number], un: [number, number]): UtilityCell => ({
  model,
  condition,
  under_attack: rate(...att),
  without_attack: rate(...un),
  injection_task_runs: rate(0, 0),
  excluded: { injection_task_runs: 0 },
});

describe("utility drops against the baseline (new user 33: a defense that breaks the agent ranks safest)", () => {
  it("names a condition whose utility fell to under half the baseline's with the intervals apart, each kind apart", () => {
    const u = [
      cell("m", "no_defense", [208, 360], [21, 40]),
      cell("m", "tool_filter", [13, 360], [3, 40]),
      cell("m", "spotlighting", [190, 360], [20, 40]),
    ];
    const d = utilityDrops(u, "no_defense");
    expect(d.map((x) => [x.condition, x.kind])).toEqual([["tool_filter", "under_attack"], ["tool_filter", "without_attack"]]);
    expect(d[0].rate).toBeCloseTo(13 / 360, 12);
    expect(d[0].baseline_rate).toBeCloseTo(208 / 360, 12);
    const w = utilityDropWarning(d)!;
    expect(w).toContain("m under tool_filter under attack 3.6% (13/360) against 57.8% (208/360) under no_defense");
    expect(w).toContain("without attack 7.5% (3/40) against 52.5% (21/40)");
    expect(w).toContain("(95% Wilson intervals apart; over the cells compared, as the rows)");
    expect(w).not.toContain("spotlighting");
  });
  it("says the population it is over: --all-cells's every run, beside paired differences over the shared cells (fixa54)", () => {
    const d = utilityDrops([cell("m", "no_defense", [4058, 6775], [67, 97]), cell("m", "pi_detector", [133, 629], [40, 97])], "no_defense");
    const w = utilityDropWarning(d, "condition", "every_run")!;
    expect(w).toContain("over every run of each row, every cell kept (--all-cells, as the rows: not like for like; a paired difference from the baseline is over the cells both ran");
    expect(w).toContain("m under pi_detector under attack 21.1% (133/629) against 59.9% (4,058/6,775) under no_defense");
    // every printed rate recomputes from its count
    expect(((100 * 133) / 629).toFixed(1)).toBe("21.1");
    expect(((100 * 4058) / 6775).toFixed(1)).toBe("59.9");
  });
  it("a fall within the noise of a few runs, or to half or more, is not a drop", () => {
    // 1/8 against 3/8: under half, but the Wilson intervals overlap
    expect(utilityDrops([cell("m", "b", [3, 8], [0, 0]), cell("m", "c", [1, 8], [0, 0])], "b")).toEqual([]);
    // exactly half with many runs: not under half
    expect(utilityDrops([cell("m", "b", [400, 1000], [0, 0]), cell("m", "c", [200, 1000], [0, 0])], "b")).toEqual([]);
  });
  it("nothing to compare is not a drop: no baseline cell for the model, or no utility verdict", () => {
    expect(utilityDrops([cell("m", "c", [0, 100], [0, 100])], "b")).toEqual([]);
    expect(utilityDrops([cell("m", "b", [0, 0], [0, 0]), cell("m", "c", [0, 100], [0, 0])], "b")).toEqual([]);
    expect(utilityDropWarning([])).toBeNull();
  });
  it("models are compared with their own baseline cell only", () => {
    const u = [cell("a", "b", [90, 100], [0, 0]), cell("b", "b", [10, 100], [0, 0]), cell("b", "c", [9, 100], [0, 0]), cell("a", "c", [80, 100], [0, 0])];
    expect(utilityDrops(u, "b")).toEqual([]);
  });
});
