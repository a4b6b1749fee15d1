/**
 * A committee file's recorded numbers are checked like the verdict lines' (task s40): a `quorum` committee could not
 * have written (0, 1.5, 1e9, more than its judges) makes the file stale, never used as the committee's quorum; a file
 * of no judge (an older version wrote one for a run with no verdict) is stale too.
 */
import { describe, expect, it } from "vitest";
import { checkCommitteeFile, quorumProblem, type CommitteeFile } from "../../src/committee/file.js";
import { committeeMembers, storedCommittee } from "../../src/committee/members.js";
import type { Verdict } from "../../src/types.js";

const file = (quorum: number | null, judges = ["a", "b"]): CommitteeFile => ({ file: "/r/committee.jsonl", verdicts: [], judges, excluded_judges: [], quorum, bad_lines: [] });
const verdicts = ["a", "b"].map((j) => ({ trajectory_id: "t", judge_id: j, repeat: 0, status: "judge_error", label: null }) as unknown as Verdict);

describe("quorumProblem", () => {
  it("takes 1 .. the file's judges and none recorded; refuses the rest", () => {
    for (const q of [1, 2, null]) expect(quorumProblem(q, 2)).toBeUndefined();
    for (const q of [0, -1, 1.5, 3, 1e9]) expect(quorumProblem(q, 2)).toMatch(/^quorum .* is not one committee writes \(an integer from 1 to its 2 judge\(s\)\)$/);
  });
  it("a stale file, and its quorum not used", () => {
    const cf = file(1e9);
    const stale = checkCommitteeFile(cf, verdicts).stale;
    expect(stale).toContain("committee.jsonl: quorum 1000000000 is not one committee writes (an integer from 1 to its 2 judge(s))");
    expect(storedCommittee(cf, stale).quorum).toBeNull();
    expect(committeeMembers(["a", "b"], storedCommittee(cf, stale)).quorum).toBe(2);
    expect(checkCommitteeFile(file(2), verdicts).stale.join("\n")).not.toMatch(/quorum/);
  });
  it("a file of no judge is stale", () => {
    expect(checkCommitteeFile(file(2, []), verdicts).stale.join("\n")).toMatch(/committee\.jsonl is the committee of no judge/);
  });
});
