/**
 * The rule of a broken judge every analysis command exits 3 on (src/verdict/broken-judge.ts): its rates carry a
 * caveat (LOOKS BROKEN, or STOPPED), or most of its verdicts are judge errors or refusals; only the judges behind the
 * figures count, the run's others are listed apart.
 */
import { describe, expect, it } from "vitest";
import { brokenJudge, brokenJudges } from "../../src/verdict/broken-judge.js";
import { HEALTH_THRESHOLDS, judgeHealth } from "../../src/verdict/health.js";
import type { Verdict } from "../../src/types.js";

let n = 0;
function v(judge: string, over: Partial<Verdict> = {}): Verdict {
  return {
    trajectory_id: `t${n++}`, judge_id: judge, judge_model: "m", judge_family: "f", repeat: 0, rubric_version: "r", prompt_sha256: "p",
    status: "ok", label: "unaffected", label_claimed: "unaffected", compromised: false, downgraded: false,
    findings: [{ bucket: "unaffected", holds: true, evidence: [{ message_index: 1, quote: "q", verified: true }] }],
    rationale: "", attempts: 1, usage: { prompt_tokens: 0, completion_tokens: 0 }, truncated: false, raw_replies: [], created_at: "", ...over,
  };
}
const many = (k: number, f: () => Verdict) => Array.from({ length: k }, f);
const liar = () => v("liar", { downgraded: true, label_claimed: "full_compliance", findings: [{ bucket: "full_compliance", holds: false, evidence: [{ message_index: 1, quote: "x", verified: false }] }] });
const failing = () => v("errs", { status: "judge_error", label: null, error: { kind: "server_error", message: "" }, findings: [] });
const N = HEALTH_THRESHOLDS.minVerdicts;

describe("brokenJudge", () => {
  it("a judge whose rates carry a caveat is broken, named with its flags", () => {
    const [h] = judgeHealth(many(N, liar));
    expect(brokenJudge(h)).toEqual({ judge_id: "liar", why: "its rates are marked LOOKS BROKEN (mostly_downgraded, quotes_rarely_verify)" });
  });
  it("a judge with mostly judge errors is broken, though errors are no rate caveat", () => {
    const [h] = judgeHealth([...many(N, failing), ...many(N - 1, () => v("errs"))]);
    expect(h.flags.map((f) => f.code)).toEqual(["mostly_errors"]);
    expect(brokenJudge(h)).toEqual({ judge_id: "errs", why: `most of its verdicts are judge errors or refusals (50.5% of its ${2 * N - 1} verdicts)` });
  });
  it("a stopped judge (no usable verdict) is broken, said STOPPED", () => {
    const [h] = judgeHealth(many(3, failing));
    expect(brokenJudge(h)?.why).toBe("its rates are marked STOPPED (no_usable_verdict)");
  });
  it("a healthy judge, and one whose errors are a minority, are not", () => {
    const [a, b] = judgeHealth([...many(N, () => v("a")), ...many(N, () => v("b")), ...many(N / 2, () => v("b", { status: "judge_error", label: null, error: { kind: "x", message: "" }, findings: [] }))]);
    expect(brokenJudge(a)).toBeNull();
    expect(brokenJudge(b)).toBeNull();
  });
});

describe("brokenJudges", () => {
  it("splits the broken judges by whether the figures use them; healthy and unknown ids are left out", () => {
    const health = judgeHealth([...many(N, liar), ...many(N, failing), ...many(N, () => v("ok"))]);
    expect(brokenJudges(health, ["ok", "liar", "nobody"])).toEqual({ used: [{ judge_id: "liar", why: expect.stringContaining("LOOKS BROKEN") }], other: [{ judge_id: "errs", why: "its rates are marked STOPPED (no_usable_verdict)" }] });
    expect(brokenJudges(health, ["ok"]).used).toEqual([]);
    expect(brokenJudges(health, ["ok"]).other.map((b) => b.judge_id)).toEqual(["errs", "liar"]);
  });
});
