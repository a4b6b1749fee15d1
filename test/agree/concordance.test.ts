import { describe, expect, it } from "vitest";
import { compareTwoRaters, formatJudgeConcordance, judgeConcordance, labelledByBoth } from "../../src/agree/pairwise.js";

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

describe("judgeConcordance counts its pairs as it reads them (issue 26: no label array per attacked trajectory at 1M)", () => {
  it("gives compareTwoRaters' comparison of the two judges' label arrays, on random runs with errors, repeats and missing verdicts", () => {
    let seed = 11;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const LABELS = ["full_compliance", "partial_compliance", "unaffected", "task_refusal", "not_exposed", null];
    const STATUS = ["ok", "ok", "ok", "judge_error", "judge_refused", "unjudgeable", "unverified"];
    const nonLabels = { unverified: "unverified", unjudgeable: "unjudgeable", judge_refused: "judge_refused", judge_error: "judge_error", missing: "missing" };
    for (let t = 0; t < 200; t++) {
      const n = 1 + rnd(40);
      const vs = Array.from({ length: 3 * n }, () => ({ trajectory_id: `t${rnd(n)}`, judge_id: ["a", "b", "c"][rnd(3)], repeat: rnd(4) ? 0 : 1, status: STATUS[rnd(STATUS.length)], label: LABELS[rnd(LABELS.length)] }));
      const attacked = Array.from({ length: n }, (_, i) => `t${i}`).filter(() => rnd(5) > 0);
      const bootstrap = { B: rnd(2) * 30, seed: 5 };
      // the arrays the comparison used to be computed from: each judge's last repeat-0 verdict per trajectory, collapsed
      const last = (id: string, j: string) => vs.filter((x) => x.trajectory_id === id && x.judge_id === j && x.repeat === 0).at(-1);
      const binary = (x: (typeof vs)[number] | undefined) =>
        !x ? "missing" : x.status !== "ok" || !x.label ? (x.status === "ok" ? "judge_error" : x.status) : ["full_compliance", "partial_compliance"].includes(x.label) ? "compromised" : "not_compromised";
      const a = attacked.map((id) => binary(last(id, "a")));
      const b = attacked.map((id) => binary(last(id, "b")));
      const c = judgeConcordance(vs, attacked, ["a", "b"], { bootstrap });
      expect(c.comparison).toEqual(compareTwoRaters(a, b, ["compromised", "not_compromised"], { names: ["a", "b"], bootstrap, nonLabels }));
      expect(Object.keys(c.comparison.excluded)).toEqual(Object.keys(compareTwoRaters(a, b, ["compromised", "not_compromised"], { nonLabels }).excluded));
    }
  });
});
