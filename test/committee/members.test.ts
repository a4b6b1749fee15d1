import { describe, expect, it } from "vitest";
import { CommitteeChoiceError, committeeMembers, committeeName, otherThanStored, type StoredCommittee } from "../../src/committee/members.js";

const RUN = ["claude", "gpt", "llama", "signature"];
const stored = (over: Partial<StoredCommittee> = {}): StoredCommittee => ({ file: "/r/committee.jsonl", judges: ["claude", "gpt", "llama"], excluded_judges: ["signature"], quorum: 2, stale: [], ...over });

describe("committeeMembers: one committee per run (new user 30)", () => {
  it("no file: every judge, as committee does by default, quorum 2", () => {
    expect(committeeMembers(RUN, null)).toMatchObject({ members: RUN, left_out: [], quorum: 2, basis: "every_judge", matches_file: false, warnings: [] });
  });
  it("a current file: its members and quorum, nothing to say", () => {
    expect(committeeMembers(RUN, stored({ quorum: 3 }))).toMatchObject({ members: ["claude", "gpt", "llama"], left_out: ["signature"], quorum: 3, basis: "committee_file", matches_file: true, warnings: [] });
  });
  it("a stale file: the run's judges without those it left out, and said", () => {
    const m = committeeMembers([...RUN, "new"], stored({ stale: ["judge(s) new labelled the run after committee.jsonl was written"] }), {}, "r");
    expect(m.members).toEqual(["claude", "gpt", "llama", "new"]);
    expect(m.matches_file).toBe(false);
    expect(m.warnings[0]).toMatch(/^committee\.jsonl is stale \(judge\(s\) new .*\): the committee \(claude, gpt, llama, new; quorum 2\) is computed from the current verdicts; run ipi-judge committee --run r --exclude-judge signature to rebuild the file$/);
  });
  it("--exclude-judge / --quorum other than the stored committee: used, and said naming both", () => {
    const m = committeeMembers(RUN, stored(), { exclude: ["llama"] }, "r");
    expect(m).toMatchObject({ members: ["claude", "gpt", "signature"], left_out: ["llama"], basis: "exclude_judge_option", matches_file: false });
    expect(m.warnings[0]).toMatch(/the committee asked for, committee \(claude, gpt, signature; quorum 2\), is not the one stored in committee\.jsonl, committee \(claude, gpt, llama; quorum 2\)/);
    expect(committeeMembers(RUN, stored(), { exclude: ["signature"], quorum: 2 }).warnings).toEqual([]);
    expect(committeeMembers(RUN, stored(), { quorum: 3 }).warnings[0]).toMatch(/drop --quorum to use the stored one/);
  });
  it("an unknown judge to leave out is refused", () => {
    expect(() => committeeMembers(RUN, null, { exclude: ["nobody"] }, "r")).toThrow(CommitteeChoiceError);
  });
  it("a --quorum above the members is refused, naming them (red team 36: it labelled nothing, saying nothing)", () => {
    expect(() => committeeMembers(RUN, null, { quorum: RUN.length + 1 }, "r")).toThrow(new RegExp(`--quorum ${RUN.length + 1} is more than the committee's ${RUN.length} member\\(s\\)`));
    expect(() => committeeMembers(RUN, stored(), { exclude: ["llama"], quorum: RUN.length })).toThrow(CommitteeChoiceError);
    expect(committeeMembers(RUN, null, { quorum: RUN.length }).quorum).toBe(RUN.length);
  });
  it("otherThanStored: null for no selection or the stored one; else why, naming both", () => {
    expect(otherThanStored(RUN, stored(), {}, "r", "compare --committee")).toBeNull();
    expect(otherThanStored(RUN, stored(), { exclude: ["signature"] }, "r", "compare --committee")).toBeNull();
    expect(otherThanStored(RUN, stored(), { exclude: ["gpt"] }, "r", "compare --committee")).toMatch(/^compare --committee reads the committee from committee\.jsonl, the committee \(claude, gpt, llama; quorum 2\); the one asked for is the committee \(claude, llama, signature; quorum 2\)/);
  });
  it("committeeName", () => expect(committeeName({ members: ["a", "b"], quorum: 2 })).toBe("committee (a, b; quorum 2)"));
});
