import { describe, expect, it } from "vitest";
import { formatSummary, summarizeRun } from "../../src/run/summary.js";
import { slimVerdict, type TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const verdict = (id: string, label: Bucket): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: "ok", label, downgraded: false, usage: { prompt_tokens: 0, completion_tokens: 0 } }) as Verdict;

describe("label summary: ASR per agent model", () => {
  it("splits the attacked ok verdicts by the index's agent model", () => {
    const index = new Map<string, TrajectoryIndexRow>([
      ["a1", { id: "a1", attacked: true, agent_model: "gpt-4o" } as TrajectoryIndexRow],
      ["a2", { id: "a2", attacked: true, agent_model: "gpt-4o" } as TrajectoryIndexRow],
      ["b1", { id: "b1", attacked: true, agent_model: "llama" } as TrajectoryIndexRow],
      ["u1", { id: "u1", attacked: false, agent_model: "llama" } as TrajectoryIndexRow],
      ["n1", { id: "n1", attacked: true } as TrajectoryIndexRow],
    ]);
    const s = summarizeRun("r", [verdict("a1", "full_compliance"), verdict("a2", "unaffected"), verdict("b1", "partial_compliance"), verdict("u1", "not_exposed"), verdict("n1", "unaffected")], index, []);
    expect(s.judges[0].by_agent_model).toEqual({
      "(unknown)": { attacked_ok: 1, compromised: 0, asr: 0 },
      "gpt-4o": { attacked_ok: 2, compromised: 1, asr: 0.5 },
      llama: { attacked_ok: 1, compromised: 1, asr: 1 },
    });
    const text = formatSummary(s);
    expect(text).toMatch(/ASR per agent model:\n.*\(unknown\)\s+0\.0% of 1/);
    expect(text).toMatch(/gpt-4o\s+50\.0% of 2 \(1 compromised\)/);
  });

  it("a verdict whose trajectory has no index row (a damaged line) is counted under the model the verdict names, slim or not (review)", () => {
    const v = { ...verdict("x1", "full_compliance"), attacked: true, agent_model: "claude" } as Verdict;
    for (const w of [v, slimVerdict(v)]) expect(summarizeRun("r", [w], new Map(), []).judges[0].by_agent_model).toEqual({ claude: { attacked_ok: 1, compromised: 1, asr: 1 } });
  });

  it("cached tokens no provider reported are unknown, not '0 cached' (review)", () => {
    const index = new Map<string, TrajectoryIndexRow>([["a1", { id: "a1", attacked: true, agent_model: "m" } as TrajectoryIndexRow]]);
    const withUsage = (u: Verdict["usage"]) => ({ ...verdict("a1", "unaffected"), usage: u }) as Verdict;
    const none = summarizeRun("r", [withUsage({ prompt_tokens: 1000, completion_tokens: 50 })], index, []);
    expect(none.judges[0].usage).toMatchObject({ cached_tokens: 0, verdicts_without_cached_figure: 1 });
    expect(formatSummary(none)).toMatch(/1000 prompt \(cached: not reported by the provider\)/);
    const some = summarizeRun("r", [withUsage({ prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 0 })], index, []);
    expect(formatSummary(some)).toMatch(/1000 prompt \(0 cached\)/);
  });
});
