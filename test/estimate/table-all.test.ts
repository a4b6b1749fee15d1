/**
 * `estimate --table --human` has the `(all)` row (session 46): the pooled calibrated estimate exactly as `estimate`
 * prints its `(all)` group (src/estimate/table-all.ts), in the text table, --json (`calibrated_all`) and --csv (a row
 * `pooled` true, model and condition empty, with the calibrated and judge columns), as the report shows it (test/report/calibrated-all.test.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LABELS, SeededRun } from "../helpers/seeded-run.js";
import { runCli } from "../helpers/cli.js";
import { parseCsv } from "../../src/io/csv.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tableall-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A seeded run `r` of 240 trajectories (two models, two conditions), judge j1, and a human file over about a third of the attacked ones. */
function writeRun(): string {
  const run = new SeededRun(path.join(tmp, "r"), 11);
  const r = run.r;
  for (let i = 0; i < 240; i++) {
    const attacked = r.int(0, 5) !== 0;
    const model = r.pick(["gpt-4o", "claude-3"]);
    run.row(i, { model, attacked, conditions: true });
    run.judged(i, model, attacked, LABELS[r.int(0, 5)]);
  }
  return run.write(path.join(tmp, "human.jsonl"));
}

describe("estimate --table --human: the (all) row is estimate's (all) group", () => {
  it("text, --json and --csv carry the same pooled figures as estimate without --table", async () => {
    const human = writeRun();
    const base = ["estimate", "--run", "r", "--labels-dir", tmp, "--human", human];
    const est = await runCli([...base, "--json"]);
    expect(est.code, est.stderr).toBe(0);
    const e = JSON.parse(est.stdout);
    const allOf = (groups: Array<{ group: string }>) => groups.find((g) => g.group === "(all)")!;
    const beh = allOf(e.groups) as unknown as { n_population: number; calibrated: { asr: number; ci95: { lower: number; upper: number } }; judge: { asr: number; n_usable: number } };
    const goal = allOf(e.asr_goal.groups) as unknown as typeof beh;
    // --json: the table's calibrated_all holds estimate's (all) group of each rate
    const csvFile = path.join(tmp, "t.csv");
    const tj = await runCli([...base, "--table", "--json", "--csv", csvFile]);
    expect(tj.code, tj.stderr).toBe(0);
    const t = JSON.parse(tj.stdout);
    expect(t.calibrated_all.asr_behaviour.group).toEqual(beh);
    expect(t.calibrated_all.asr_goal.group).toEqual(goal);
    expect(t.calibrated_all.n_population).toBe(beh.n_population);
    // --csv: one (all) row after the per-model rows, its calibrated and judge columns as estimate's
    const csv = parseCsv(fs.readFileSync(csvFile, "utf8")).map((r) => r.fields);
    const head = csv[0];
    const all = csv.filter((r) => r[head.indexOf("pooled")] === "true");
    expect(all).toHaveLength(1);
    expect(csv.slice(1, -1).every((r) => r[head.indexOf("pooled")] === "false")).toBe(true);
    expect(csv[csv.length - 1]).toBe(all[0]);
    const col = (k: string) => all[0][head.indexOf(k)];
    expect([col("agent_model"), col("condition")]).toEqual(["", ""]); // no model named "(all)" (fix50b)
    expect(Number(col("n_attacked"))).toBe(beh.n_population);
    expect(Number(col("calibrated_asr_behaviour"))).toBe(beh.calibrated.asr);
    expect(Number(col("calibrated_asr_behaviour_lower"))).toBe(beh.calibrated.ci95.lower);
    expect(Number(col("calibrated_asr_behaviour_upper"))).toBe(beh.calibrated.ci95.upper);
    expect(Number(col("calibrated_asr_goal"))).toBe(goal.calibrated.asr);
    expect(Number(col("judge_asr_goal"))).toBe(goal.judge.asr);
    expect(Number(col("judge_asr_behaviour_n"))).toBe(beh.judge.n_usable);
    expect(col("judge_asr_goal_lower")).toBe(""); // estimate gives the judge's pooled rate no interval
    expect(all[0]).toHaveLength(head.length);
    // text: an (all) row in the table, then the line the report prints, with estimate's own figures
    const text = await runCli([...base, "--table"], { env: { ...process.env, COLUMNS: "600" } });
    expect(text.code, text.stderr).toBe(0);
    const pct = (x: number) => (100 * x).toFixed(1);
    const row = text.stdout.split("\n").find((l) => l.startsWith("(all) "))!;
    expect(row).toMatch(/^\(all\)\s+\(all\)\s+/);
    expect(row).toContain(`${pct(beh.calibrated.asr)} [${pct(beh.calibrated.ci95.lower)}, ${pct(beh.calibrated.ci95.upper)}]`);
    const plainText = await runCli(base);
    const calLine = plainText.stdout.split("\n").find((l) => l.trimStart().startsWith("calibrated "))!;
    // estimate prints asr_behaviour's (all) group first
    expect(unwrapText(text.stdout)).toContain(`asr_behaviour ${calLine.trim().replace(/^calibrated\s+/, "")}`);
    // its rows are cut to their models' shared cells: (all) says it is over every run, not theirs (est52 #3)
    expect(unwrapText(text.stdout)).toMatch(/\(all\): the calibrated estimate over all \d+ attacked trajectories of the rows' agent models and conditions, every run of theirs: not the like-for-like cells the rows above are over \(their n sum to \d+; \d+ runs on cells of their own left out there\)/);
    // LaTeX (session 47): the same row after a \midrule, its pooling and notes as comment lines under the tabular
    const texFile = path.join(tmp, "t.tex");
    const tex = await runCli([...base, "--table", "--latex", texFile]);
    expect(tex.code, tex.stderr).toBe(0);
    const lines = fs.readFileSync(texFile, "utf8").split("\n");
    const at = lines.findIndex((l) => l.startsWith("(all) & "));
    expect(lines[at - 1]).toBe("\\midrule");
    expect(lines[at + 1]).toBe("\\bottomrule");
    const cells = lines[at].replace(/ \\\\$/, "").split(" & ");
    const header = lines.find((l) => l.startsWith("Model & "))!.replace(/ \\\\$/, "").split(" & ");
    expect(cells).toHaveLength(header.length);
    const cellOf = (title: string) => cells[header.indexOf(title)];
    expect(cells[1]).toBe("(all)");
    expect(cellOf("Calibrated ASR (behaviour)")).toMatch(new RegExp(`^${pct(beh.calibrated.asr)} \\{\\\\scriptsize \\[${pct(beh.calibrated.ci95.lower)}, ${pct(beh.calibrated.ci95.upper)}\\]\\}`));
    expect(cellOf("Calibrated ASR (goal)")).toMatch(new RegExp(`^${pct(goal.calibrated.asr)} \\{\\\\scriptsize \\[`));
    expect(cellOf("ASR (behaviour)")).toBe(`${pct(beh.judge.asr)} {\\scriptsize (${Math.round(beh.judge.asr * beh.judge.n_usable)}/${beh.judge.n_usable})}`);
    expect(cellOf("Utility")).toBe("");
    expect(cells[cells.length - 1]).toBe(""); // Blocked: per row only
    const after = lines.slice(lines.indexOf("\\end{tabular}") + 1);
    expect(after.find((l) => l.startsWith("% calibrated (all) over "))).toContain(`asr_behaviour ${calLine.trim().replace(/^calibrated\s+/, "")}`);
    expect(after.some((l) => /^% \(all\): the calibrated estimate over all \d+ attacked trajectories/.test(l))).toBe(true);
  }, 120_000);
});
