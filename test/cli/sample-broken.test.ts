/**
 * `sample --disagreement` names the committee's broken members (out50 finding 4): the pool is the disagreements of
 * the members that voted, which a member that crashed or failed on most items changes. Read from the run's
 * summary.json, named as committee and estimate name such a judge (`brokenJudge`, `crashBroken`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokenMembers, brokenPoolWarning } from "../../src/cli/sample-broken.js";
import { emptyHealth, withFlags } from "../../src/verdict/health.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-samplebroken-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function runWith(judges: unknown[]): string {
  const dir = fs.mkdtempSync(path.join(tmp, "run-"));
  fs.writeFileSync(path.join(dir, "summary.json"), JSON.stringify({ judges }));
  return dir;
}

describe("sample --disagreement: the committee behind the pool has a broken member (out50 finding 4)", () => {
  it("a member that crashed on most items is named with why; a healthy one and a judge outside the committee are not", () => {
    const healthy = { ...withFlags(emptyHealth("a", "m")), verdicts: 40 };
    const crashed = { ...withFlags(emptyHealth("b c", "m")), verdicts: 10 };
    const dir = runWith([
      { judge_id: "a", health: healthy },
      { judge_id: "b c", health: crashed, judge_crashes: 30 },
      { judge_id: "other", health: crashed, judge_crashes: 30 },
    ]);
    const broken = brokenMembers(dir, ["a", "b c"]);
    expect(broken).toEqual([{ judge_id: "b c", why: "it crashed on 30 trajectories against 10 verdicts (75.0%: errors.jsonl kind judge_crash)" }]);
    const w = brokenPoolWarning("committee (a, b c; quorum 2)", broken)!;
    expect(w).toBe(
      'the --disagreement pool is the items where the committee (a, b c; quorum 2) was not unanimous, and a member looks broken over the run (judge "b c": it crashed on 30 trajectories against 10 verdicts (75.0%: errors.jsonl kind judge_crash); as summary.json counts it): ' +
        "a member that failed or was stopped on an item casts no vote there, so the pool holds the disagreements of the members that did vote, and an item with fewer valid votes than the quorum is in no pool (stratum U). " +
        "The sample's weights stay right for the pool drawn; for a pool of the working judges, run committee --exclude-judge <id> and sample again",
    );
  });
  it("no broken member, or no summary.json: no warning", () => {
    expect(brokenPoolWarning("committee (a, b; quorum 2)", brokenMembers(runWith([{ judge_id: "a", health: withFlags(emptyHealth("a", "m")) }]), ["a", "b"]))).toBeNull();
    expect(brokenMembers(path.join(tmp, "missing"), ["a"])).toEqual([]);
  });
});
