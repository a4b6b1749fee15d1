import { describe, expect, it } from "vitest";
import { formatTable, paperTable, tableCsv } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import { benchmarkCell, benchmarkGoalOf, NO_BENCHMARK_ON_JUDGED, NO_BENCHMARK_VERDICT, ONLY_DOS_RUNS } from "../../src/estimate/table-benchmark.js";
import { rateCell } from "../../src/estimate/table-cells.js";
import { parseCsv } from "../../src/io/csv.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

type Ref = { security?: boolean; utility?: boolean } | undefined;
const row = (id: string, model: string, reference: Ref, runError = false, attack?: string): TrajectoryIndexRow =>
  ({ id, agent_model: model, attacked: true, ...(attack ? { attack } : {}), content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2, ...(reference ? { reference } : {}), ...(runError ? { run_error: "boom" } : {}) }) as TrajectoryIndexRow;
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

  it("denial-of-service runs are left out (their security is the user task failed, not the goal): counted, named, never 'goal achieved' (newuser55 #2)", () => {
    expect(benchmarkGoalOf({ attack: "captcha_dos", reference: { security: true } })).toBe("no_reference");
    expect(benchmarkGoalOf({ attack: "dos", reference: { security: false } })).toBe("no_reference");
    expect(benchmarkGoalOf({ attack: "important_instructions", reference: { security: true } })).toBe(true);
    expect(benchmarkGoalOf({ attack: "dosage", reference: { security: true } })).toBe(true); // a name merely starting so
    // model d: 4 runs of an important_instructions attack (goal achieved on 1), 6 of dos attacks (security true on 5)
    const d = [
      ...Array.from({ length: 4 }, (_, i) => row(`d${i}`, "d", { security: i === 0, utility: true }, false, "important_instructions")),
      ...Array.from({ length: 6 }, (_, i) => row(`e${i}`, "d", { security: i < 5, utility: false }, false, i % 2 ? "felony_dos" : "dos")),
    ];
    // model o: dos runs only
    const o = Array.from({ length: 3 }, (_, i) => row(`o${i}`, "o", { security: true, utility: false }, false, "captcha_dos"));
    const all = [...d, ...o];
    const td = paperTable("r", new Map(all.map((r) => [r.id, r] as const)), all.map((r) => verdict(r.id, "gpt", "unaffected")), { kind: "judge", judge_id: "gpt" });
    const rd = td.rows.find((x) => x.agent_model === "d")!;
    // by hand: the 4 non-DoS runs, 1 goal achieved; the 6 DoS runs (5 security true) are not "goal achieved"
    expect(rd.benchmark_asr_goal).toMatchObject({ x: 1, n: 4, dos_left_out: 6 });
    const ro = td.rows.find((x) => x.agent_model === "o")!;
    expect(ro.benchmark_asr_goal).toMatchObject({ value: null, reason: ONLY_DOS_RUNS, dos_left_out: 3 });
    const text = formatTable(td);
    expect(text).toMatch(/^d (?:\[a\] +)?10 .*25\.0 \[[\d.]+, [\d.]+\] \(1\/4\)/m);
    expect(text).toMatch(/^o (?:\[a\] +)?3 .*undefined \(only denial of service runs\)/m);
    const note = text.replace(/\s+/g, " ");
    expect(note).toContain("and so are runs of a denial-of-service attack (dos, *_dos: there security means the user task was not completed, not the injected goal achieved)");
    expect(note).toContain("d: 6 of the judge's 10 (6 of them denial-of-service runs)");
    expect(note).toContain("o: 3 of the judge's 3 (all of them denial-of-service runs)");
  });

  it("benchmarkCell: the judge cell's own reason when the row has no attacked run; another when none judged has one", () => {
    const none = rateCell([], () => true, "gpt", "gpt", () => undefined, undefined, () => "no_reference");
    expect(benchmarkCell(none)).toMatchObject({ value: null, reason: "no_attacked_trajectories" });
    // two runs: the judged one has no benchmark verdict, the unjudged one has
    const c = rateCell([0, 1], (i) => (i === 0 ? true : "no_verdict"), "gpt", "gpt", () => undefined, undefined, (i) => (i === 0 ? "no_reference" : true));
    expect(benchmarkCell(c)).toMatchObject({ value: null, reason: NO_BENCHMARK_ON_JUDGED });
  });
});
