import { describe, expect, it } from "vitest";
import { formatReferenceAgreement, formatReferenceTable, referenceAgreement } from "../../src/agree/reference.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

const row = (id: string, security: boolean): TrajectoryIndexRow =>
  ({ id, source: { format: "test", path: id }, attacked: true, reference: { security }, n_messages: 2, content_sha256: id }) as TrajectoryIndexRow;
const verdict = (id: string, status: Verdict["status"], label: Verdict["label"]): Verdict =>
  ({ trajectory_id: id, judge_id: "signature", repeat: 0, status, label }) as Verdict;

// VIGIL-like: the judge labels only the successes (the failures' injected text is unknown), so the benchmark's
// rate over the labelled runs reads 100% while over every attacked run with a verdict it is 2/4.
describe("agree --reference: the benchmark's rate over the labelled subset is named as such", () => {
  const index = new Map<string, TrajectoryIndexRow>([
    ["a", row("a", true)],
    ["b", row("b", true)],
    ["c", row("c", false)],
    ["d", row("d", false)],
  ]);
  const verdicts = [verdict("a", "ok", "full_compliance"), verdict("b", "ok", "full_compliance"), verdict("c", "unverified", null), verdict("d", "unverified", null)];

  it("gives the benchmark's rate over all attacked runs with a verdict beside the subset's, both denominators", () => {
    const a = referenceAgreement("signature", verdicts, index);
    expect(a.rates.reference).toMatchObject({ count: 2, n: 2, rate: 1 });
    expect(a.rates.reference_all).toMatchObject({ count: 2, n: 4, rate: 0.5 });
    const text = formatReferenceAgreement(a);
    expect(text).toContain("security rate 100.0% [34.2, 100.0] (2/2) over the 2 runs the judge labelled");
    expect(text).toContain("the benchmark's security rate over all 4 attacked runs with a verdict: 50.0% [15.0, 85.0] (2/4)");
    expect(formatReferenceTable([a])).toContain("benchmark over all 4 attacked: 50.0%");
  });

  it("says nothing more when the judge labelled every such run", () => {
    const a = referenceAgreement("signature", [verdict("a", "ok", "full_compliance"), verdict("b", "ok", "unaffected"), verdict("c", "ok", "unaffected"), verdict("d", "ok", "unaffected")], index);
    expect(a.rates.reference_all).toMatchObject({ count: 2, n: 4 });
    expect(formatReferenceAgreement(a)).not.toContain("runs the judge labelled");
    expect(formatReferenceTable([a])).not.toContain("benchmark over all");
  });
});

// session 14 new user: label said coverage 87/433, agree 21.6% (87/402): agree's coverage now names its denominator
// and how it differs from the one label, compare and report use (every attacked run).
describe("agree --reference: the coverage names its denominator beside label's", () => {
  it("87/402-like: attacked runs without a verdict or with an agent error are named as the difference", () => {
    const index = new Map<string, TrajectoryIndexRow>([
      ["a", row("a", true)],
      ["b", row("b", false)],
      ["c", row("c", false)],
      ["n", { ...row("n", true), reference: undefined } as TrajectoryIndexRow],
      ["e", { ...row("e", true), run_error: "boom" } as TrajectoryIndexRow],
    ]);
    const a = referenceAgreement("signature", [verdict("a", "ok", "full_compliance"), verdict("b", "unverified", null), verdict("c", "unverified", null), verdict("n", "ok", "full_compliance")], index);
    const text = formatReferenceAgreement(a);
    expect(text).toContain(
      "coverage 33.3% (1/3 attacked runs with a benchmark verdict and no agent error; label, compare and report divide by every attacked run, 5 here, those 1 without a verdict and 1 with an agent error included) LOW",
    );
    expect(formatReferenceTable([a])).toContain("(coverage_low 33.3% of 3;");
  });

  it("no such run: the denominator alone", () => {
    const index = new Map<string, TrajectoryIndexRow>([["a", row("a", true)], ["b", row("b", false)]]);
    const a = referenceAgreement("signature", [verdict("a", "ok", "full_compliance"), verdict("b", "ok", "unaffected")], index);
    expect(formatReferenceAgreement(a)).toContain("coverage 100.0% (2/2 attacked runs with a benchmark verdict and no agent error)");
  });
});
