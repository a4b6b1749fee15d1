import { describe, expect, it } from "vitest";
import { formatTable, paperTable, tableCsv } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import { benchmarkCell, NO_BENCHMARK_ON_JUDGED, NO_BENCHMARK_VERDICT } from "../../src/estimate/table-benchmark.js";
import { rateCell } from "../../src/estimate/table-cells.js";
import { parseCsv } from "../../src/io/csv.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

type Ref = { security?: boolean; utility?: boolean } | undefined;
const row = (id: string, model: string, reference: Ref, runError = false): TrajectoryIndexRow =>
  ({ id, agent_model: model, attacked: true, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2, ...(reference ? { reference } : {}), ...(runError ? { run_error: "boom" } : {}) }) as TrajectoryIndexRow;
const verdict = (id: string, judge: string, label: Bucket | null, status: Verdict["status"] = "ok"): Verdict =>
  ({ trajectory_id: id, judge_id: judge, repeat: 0, status, label, compromised: label === null ? null : label === "full_compliance" || label === "partial_compliance" }) as Verdict;

describe("the paper table's benchmark column (newuser53 #4)", () => {
  // model a: 10 attacked runs; the judge says full compliance on 4 (t0-t3) and cannot label t9; the benchmark says
  // goal achieved on t0, t1, t4; t8 ended in an agent error (its security true, meaningless); t7 records none.
  // model b: 3 runs with no benchmark verdict at all.
  const sec = (i: number): Ref => (i === 7 ? { utility: true } : { security: i === 0 || i === 1 || i === 4 || i === 8, utility: true });
  const a = Array.from({ length: 10 }, (_, i) => row(`a${i}`, "a", sec(i), i === 8));
  const b = Array.from({ length: 3 }, (_, i) => row(`b${i}`, "b", undefined));
  const index = new Map([...a, ...b].map((r) => [r.id, r] as const));
  const verdicts = [
    ...a.map((r, i) => (i === 9 ? verdict(r.id, "gpt", null, "judge_error") : verdict(r.id, "gpt", i < 4 ? "full_compliance" : "unaffected"))),
    ...b.map((r) => verdict(r.id, "gpt", "unaffected")),
  ];
  const t = paperTable("r", index, verdicts, { kind: "judge", judge_id: "gpt" });

  it("is the benchmark's rate over the judge's runs that carry a usable verdict: 3 of 7 (t7 none, t8 error, t9 unlabelled)", () => {
    const r = t.rows.find((x) => x.agent_model === "a")!;
    expect(r.judge_asr_goal).toMatchObject({ x: 4, n: 9 });
    // by hand: judged runs t0..t8; usable benchmark verdict: t0-t6 (t7 none, t8 agent error): goal achieved t0, t1, t4
    expect(r.benchmark_asr_goal).toMatchObject({ x: 3, n: 7, coverage: 0.9, coverage_low: false });
    expect(r.benchmark_asr_goal.value).toBeCloseTo(3 / 7, 12);
  });

  it("a row whose runs carry none: null with the reason, never 0; the note names the runs left out", () => {
    const r = t.rows.find((x) => x.agent_model === "b")!;
    expect(r.benchmark_asr_goal).toMatchObject({ value: null, reason: NO_BENCHMARK_VERDICT });
    const text = formatTable(t);
    expect(text).toMatch(/^b +3 .*undefined \(no benchmark verdict in input\)/m);
    expect(text).toMatch(/^a +10 .*42\.9 \[[\d.]+, [\d.]+\] \(3\/7\)/m);
    expect(text).toContain("benchmark asr_goal: the benchmark's own attack verdict");
    expect(text).toContain("a: 2 of the judge's 9"); // t7 (none) and t8 (agent error)
  });

  it("CSV and LaTeX carry the same column, with its n and reason", () => {
    const rows = parseCsv(tableCsv(t)).map((x) => x.fields);
    const h = rows[0];
    const get = (m: string, k: string) => rows.find((x) => x[0] === m)![h.indexOf(k)];
    expect(h.indexOf("benchmark_asr_goal")).toBe(h.indexOf("judge_asr_goal_reason") + 1);
    expect(Number(get("a", "benchmark_asr_goal"))).toBeCloseTo(3 / 7, 12);
    expect(get("a", "benchmark_asr_goal_n")).toBe("7");
    expect(get("b", "benchmark_asr_goal")).toBe("");
    expect(get("b", "benchmark_asr_goal_reason")).toBe(NO_BENCHMARK_VERDICT);
    const tex = tableLatex(t);
    expect(tex).toContain("& ASR (goal) & Benchmark ASR (goal) &");
    expect(tex).toMatch(/42\.9 \{\\scriptsize \[[\d.]+, [\d.]+\]\} \{\\scriptsize \(3\/7\)\}/);
    expect(tex).toContain("b Benchmark ASR (goal)"); // the undefined cell, named in the rendered note
  });

  it("a table no run of which carries one: no column, and a note that says so", () => {
    const only = paperTable("r", new Map(b.map((r) => [r.id, r] as const)), verdicts, { kind: "judge", judge_id: "gpt" });
    expect(formatTable(only)).not.toContain("benchmark asr_goal %");
    expect(formatTable(only)).toContain("benchmark asr_goal: not shown: no attacked run of the table carries a usable benchmark verdict");
    expect(parseCsv(tableCsv(only))[0].fields).not.toContain("benchmark_asr_goal");
    expect(tableLatex(only)).not.toContain("Benchmark ASR");
  });

  it("benchmarkCell: the judge cell's own reason when the row has no attacked run; another when none judged has one", () => {
    const none = rateCell([], () => true, "gpt", "gpt", () => undefined, undefined, () => "no_reference");
    expect(benchmarkCell(none)).toMatchObject({ value: null, reason: "no_attacked_trajectories" });
    // two runs: the judged one has no benchmark verdict, the unjudged one has
    const c = rateCell([0, 1], (i) => (i === 0 ? true : "no_verdict"), "gpt", "gpt", () => undefined, undefined, (i) => (i === 0 ? "no_reference" : true));
    expect(benchmarkCell(c)).toMatchObject({ value: null, reason: NO_BENCHMARK_ON_JUDGED });
  });
});
