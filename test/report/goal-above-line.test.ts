import { describe, expect, it } from "vitest";
import { goalAboveLines } from "../../src/report/goal-above-line.js";
import { goalAboveBehaviour } from "../../src/estimate/goal-above-behaviour.js";
import type { CalibratedAll } from "../../src/estimate/table-all.js";

// the (all) row as report's stdout reads it: only its groups' warnings matter here
const all = (goalWarnings: string[], behaviourWarnings: string[] = []) =>
  ({ asr_goal: { group: { warnings: goalWarnings } }, asr_behaviour: { group: { warnings: behaviourWarnings } } }) as unknown as CalibratedAll;

describe("report's stdout: the calibrated line's goal-above-behaviour note (newuser55 #3)", () => {
  it("says it under the line when the (all) group carries it, as estimate does, and nothing else", () => {
    const w = goalAboveBehaviour({ asr: 0.596 }, { asr: 0.614 })!;
    const lines = goalAboveLines(all([w, "some other note"], ["some other note"]));
    expect(lines).toEqual([`calibrated (all) note: asr_goal: ${w}`]);
    expect(lines[0]).toContain("calibrated_goal_above_behaviour: the calibrated asr_goal 61.4% is above the calibrated asr_behaviour 59.6%");
  });
  it("none without the note or without an (all) row", () => {
    expect(goalAboveLines(all(["some other note"]))).toEqual([]);
    expect(goalAboveLines(undefined)).toEqual([]);
    expect(goalAboveBehaviour({ asr: 0.6 }, { asr: 0.6 })).toBeNull();
  });
});
