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

describe("a judge's stored crashes", () => {
  it("more than half of its crashes and verdicts together are crashes: broken, by its crashes; half or fewer: not", async () => {
    const { crashBroken, withCrashBroken, CRASH_BROKEN_SHARE } = await import("../../src/verdict/broken-judge.js");
    expect(CRASH_BROKEN_SHARE).toBe(0.5);
    expect(crashBroken("c", { crashed: 61, verdicts: 21 })).toEqual({ judge_id: "c", why: "it crashed on 61 trajectories against 21 verdicts (74.4%: errors.jsonl kind judge_crash)" });
    expect(crashBroken("c", { crashed: 5, verdicts: 5 })).toBeNull();
    expect(crashBroken("c", undefined)).toBeNull();
    // a judge broken by its health keeps that reason; one with crashes only (no verdict, so no health) is named by them
    const health = judgeHealth([...many(N, liar), ...many(N, () => v("ok"))]);
    const crashes = new Map([["liar", { crashed: 100, verdicts: N }], ["gone", { crashed: 7, verdicts: 0 }], ["ok", { crashed: 1, verdicts: N }]]);
    const b = brokenJudges(health, ["liar", "gone"], crashes);
    expect(b.used.map((x) => [x.judge_id, x.why.split(" (")[0]])).toEqual([["liar", "its rates are marked LOOKS BROKEN"], ["gone", "it crashed on 7 trajectories against 0 verdicts"]]);
    expect(b.other).toEqual([]);
    // added to a split made without crashes (estimate's), on the side of `used` each falls
    expect(withCrashBroken(brokenJudges(health, ["ok"]), ["ok"], crashes).other.map((x) => x.judge_id)).toEqual(["gone", "liar"]);
  });
});

describe("judgeCaveatText (the CSV's judge_caveat)", () => {
  it("a rate caveat's message; a judge broken only by its errors or crashes said too; '' when none", async () => {
    const { judgeCaveatText } = await import("../../src/verdict/broken-judge.js");
    expect(judgeCaveatText([], [])).toBe("");
    const errs = { judge_id: "errs", why: "most of its verdicts are judge errors or refusals (73.0% of its 100 verdicts)" };
    expect(judgeCaveatText([], [errs])).toBe(
      "judge \"errs\" looks broken: most of its verdicts are judge errors or refusals (73.0% of its 100 verdicts); its rates are over the verdicts it gave, which the coverage counts",
    );
    // a judge with a rate caveat is said by its caveat once, not again by its broken line
    const liar = { judge_id: "liar", message: "judge liar looks broken (quotes_rarely_verify): ..." };
    expect(judgeCaveatText([liar], [{ judge_id: "liar", why: "its rates are marked LOOKS BROKEN (quotes_rarely_verify)" }, errs])).toBe(
      `${liar.message}; judge "errs" looks broken: ${errs.why}; its rates are over the verdicts it gave, which the coverage counts`,
    );
  });
});
