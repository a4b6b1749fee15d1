/**
 * New user 49 item 2: `label`'s "labels (repeat 0)" counts covered every run (AgentDyn: not_exposed 5810 = 4432 attacked
 * + 1378 unattacked) under the heading of the 8,640 attacked runs, so `attacked - not_exposed` did not give the
 * exposure above it. The counts now say their population: all runs it labelled, split into attacked and unattacked,
 * the attacked column adding up to the rates' `labelled` and giving the exposure.
 */
import { describe, expect, it } from "vitest";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { BUCKETS, type Bucket, type Verdict } from "../../src/types.js";

const ok = (id: string, label: Bucket): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: "ok", label, downgraded: false, findings: [], usage: { prompt_tokens: 0, completion_tokens: 0 } }) as unknown as Verdict;

describe("label summary: label counts with their population", () => {
  // 4 attacked (1 full, 1 unaffected, 2 not_exposed), 3 unattacked (not_exposed)
  const attacked = ["a", "b", "c", "d"];
  const index = new Map<string, TrajectoryIndexRow>(
    [...attacked, "u1", "u2", "u3"].map((id) => [id, { id, attacked: attacked.includes(id), agent_model: "m" } as TrajectoryIndexRow]),
  );
  const verdicts = [ok("a", "full_compliance"), ok("b", "unaffected"), ok("c", "not_exposed"), ok("d", "not_exposed"), ok("u1", "not_exposed"), ok("u2", "not_exposed"), ok("u3", "not_exposed")];
  const s = summarizeRun("r", verdicts, index, []);
  const j = s.judges[0];

  it("summary.json splits by_label into attacked and unattacked; they add up, and the attacked ones are the rates' labelled", () => {
    expect(j.by_label.not_exposed).toBe(5);
    expect(j.by_label_attacked).toMatchObject({ full_compliance: 1, unaffected: 1, not_exposed: 2 });
    expect(j.by_label_unattacked).toMatchObject({ full_compliance: 0, unaffected: 0, not_exposed: 3 });
    for (const b of BUCKETS) expect(j.by_label_attacked[b] + j.by_label_unattacked[b]).toBe(j.by_label[b]);
    const att = BUCKETS.reduce((n, b) => n + j.by_label_attacked[b], 0);
    expect(att).toBe(j.rates.labelled);
    expect(att - j.by_label_attacked.not_exposed).toBe(j.exposure.count);
  });

  it("the text names the population of each column: all runs it labelled, attacked, unattacked", () => {
    const text = formatSummary(s);
    expect(text).toContain("  labels (repeat 0) of the 7 runs it labelled: 4 attacked, 3 unattacked:\n");
    expect(text).toMatch(/\n {4} +all +attacked +unattacked\n/);
    expect(text).toMatch(/\n {4}not_exposed +5 +2 +3\n/);
    expect(text).toMatch(/\n {4}full_compliance +1 +1 +0\n/);
    expect(text).not.toContain("labels (repeat 0):");
  });
});
