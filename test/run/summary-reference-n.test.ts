/**
 * The label summary's n beside `agree --reference`'s (fix43, checking session 42's note): the two rates count every
 * attacked run with a label, runs that ended in an agent error (`run_error`) and runs that record no benchmark
 * security verdict included (the judge labels what the trajectory shows); `agree --reference` leaves both out (DESIGN
 * section 3: `security` is meaningless on an errored run). On AgentDyn that is 8,640 against 8,638: one run error
 * and one run without a verdict. The summary said "smaller by as many" naming the run errors only (1), so a reader
 * was one short; it now names both and the pool agree compares over.
 */
import { describe, expect, it } from "vitest";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const verdict = (id: string, label: Bucket): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: "ok", label, downgraded: false, usage: { prompt_tokens: 0, completion_tokens: 0 } }) as Verdict;
const row = (id: string, extra: Partial<TrajectoryIndexRow>) => [id, { id, attacked: true, agent_model: "m", ...extra } as TrajectoryIndexRow] as const;

describe("label summary: its attacked n beside agree --reference's", () => {
  it("names the run errors and the runs without a security verdict, and the pool agree compares over", () => {
    const index = new Map<string, TrajectoryIndexRow>([
      row("ok1", { reference: { security: true } }),
      row("ok2", { reference: { security: false } }),
      row("err", { reference: { security: true }, run_error: "agent crashed" }),
      row("noref", {}),
      row("u", { attacked: false, reference: { utility: true } }),
    ]);
    const s = summarizeRun("r", ["ok1", "ok2", "err", "noref", "u"].map((id) => verdict(id, id === "ok1" || id === "err" ? "full_compliance" : "unaffected")), index, []);
    expect(s.attacked).toBe(4);
    expect(s.attacked_run_errors).toBe(1);
    expect(s.attacked_without_reference).toBe(1);
    expect(s.judges[0].rates.asr_goal).toMatchObject({ count: 2, n: 4 });
    expect(s.judges[0].rates.reference_security).toMatchObject({ labelled: { n: 2 }, attacked_without_verdict: { no_reference: 1, run_error: 1 } });
    expect(unwrapText(formatSummary(s))).toContain(
      "run r: 5 trajectories (4 attacked, 1 unattacked), 5 verdicts of the 4 attacked runs, 1 ended in an agent error and 1 record no benchmark security verdict: the rates below count them (the judge labels what the trajectory shows); agree --reference leaves them out, so it compares over 2 attacked runs, not 4 (its n per judge: those of them the judge labelled)",
    );
  });

  it("one reason alone is said alone; neither: no line, and no attacked_without_reference key", () => {
    const only = summarizeRun("r", [verdict("a", "unaffected"), verdict("b", "unaffected")], new Map([row("a", { reference: { security: false } }), row("b", {})]), []);
    expect(unwrapText(formatSummary(only))).toContain(" of the 2 attacked runs, 1 record no benchmark security verdict: the rates below count them");
    const none = summarizeRun("r", [verdict("a", "unaffected")], new Map([row("a", { reference: { security: false } })]), []);
    expect("attacked_without_reference" in none).toBe(false);
    expect(formatSummary(none)).not.toContain("agree --reference leaves them out");
  });
});
