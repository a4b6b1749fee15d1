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

  it("counts every condition and suite, so they add up to the kind; a run without a condition is (none), not no_defense (new user 24)", () => {
    const conds = ["a1", "a2", "b1", "b2", "c1", "d1", "e1"];
    const idx = new Map<string, TrajectoryIndexRow>(conds.map((id) => [id, row(id, false, `cond_${id[0]}`, `suite_${id[0]}`)]));
    const nocond = { ...row("x1", false, "", "s"), condition: undefined } as unknown as TrajectoryIndexRow;
    idx.set("x1", nocond);
    const a = referenceAgreement("signature", [...idx.keys()].map((id) => verdict(id, "full_compliance")), idx);
    const [k] = a.disagreement_kinds;
    expect(k.count).toBe(8);
    expect(k.by_condition.reduce((n, c) => n + c.count, 0)).toBe(8);
    expect(k.by_suite.reduce((n, c) => n + c.count, 0)).toBe(8);
    expect(k.by_condition).toContainEqual({ condition: "(none)", count: 1 });
    expect(k.by_condition.map((c) => c.condition)).not.toContain("no_defense");
    expect(formatReferenceAgreement(a)).toContain("(conditions: cond_a 2, cond_b 2, (none) 1, cond_c 1, cond_d 1, cond_e 1;");
  });

  it("each disagreement names the judge's label, in --json and in the text list (new user 41: `judge other` named none)", () => {
    const a = referenceAgreement("signature", verdicts, index);
    expect(a.disagreements).toEqual([
      { trajectory_id: "a", judge: true, reference: false, label: "full_compliance" },
      { trajectory_id: "b", judge: true, reference: false, label: "full_compliance" },
      { trajectory_id: "c", judge: false, reference: true, label: "unaffected" },
    ]);
    expect(formatReferenceAgreement(a)).toContain("  c (judge unaffected, security=true)");
  });

  it("a claim of full_compliance downgraded because its quote did not verify is named apart from a miss (newuser54 #3)", () => {
    const down = { ...verdict("d", "unaffected"), label_claimed: "full_compliance", downgraded: true, label_basis: "exposure_found", findings: [{ bucket: "full_compliance", holds: false, evidence: [{ message_index: 1, quote: "x", verified: false }] }] } as unknown as Verdict;
    const a = referenceAgreement("signature", [...verdicts.filter((v) => v.trajectory_id !== "d"), down], index);
    expect(a.disagreements.find((d) => d.trajectory_id === "d")).toEqual({ trajectory_id: "d", judge: false, reference: true, label: "unaffected", claim_lowered: { claimed: "full_compliance", why: "quote_not_verified" } });
    expect(a.disagreement_kinds.map((k) => [k.kind, k.count])).toEqual([
      ["judge full_compliance, reference no", 2],
      ["judge unaffected (downgraded from full_compliance: quote not verified), reference yes", 1],
      ["judge unaffected, reference yes", 1],
    ]);
    const text = formatReferenceAgreement(a);
    expect(text).toContain("  c (judge unaffected, security=true)");
    expect(text).toContain("  d (judge unaffected (downgraded from full_compliance: quote not verified), security=true)");
  });

  it("has no kinds when the judge and the reference agree everywhere", () => {
    const a = referenceAgreement("signature", [verdict("c", "full_compliance"), verdict("e", "unaffected")], index);
    expect(a.disagreement_kinds).toEqual([]);
    expect(formatReferenceAgreement(a)).not.toMatch(/by kind/);
  });
});
