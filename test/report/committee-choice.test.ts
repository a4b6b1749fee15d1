/**
 * The report's committee (src/report/committee-choice.ts): when the committee is not every judge, its figures and
 * every judge's come from one committee report (new-user pass: `report` computed the committee figures twice, a real
 * cost at 1M trajectories).
 */
import { describe, expect, it } from "vitest";
import { committeeFigures, reportCommittee } from "../../src/report/committee-choice.js";
import type { CommitteeReport } from "../../src/committee/report.js";

const judge = (id: string) => ({ id, model: `${id}-m`, family: `${id}-f` });
const per = (id: string) => ({ judge_id: id }) as unknown as CommitteeReport["per_judge"][number];
const health = (id: string) => ({ judge_id: id, judge_model: `${id}-m`, flags: [], looks_broken: false }) as unknown as CommitteeReport["judge_health"][number];

/** A stand-in for committeeReport: the members' figures, every judge's with everyJudge; each call recorded. */
function fake(runJudges: string[]) {
  const calls: Array<{ exclude?: string[]; quorum?: number; everyJudge?: boolean }> = [];
  const figs = (exclude?: string[], quorum?: number, everyJudge?: boolean) => {
    calls.push({ exclude, quorum, everyJudge });
    const members = runJudges.filter((j) => !(exclude ?? []).includes(j));
    const report = {
      judges: members.map(judge),
      per_judge: members.map(per),
      judge_health: runJudges.map(health),
      warnings: [],
      ...(everyJudge ? { every_judge: { judges: runJudges.map(judge), per_judge: runJudges.map(per) } } : {}),
    } as unknown as CommitteeReport;
    return { report, committee: members };
  };
  return { figs, calls };
}

describe("committeeFigures", () => {
  it("a committee of some judges: one report, every judge's figures from its every_judge", () => {
    const { figs, calls } = fake(["a", "b", "signature"]);
    const rc = reportCommittee(["a", "b", "signature"], null, null, { kind: "committee", exclude: ["signature"] } as never, "r", 2);
    expect(rc.apart).toBe(true);
    const f = committeeFigures(figs, rc);
    expect(calls).toEqual([{ exclude: ["signature"], quorum: 2, everyJudge: true }]);
    expect(f.cr.judges.map((j) => j.id)).toEqual(["a", "b", "signature"]);
    expect(f.cr.per_judge.map((j) => j.judge_id)).toEqual(["a", "b", "signature"]);
    expect(f.crc.judges.map((j) => j.id)).toEqual(["a", "b"]);
    expect(f.computed).toEqual(["a", "b"]);
  });

  it("every judge with the default quorum: one report, the same for both", () => {
    const { figs, calls } = fake(["a", "b"]);
    const f = committeeFigures(figs, reportCommittee(["a", "b"], null, null, undefined, "r", 2));
    expect(calls).toEqual([{ exclude: undefined, quorum: undefined, everyJudge: undefined }]);
    expect(f.cr).toBe(f.crc);
  });
});
