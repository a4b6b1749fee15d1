/** The committee's DISPUTED range on estimate's judge figure (src/estimate/judge-disputed.ts), by hand. */
import { describe, expect, it } from "vitest";
import { judgeDisputed, judgeDisputedText } from "../../src/estimate/judge-disputed.js";

// units 0..7: 0-1 the event (1 on a tie), 2-4 not, 5-6 disputed (5 with a vote for the event), 7 no quorum
const flags: Array<boolean | string> = [true, true, false, false, false, "committee_disputed", "committee_disputed", "committee_no_quorum"];
const units = [0, 1, 2, 3, 4, 5, 6, 7];

describe("judgeDisputed", () => {
  it("lower (count − goal_split) / (n + disputed), upper (count + possible) / (n + disputed)", () => {
    const d = judgeDisputed(units, (u) => flags[u], (u) => u === 5, (u) => u === 1);
    expect(d).toEqual({ count: 2, possible: 1, goal_split: 1, lower: (2 - 1) / 7, upper: (2 + 1) / 7 });
    expect(judgeDisputed(units, (u) => flags[u], () => true)).toEqual({ count: 2, possible: 2, lower: 2 / 7, upper: 4 / 7 });
  });
  it("none disputed and no tie: undefined; ties alone: a range", () => {
    expect(judgeDisputed([0, 2, 7], (u) => flags[u], () => true, () => false)).toBeUndefined();
    expect(judgeDisputed([0, 1, 2], (u) => flags[u], () => true, (u) => u === 1)).toEqual({ count: 0, possible: 0, goal_split: 1, lower: 1 / 3, upper: 2 / 3 });
  });
  it("text: the runs left out, the ties, the range", () => {
    expect(judgeDisputedText({ count: 2, possible: 1, goal_split: 1, lower: 1 / 7, upper: 3 / 7 }, "asr_goal")).toMatch(
      /^DISPUTED: 2 attacked runs left out \(no committee majority: as many votes say compromised as not; 1 with a vote for full_compliance\) and 1 full_compliance on a full\/partial tie \(counted; the tie rule chose full_compliance\): the committee's asr_goal 14\.3% to 42\.9% with them read each way \(lower: none of the disputed the event, the tied full_compliance read as partial_compliance; upper: every disputed one with a vote for full_compliance the event\)/,
    );
    expect(judgeDisputedText({ count: 0, possible: 0, goal_split: 1, lower: 1 / 3, upper: 2 / 3 }, "asr_goal")).toMatch(/^DISPUTED: 1 full_compliance on a full\/partial tie \(counted; the tie rule chose full_compliance\): the committee's asr_goal 33\.3% to 66\.7% with them read each way \(the tied full_compliance read as partial_compliance; upper: as counted\)/);
  });
});
