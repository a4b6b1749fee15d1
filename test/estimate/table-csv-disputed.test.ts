/** The table CSV's DISPUTED columns (src/estimate/table-csv-disputed.ts). */
import { describe, expect, it } from "vitest";
import { DISPUTED_CSV_COLUMNS, disputedCsvCell, disputedCsvCells } from "../../src/estimate/table-csv-disputed.js";

const goal = { count: 2, possible: 1, lower: 0.1, upper: 0.4, goal_split: 3 };
const behaviour = { count: 2, possible: 2, lower: 0.2, upper: 0.5 };

describe("disputedCsvCells", () => {
  it("named as compare --csv's, with the table's judge_ prefix", () => {
    expect(DISPUTED_CSV_COLUMNS).toEqual(["disputed", "judge_asr_goal_split", "judge_asr_goal_disputed_lower", "judge_asr_goal_disputed_upper", "judge_asr_behaviour_disputed_lower", "judge_asr_behaviour_disputed_upper"]);
  });
  it("the count, the ties, each rate's range; a rate without ties says 0; none: all empty", () => {
    expect(disputedCsvCells({ asr_goal: goal, asr_behaviour: behaviour })).toEqual([2, 3, 0.1, 0.4, 0.2, 0.5]);
    expect(disputedCsvCells({ asr_goal: { ...behaviour }, asr_behaviour: behaviour })).toEqual([2, 0, 0.2, 0.5, 0.2, 0.5]);
    // ties only: no run left out (0, a true count), asr_behaviour unmoved
    expect(disputedCsvCells({ asr_goal: { count: 0, possible: 0, lower: 0, upper: 1, goal_split: 2 } })).toEqual([0, 2, 0, 1, "", ""]);
    expect(disputedCsvCells({})).toEqual(["", "", "", "", "", ""]);
  });
  it("ties only (no disputed run): asr_behaviour's range is its point, as compare --csv's (rev2a55 #5)", () => {
    // fk's Llama row: 0 disputed, 1 full/partial tie, asr_behaviour 55/97
    const tie = { count: 0, possible: 0, lower: 50 / 97, upper: 51 / 97, goal_split: 1 };
    expect(disputedCsvCells({ asr_goal: tie, asr_behaviour_point: 55 / 97 })).toEqual([0, 1, 50 / 97, 51 / 97, 55 / 97, 55 / 97]);
    expect(disputedCsvCell({ asr_goal: tie, asr_behaviour_point: 55 / 97 }, "judge_asr_behaviour_disputed_upper")).toBe(55 / 97);
    // a disputed run: the behaviour range is its own; no range and no ties: the point is not printed
    expect(disputedCsvCells({ asr_goal: goal, asr_behaviour: { count: 2, possible: 2, lower: 0.2, upper: 0.5 }, asr_behaviour_point: 0.3 }).slice(4)).toEqual([0.2, 0.5]);
    expect(disputedCsvCells({ asr_behaviour_point: 0.3 })).toEqual(["", "", "", "", "", ""]);
    expect(disputedCsvCells({ asr_goal: tie, asr_behaviour_point: null }).slice(4)).toEqual(["", ""]);
  });
  it("one column by name; another column: undefined", () => {
    expect(disputedCsvCell({ asr_goal: goal }, "judge_asr_goal_split")).toBe(3);
    expect(disputedCsvCell({ asr_goal: goal }, "judge_asr_goal")).toBeUndefined();
  });
});
