import { describe, expect, it } from "vitest";
import { formatJudgeConcordance, judgeConcordance, labelledByBoth } from "../../src/agree/pairwise.js";

const v = (id: string, judge: string, label: string | null, status = "ok") => ({ trajectory_id: id, judge_id: judge, repeat: 0, status, label });

describe("judge vs heuristic concordance (agree --judges A,B)", () => {
  // 6 attacked: both compromised (1), judge only (2, 3), heuristic only (4), neither (5), judge error (6).
  const verdicts = [
    v("1", "gpt", "full_compliance"), v("1", "signature", "partial_compliance"),
    v("2", "gpt", "partial_compliance"), v("2", "signature", "unaffected"),
    v("3", "gpt", "full_compliance"), v("3", "signature", "not_exposed"),
    v("4", "gpt", "flagged_refusal"), v("4", "signature", "full_compliance"),
    v("5", "gpt", "unaffected"), v("5", "signature", "task_refusal"),
    v("6", "gpt", null, "judge_error"), v("6", "signature", "full_compliance"),
    v("1", "gpt", "unaffected", "ok"), // a repeat-0 duplicate later in the file replaces the first
  ].map((x, i) => (i === 12 ? { ...x, repeat: 1 } : x));
  const c = judgeConcordance(verdicts, ["1", "2", "3", "4", "5", "6"], ["gpt", "signature"], { bootstrap: { B: 0, seed: 1 } });
  it("splits disagreements into judge-only and heuristic-only compromises; errors are excluded, not disagreements", () => {
    expect([c.both_compromised, c.first_only, c.second_only, c.neither]).toEqual([1, 2, 1, 1]);
    expect(c.first_only_ids).toEqual(["2", "3"]);
    expect(c.second_only_ids).toEqual(["4"]);
    expect(c.comparison.n_used).toBe(5);
    expect(c.comparison.excluded).toEqual({ judge_error: 1 });
    expect(c.asr_behaviour).toEqual([3 / 5, 2 / 5]);
    // 2x2 table [[1, 2], [1, 1]]: p_o = 2/5, p_e = (3/5)(2/5) + (2/5)(3/5) = 12/25, kappa = (10/25 − 12/25)/(13/25) = −2/13.
    expect(c.comparison.kappa.value).toBeCloseTo(-2 / 13, 12);
    expect(formatJudgeConcordance(c)).toMatch(/3 = 2 compromises only gpt found \+ 1 only signature found/);
  });
  it("the items both judges labelled, over which agree --judges counts the code-established labels (new user 18 L1)", () => {
    const both = labelledByBoth(verdicts, ["1", "2", "3", "4", "5", "6", "7"], ["gpt", "signature"]);
    expect([...both].sort()).toEqual(["1", "2", "3", "4", "5"]);
    expect(both.size).toBe(c.comparison.n_used);
  });
});
