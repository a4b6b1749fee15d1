import { describe, expect, it } from "vitest";
import { committeeHeadWarnings, familyQuorumNotes } from "../../src/committee/head-warnings.js";

describe("committee head warnings (one function for the object and column paths)", () => {
  it("one judge under a quorum above it: says it labels nothing and how to take its labels (new user 34)", () => {
    const w = committeeHeadWarnings({ runState: undefined, judgeHealth: [], excluded: [], judges: [{ id: "signature", family: "rule" }], quorum: 2 });
    expect(w[0]).toBe(
      "the committee has 1 judge(s): a committee needs at least two (label with --judges FILE listing several); with --quorum 2 it labels nothing: --quorum 1 takes the one judge's labels as the committee's",
    );
    expect(w[1]).toMatch(/^the committee spans 1 judge family \(rule\)/);
    const q1 = committeeHeadWarnings({ runState: undefined, judgeHealth: [], excluded: [], judges: [{ id: "signature", family: "rule" }], quorum: 1 });
    expect(q1[0]).not.toContain("--quorum");
    // no judge at all (every one left out): no quorum is offered as the way out (min40: "--quorum 1 labels nothing: --quorum 1 takes ...")
    const none = committeeHeadWarnings({ runState: undefined, judgeHealth: [], excluded: ["signature"], judges: [], quorum: 1 });
    expect(none[0]).toBe("left out of the committee: signature (--exclude-judge)");
    expect(none[1]).toBe("the committee has 0 judge(s): a committee needs at least two (label with --judges FILE listing several)");
  });
  it("two judges of two families and nothing else: no warning; judges left out are named", () => {
    const judges = [
      { id: "a", family: "openai" },
      { id: "b", family: "anthropic" },
    ];
    expect(committeeHeadWarnings({ runState: undefined, judgeHealth: [], excluded: [], judges, quorum: 2 })).toEqual([]);
    expect(committeeHeadWarnings({ runState: undefined, judgeHealth: [], excluded: ["c"], judges, quorum: 2 })).toEqual(["left out of the committee: c (--exclude-judge)"]);
  });
  it("one family that can form the quorum alone in a mixed committee: a note naming it (break51 finding 8)", () => {
    const judges = [
      { id: "stubA", family: "openai" },
      { id: "stubB", family: "OpenAI" },
      { id: "signature", family: "rule" },
    ];
    const w = committeeHeadWarnings({ runState: undefined, judgeHealth: [], excluded: [], judges, quorum: 2 });
    expect(w).toEqual([
      "2 of the committee's 3 judges (stubA, stubB) are of family openai and can form the quorum (2) alone, a majority of the votes: every label they agree on is the committee's, on agents of their own maker too; a maker's judges may share blind spots (docs/committee.md), so the committee's labels lean on one maker; a judge of another family in their place would spread them",
    ]);
    // quorum 3: two cannot label alone; four judges, two of one family: a quorum without a majority
    expect(familyQuorumNotes(judges, 3)).toEqual([]);
    const four = [...judges, { id: "g", family: "google" }];
    expect(familyQuorumNotes(four, 2)[0]).toMatch(/^2 of the committee's 4 judges \(stubA, stubB\) are of family openai and can form the quorum \(2\) alone where the other judges have no valid vote;/);
    // one family in all: said by the one-family warning, not again
    expect(familyQuorumNotes([judges[0], { id: "x", family: "openai" }], 2)).toEqual([]);
    // a judge without a recorded family (older verdicts) is in no family: no crash, not counted
    expect(familyQuorumNotes([...judges, { id: "old" } as unknown as { id: string; family: string }], 2)[0]).toMatch(/^2 of the committee's 4 judges \(stubA, stubB\)/);
  });
});
