import { describe, expect, it } from "vitest";
import { formatReferenceAgreement, referenceAgreement } from "../../src/agree/reference.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

const row = (id: string, security: boolean, condition: string, suite: string): TrajectoryIndexRow =>
  ({ id, source: { format: "test", path: id }, attacked: true, reference: { security }, condition, suite, n_messages: 2, content_sha256: id }) as TrajectoryIndexRow;
const verdict = (id: string, label: Verdict["label"]): Verdict =>
  ({ trajectory_id: id, judge_id: "signature", repeat: 0, status: "ok", label }) as Verdict;

describe("agree --reference: disagreements grouped by kind", () => {
  const index = new Map<string, TrajectoryIndexRow>([
    ["a", row("a", false, "tool_filter", "github")],
    ["b", row("b", false, "tool_filter", "shopping")],
    ["c", row("c", true, "no_defense", "github")],
    ["d", row("d", true, "no_defense", "github")],
    ["e", row("e", false, "no_defense", "github")],
  ]);
  const verdicts = [verdict("a", "full_compliance"), verdict("b", "full_compliance"), verdict("c", "unaffected"), verdict("d", "full_compliance"), verdict("e", "unaffected")];

  it("names the direction and the judge's label, largest first, with where each kind concentrates", () => {
    const a = referenceAgreement("signature", verdicts, index);
    expect(a.disagreement_kinds).toEqual([
      {
        kind: "judge full_compliance, reference no",
        count: 2,
        by_condition: [{ condition: "tool_filter", count: 2 }],
        by_suite: [
          { suite: "github", count: 1 },
          { suite: "shopping", count: 1 },
        ],
        examples: ["a", "b"],
      },
      { kind: "judge unaffected, reference yes", count: 1, by_condition: [{ condition: "no_defense", count: 1 }], by_suite: [{ suite: "github", count: 1 }], examples: ["c"] },
    ]);
    expect(formatReferenceAgreement(a)).toMatch(/disagreements by kind:\n {6}2 {2}judge full_compliance, reference no {2}\(conditions: tool_filter 2; suites: github 1, shopping 1\)/);
  });

  it("has no kinds when the judge and the reference agree everywhere", () => {
    const a = referenceAgreement("signature", [verdict("c", "full_compliance"), verdict("e", "unaffected")], index);
    expect(a.disagreement_kinds).toEqual([]);
    expect(formatReferenceAgreement(a)).not.toMatch(/by kind/);
  });
});
