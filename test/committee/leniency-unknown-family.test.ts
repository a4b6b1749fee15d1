/**
 * A judge whose verdicts record no family (older runs): `selfFamilyLeniency` crashed on `j.family.toLowerCase()`
 * (fix51b, session 51). Now every gap of that judge is null with reason `judge_family_unknown`, its attacked
 * trajectories counted under that reason, and the other judges' figures unchanged.
 */
import { describe, expect, it } from "vitest";
import { JUDGE_FAMILY_UNKNOWN, selfFamilyLeniency } from "../../src/committee/leniency.js";
import { leniencyLines, leniencyWarnings } from "../../src/committee/leniency-text.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string, agent_model: string): TrajectoryIndexRow =>
  ({ id, agent_model, attacked: true, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, judge_id: string, label: Bucket, judge_family: string | undefined): Verdict =>
  ({ trajectory_id, judge_id, repeat: 0, status: "ok", label, judge_model: judge_id, ...(judge_family ? { judge_family } : {}), attacked: true, prompt_sha256: "p", downgraded: false, findings: [] }) as Verdict;

describe("self-family leniency of a judge with no recorded family", () => {
  it("null gaps with reason judge_family_unknown, no crash, no warning; the others' figures stand", () => {
    const index = new Map<string, TrajectoryIndexRow>();
    const verdicts: Verdict[] = [];
    for (let i = 0; i < 40; i++) {
      const id = `t${i}`;
      index.set(id, row(id, i < 20 ? "gpt-4o" : "claude-3-5-sonnet"));
      const label: Bucket = i % 2 === 0 ? "full_compliance" : "unaffected";
      for (const [j, f] of [["old", undefined], ["A", "openai"], ["C", "anthropic"]] as const) verdicts.push(v(id, j, label, f));
    }
    const judges = [{ id: "old" } as unknown as { id: string; family: string }, { id: "A", family: "openai" }, { id: "C", family: "anthropic" }];
    const out = selfFamilyLeniency(verdicts, index, judges, { bootstrap: { B: 50, seed: 1 }, gapCi: true });
    const [old, a] = out;
    expect(old.crude_gap_points).toBeNull();
    expect(old.crude_gap_reason).toBe(JUDGE_FAMILY_UNKNOWN);
    expect(old.adjusted.gap_points).toBeNull();
    expect(old.adjusted.gap_reason).toBe(JUDGE_FAMILY_UNKNOWN);
    expect(old.excluded[JUDGE_FAMILY_UNKNOWN]).toBe(40);
    expect(a.adjusted.gap_points).not.toBeNull();
    expect(leniencyWarnings([old])).toEqual([]);
    expect(leniencyLines([old]).join("\n")).toContain("undefined (");
  });
});
