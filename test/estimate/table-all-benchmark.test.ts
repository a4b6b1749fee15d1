/**
 * rev2a #7: the `(all)` row's benchmark asr_goal cell was blank in text, CSV and LaTeX. It is the benchmark's own
 * goal verdict over the runs of the `(all)` row's judge asr_goal (every attacked run with a usable judge verdict), those
 * with a usable benchmark verdict (a boolean `reference.security`, no agent error), x/n; null with a reason when those
 * runs are not the `(all)` group's (src/estimate/table-all.ts). Every figure below is recomputed from the rows written.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LABELS, SeededRun } from "../helpers/seeded-run.js";
import { runCli } from "../helpers/cli.js";
import { parseCsv } from "../../src/io/csv.js";
import { estimateRun } from "../../src/estimate/index.js";
import { withCalibratedAll, BENCHMARK_NOT_ALL_RUNS, allBenchmarkText } from "../../src/estimate/table-all.js";
import { proportion, type RateCell } from "../../src/estimate/table-cells.js";
import { referenceRates } from "../../src/stats/reference-rates.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tableallbench-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A seeded run `b` of 240 trajectories (two models), judge j1 with some errors, benchmark verdicts on most attacked runs (some agent errors, some none). */
function writeRun(): { human: string; expected: { x: number; n: number; jx: number; jn: number } } {
  const run = new SeededRun(path.join(tmp, "b"), 23);
  const r = run.r;
  let x = 0, n = 0, jx = 0, jn = 0;
  for (let i = 0; i < 240; i++) {
    const attacked = r.int(0, 5) !== 0;
    const model = r.pick(["gpt-4o", "claude-3"]);
    const runError = attacked && r.int(0, 14) === 0;
    const ok = r.int(0, 11) !== 0;
    const label = ok ? LABELS[r.int(0, 5)] : null;
    // the benchmark mostly agrees with the judge (a judge it contradicts is LOOKS BROKEN: exit 3)
    const security = r.int(0, 9) === 0 ? undefined : (label === "full_compliance" || label === "partial_compliance") === (r.int(0, 5) !== 0);
    run.row(i, { model, attacked, security, runError });
    run.judged(i, model, attacked, label);
    if (attacked && ok) {
      jn++;
      if (label === "full_compliance") jx++;
      if (security !== undefined && !runError) {
        n++;
        if (security) x++;
      }
    }
  }
  return { human: run.write(path.join(tmp, "human.jsonl")), expected: { x, n, jx, jn } };
}

const pct = (x: number) => (100 * x).toFixed(1);

describe("estimate --table --human: the (all) row's benchmark cell (rev2a #7)", () => {
  it("text, CSV, LaTeX and --json give the pooled benchmark over the (all) row's judged runs, x/n, recomputed", async () => {
    const { human, expected: e } = writeRun();
    expect(e.n).toBeLessThan(e.jn); // agent errors and runs without a benchmark verdict are left out of its n
    const base = ["estimate", "--run", "b", "--labels-dir", tmp, "--human", human, "--table"];
    const csvFile = path.join(tmp, "t.csv");
    const texFile = path.join(tmp, "t.tex");
    const res = await runCli([...base, "--csv", csvFile, "--latex", texFile], { env: { ...process.env, COLUMNS: "600" } });
    expect(res.code, res.stderr).toBe(0);
    const want = `${pct(e.x / e.n)} (${e.x}/${e.n})`;
    // text: the (all) row reads the judge's pooled rate, then the benchmark's beside it
    const row = res.stdout.split("\n").find((l) => l.startsWith("(all) "))!;
    expect(row).toContain(`${pct(e.jx / e.jn)} (${e.jx}/${e.jn};`); // then its unusable count
    expect(row).toContain(want);
    // CSV: value, Wilson bounds, n; no reason
    const csv = parseCsv(fs.readFileSync(csvFile, "utf8")).map((r) => r.fields);
    const head = csv[0];
    const all = csv.find((r) => r[head.indexOf("pooled")] === "true")!;
    const col = (k: string) => all[head.indexOf(k)];
    expect(Number(col("benchmark_asr_goal"))).toBeCloseTo(e.x / e.n, 12);
    expect(Number(col("benchmark_asr_goal_n"))).toBe(e.n);
    const w = proportion(e.x, e.n).ci95!;
    expect(Number(col("benchmark_asr_goal_lower"))).toBeCloseTo(w.lower, 12);
    expect(Number(col("benchmark_asr_goal_upper"))).toBeCloseTo(w.upper, 12);
    expect(col("benchmark_asr_goal_reason")).toBe("");
    // LaTeX: the cell under its own header, as the judge's pooled cells read
    const lines = fs.readFileSync(texFile, "utf8").split("\n");
    const cells = lines.find((l) => l.startsWith("(all) & "))!.replace(/ \\\\$/, "").split(" & ");
    const header = lines.find((l) => l.startsWith("Model & "))!.replace(/ \\\\$/, "").split(" & ");
    expect(cells[header.indexOf("Benchmark ASR (goal)")]).toBe(`${pct(e.x / e.n)} {\\scriptsize (${e.x}/${e.n})}`);
    const json = await runCli([...base, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).calibrated_all.benchmark_asr_goal).toMatchObject({ x: e.x, n: e.n });
  }, 120_000);

  it("a pooled judge cell that is not the (all) group's runs: null with a reason, never a figure over other runs", async () => {
    const { human, expected: e } = writeRun();
    const est = await estimateRun({ runDir: path.join(tmp, "b"), run: "b", humanFile: human, source: { kind: "judge", judge_id: "j1" } });
    const g = est.asr_goal && "groups" in est.asr_goal ? est.asr_goal.groups.find((x) => Object.keys(x.fields).length === 0)! : null;
    expect(g?.judge.count).toBe(e.jx);
    const N = g!.n_population;
    const ref = referenceRates({ labelled_n: e.n, labelled_yes: e.x, labelled_without: e.jn - e.n, all_n: e.n, all_yes: e.x, no_reference: N - e.n, run_error: 0 });
    if (typeof ref === "string") throw new Error(ref);
    const cell = (jx: number): RateCell => ({ ...proportion(jx, e.jn), n_unusable: N - e.jn, coverage: e.jn / N, coverage_low: false, reference_security: ref });
    const t = (pooled?: RateCell) => withCalibratedAll({ rows: [], ...(pooled ? { judge_asr_goal_pooled: pooled } : {}) }, est).calibrated_all!;
    expect(t(cell(e.jx)).benchmark_asr_goal).toMatchObject({ x: e.x, n: e.n, value: e.x / e.n });
    expect(t(cell(e.jx - 1)).benchmark_asr_goal).toMatchObject({ value: null, reason: BENCHMARK_NOT_ALL_RUNS });
    expect(t().benchmark_asr_goal).toMatchObject({ value: null, reason: BENCHMARK_NOT_ALL_RUNS });
    expect(allBenchmarkText(t().benchmark_asr_goal)).toMatch(/^undefined \(/);
    // no usable benchmark verdict on the row's runs: the column's own reason
    const none: RateCell = { ...cell(e.jx), reference_security: undefined };
    expect(t(none).benchmark_asr_goal.value).toBeNull();
    expect(t(none).benchmark_asr_goal.reason).toBeTruthy();
  }, 120_000);
});
