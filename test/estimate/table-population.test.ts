import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatTable, paperTable, tableCsv, tableLatex } from "../../src/estimate/table.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { parseCsv } from "../../src/io/csv.js";
import { RUNS, writeRun as writeRunIn, type Run } from "./unlike-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tablepop-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const writeRun = (name: string, runs: Run[]) => writeRunIn(tmp, name, runs);

const src = { kind: "judge" as const, judge_id: "gpt" };

describe("estimate --table: each row's n, marks on unlike rows, and --like-for-like (newuser47 #1)", () => {
  it("by default: every attacked run, n on each row in text, CSV and LaTeX; M's two rows marked with a footnote naming their n and attacks", async () => {
    const { index, verdicts } = await readLeanRun(writeRun("all", RUNS));
    const t = paperTable("r", index, verdicts, src);
    expect(t.population).toEqual({ kind: "all" });
    const m = t.rows.filter((r) => r.agent_model === "M");
    expect(m.map((r) => [r.condition, r.n_attacked, r.judge_asr_goal.x, r.attacks, r.mix_marks])).toEqual([
      ["D", 3, 1, { A: 3 }, ["a"]],
      ["no_defense", 8, 2, { A: 4, B: 4 }, ["a"]],
    ]);
    expect(t.mix_footnotes[0]).toEqual({
      mark: "a",
      text: "M: its conditions ran different attacks (D n 3 over 1 attack (A); no_defense n 8 over 2 attacks (A 4, B 4)): its rows do not compare like with like; --like-for-like builds them over the cells its conditions share, as compare --by condition does",
    });
    // under no_defense, G and M ran the same cells: G's row is not marked, and no other footnote
    expect(t.mix_footnotes.map((f) => f.mark)).toEqual(["a"]);
    const text = formatTable(t).split("\n");
    expect(text[0]).toMatch(/^population: every attacked run of each row \(n\)/);
    expect(text[1]).toMatch(/^model +condition +n +asr_goal %/);
    expect(text.find((l) => l.startsWith("M ") && l.includes("no_defense"))).toMatch(/^M +no_defense \[a\] +8 +25\.0 \[/);
    expect(text.find((l) => l.startsWith("M ") && l.includes(" D"))).toMatch(/^M +D \[a\] +3 +33\.3 \[/);
    expect(text).toContain(`[a] ${t.mix_footnotes[0].text}`);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    const at = (h: string) => csv[0].indexOf(h);
    expect(csv.slice(1).map((r) => [r[0], r[1], r[at("n_attacked")], r[at("population")], r[at("n_attacked_left_out")], r[at("attacks")], r[at("mix_marks")]])).toEqual([
      ["G", "no_defense", "8", "all", "", "A 4; B 4", ""],
      ["M", "D", "3", "all", "", "A 3", "[a]"],
      ["M", "no_defense", "8", "all", "", "A 4; B 4", "[a]"],
    ]);
    const tex = tableLatex(t);
    expect(tex).toContain("Model & Condition & $n$ & ASR (goal)");
    expect(tex).toContain("M & no\\_defense$^{\\mathrm{a}}$ & 8 & 25.0 {\\scriptsize [");
    expect(tex).toContain(`% $^{\\mathrm{a}}$ ${t.mix_footnotes[0].text}`);
  });

  it("--like-for-like: M's rows over the 3 cells both its conditions ran (66.7% against 33.3%), G kept whole; the same on the column path; the header says so", async () => {
    const dir = writeRun("lfl", RUNS);
    const { index, verdicts } = await readLeanRun(dir);
    const t = paperTable("r", index, verdicts, src, { likeForLike: true });
    const cols = paperTableColumns("r", await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS }), src, { likeForLike: true });
    expect(JSON.stringify(cols)).toBe(JSON.stringify(t));
    expect(t.population).toEqual({
      kind: "like_for_like",
      per_model: {
        G: { conditions: ["no_defense"], common_cells: 8, applied: true, kept: 8, of: 8 },
        M: { conditions: ["D", "no_defense"], common_cells: 3, applied: true, kept: 6, of: 11 },
      },
    });
    expect(t.rows.map((r) => [r.agent_model, r.condition, r.n_attacked, r.n_attacked_left_out, r.judge_asr_goal.x, r.attacks])).toEqual([
      ["G", "no_defense", 8, 0, 0, { A: 4, B: 4 }],
      ["M", "D", 3, 0, 1, { A: 3 }],
      ["M", "no_defense", 3, 5, 2, { A: 3 }],
    ]);
    // recomputed from the raw runs in a few lines: the cells M ran under both conditions, each condition's share
    const cell = (r: Run) => `${r.attack}/${r.user}`;
    const shared = new Set(RUNS.filter((r) => r.model === "M" && r.condition === "D").map(cell));
    const on = (c: string) => RUNS.filter((r) => r.model === "M" && r.condition === c && shared.has(cell(r)));
    expect([on("no_defense").filter((r) => r.full).length / on("no_defense").length, on("D").filter((r) => r.full).length / on("D").length]).toEqual([2 / 3, 1 / 3]);
    expect(t.rows.find((r) => r.agent_model === "M" && r.condition === "no_defense")!.judge_asr_goal.value).toBe(2 / 3);
    // M's conditions are now alike (no mark of its own); under no_defense, G's 8 cells beside M's 3 are still unlike
    expect(t.rows.map((r) => r.mix_marks)).toEqual([["a"], [], ["a"]]);
    expect(t.notes.some((n) => n.startsWith("WARNING: M: its conditions"))).toBe(false);
    // utility without attack stays over every unattacked run (they have no cell)
    expect(t.rows.map((r) => r.utility.n)).toEqual([1, 1, 1]);
    const text = formatTable(t).split("\n");
    expect(text[0]).toBe(
      "population: like for like (--like-for-like): each agent model's attacked runs on the (suite, user task, injection task, attack) cells all its conditions ran, as compare --by condition pairs them " +
        "(G: one condition, all 8 attacked runs; M: 3 cells, 6 of 11 attacked runs); utility without attack over all unattacked runs (they have no cell)",
    );
    expect(text.find((l) => l.startsWith("M ") && l.includes("no_defense"))).toMatch(/^M +no_defense \[a\] +3 +66\.7 \[/);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    const at = (h: string) => csv[0].indexOf(h);
    expect(csv.slice(1).map((r) => [r[1], r[at("n_attacked")], r[at("population")], r[at("n_attacked_left_out")]])).toEqual([
      ["no_defense", "8", "like_for_like", "0"],
      ["D", "3", "like_for_like", "0"],
      ["no_defense", "3", "like_for_like", "5"],
    ]);
    expect(tableLatex(t).split("\n")[1]).toMatch(/^% population: like for like/);
  });

  it("--like-for-like keeps whole, and names, a model whose conditions share no cell or whose runs lack task ids", async () => {
    const apart: Run[] = [
      { model: "K", condition: "no_defense", attack: "A", user: "u0", full: true },
      { model: "K", condition: "D", attack: "B", user: "u1" },
    ];
    const { index, verdicts } = await readLeanRun(writeRun("apart", apart));
    const t = paperTable("r", index, verdicts, src, { likeForLike: true });
    expect(t.population.per_model!.K).toMatchObject({ applied: false, common_cells: 0, kept: 2, of: 2 });
    expect(t.population.per_model!.K.reason).toMatch(/^its conditions share no \(suite, user task, injection task, attack\) cell \(D 1, no_defense 1\)/);
    expect(t.rows.map((r) => [r.condition, r.n_attacked, r.mix_marks])).toEqual([
      ["D", 1, ["a"]],
      ["no_defense", 1, ["a"]],
    ]);
    expect(t.mix_footnotes[0].text).toContain("its conditions could not be put on shared cells: see the population line");
    // a run without task ids: its model cannot be checked, so kept whole and said
    const dir = writeRun("noids", apart);
    const lines = fs.readFileSync(path.join(dir, "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    delete lines[0].user_task_id;
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const r = await readLeanRun(dir);
    const u = paperTable("r", r.index, r.verdicts, src, { likeForLike: true });
    expect(u.population.per_model!.K).toMatchObject({ applied: false, kept: 2, of: 2 });
    expect(u.population.per_model!.K.reason).toMatch(/^1 of its attacked runs have no user task or injection task id/);
  });
  it("--like-for-like says when a condition ran a shared cell more than once (break47b: the rows read as one run per cell)", async () => {
    // M's baseline ran (A, u0) twice (the second not full): 2/4 over the 3 shared cells beside D's 1/3
    const runs: Run[] = [...RUNS, { model: "M", condition: "no_defense", attack: "A", user: "u0" }];
    const { index, verdicts } = await readLeanRun(writeRun("repeat", runs));
    const t = paperTable("r", index, verdicts, src, { likeForLike: true });
    expect(t.population.per_model!.M).toEqual({ conditions: ["D", "no_defense"], common_cells: 3, applied: true, kept: 7, of: 12, runs_per_condition: { D: 3, no_defense: 4 } });
    expect(t.population.per_model!.G.runs_per_condition).toBeUndefined(); // one condition: nothing contrasted
    expect(t.rows.filter((r) => r.agent_model === "M").map((r) => [r.condition, r.n_attacked, r.judge_asr_goal.x])).toEqual([
      ["D", 3, 1],
      ["no_defense", 4, 2],
    ]);
    expect(formatTable(t).split("\n")[0]).toContain(
      "M: 3 cells, 7 of 12 attacked runs (runs per condition: D 3, no_defense 4: some cells ran more than once under a condition, so that condition's rate weights them more than one run per cell; compare --by condition calls the difference unpaired)",
    );
  });
});
