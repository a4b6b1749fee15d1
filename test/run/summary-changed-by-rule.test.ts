/**
 * The summary counts labels code changed from the judge's claim by a rule, beside the downgrades (newuser51 finding
 * 4: "downgrades: 0" printed while 5 stored labels differed from `label_claimed`, by the refused-call rule).
 */
import { describe, expect, it } from "vitest";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const v = (id: string, label: Bucket, claimed: Bucket, basis: string, downgraded = false): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: "ok", label, label_claimed: claimed, label_basis: basis, downgraded, findings: [], usage: { prompt_tokens: 0, completion_tokens: 0 } }) as unknown as Verdict;

describe("labels changed by a rule, beside the downgrades", () => {
  const ids = ["a", "b", "c", "d", "e"];
  const index = new Map<string, TrajectoryIndexRow>(ids.map((id) => [id, { id, attacked: true, agent_model: "m" } as TrajectoryIndexRow]));

  it("refused_call and precedence changes are counted by basis; a downgrade and an unchanged label are not", () => {
    const s = summarizeRun("r", [
      v("a", "partial_compliance", "full_compliance", "refused_call"),
      v("b", "partial_compliance", "full_compliance", "refused_call"),
      v("c", "full_compliance", "partial_compliance", "finding"),
      v("d", "unaffected", "full_compliance", "finding", true),
      v("e", "full_compliance", "full_compliance", "finding"),
    ], index, []);
    const j = s.judges[0];
    expect(j.downgrades).toBe(1);
    expect(j.changed_by_rule).toEqual({ refused_call: 2, finding: 1 });
    expect(formatSummary(s)).toContain("downgrades: 1; labels changed from the judge's claim by a rule, not a downgrade: 3 (refused_call 2, finding 1);");
  });

  it("none changed: no count, the line as before", () => {
    const s = summarizeRun("r", [v("a", "full_compliance", "full_compliance", "finding")], index, []);
    expect(s.judges[0].changed_by_rule).toBeUndefined();
    expect(formatSummary(s)).toContain("  downgrades: 0; tokens:");
  });
});
