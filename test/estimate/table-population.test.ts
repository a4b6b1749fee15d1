import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatTable, paperTable, tableCsv } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { parseCsv } from "../../src/io/csv.js";
import { RUNS, writeRun as writeRunIn, type Run } from "./unlike-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tablepop-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const writeRun = (name: string, runs: Run[]) => writeRunIn(tmp, name, runs);

const src = { kind: "judge" as const, judge_id: "gpt" };

describe("estimate --table: like for like by default, each row's n and what it is over, --own-mix with marks on unlike rows (newuser47 #1, session 51)", () => {
  it("--own-mix: every attacked run, n and 'all runs' on each row in text, CSV and LaTeX; M's two rows marked with a footnote naming their n and attacks", async () => {
    const { index, verdicts } = await readLeanRun(writeRun("all", RUNS));
    const t = paperTable("r", index, verdicts, src, { ownMix: true });
    expect(t.population).toEqual({ kind: "own_mix" });
    const m = t.rows.filter((r) => r.agent_model === "M");
    expect(m.map((r) => [r.condition, r.n_attacked, r.judge_asr_goal.x, r.attacks, r.mix_marks])).toEqual([
      ["D", 3, 1, { A: 3 }, ["a"]],
      ["no_defense", 8, 2, { A: 4, B: 4 }, ["a"]],
    ]);
    expect(t.mix_footnotes[0]).toEqual({
      mark: "a",
      text: '"M": its conditions ran different attacks ("D" n 3 over 1 attack (A); "no_defense" n 8 over 2 attacks (A 4, B 4)): its rows do not compare like with like; without --own-mix the table builds them over the cells its conditions share, as compare --by condition does',
    });
    // under no_defense, G and M ran the same cells: G's row is not marked, and no other footnote
    expect(t.mix_footnotes.map((f) => f.mark)).toEqual(["a"]);
    const text = formatTable(t).split("\n");
    expect(text[0]).toMatch(/^population: own mix \(--own-mix\): every attacked run of each row \(n\)/);
    expect(text[1]).toMatch(/^model +condition +n +over +asr_goal %/);
    expect(text.find((l) => l.startsWith("M ") && l.includes("no_defense"))).toMatch(/^M +no_defense \[a\] +8 +all runs +25\.0 \[/);
    expect(text.find((l) => l.startsWith("M ") && l.includes(" D"))).toMatch(/^M +D \[a\] +3 +all runs +33\.3 \[/);
    expect(text).toContain(`[a] ${t.mix_footnotes[0].text}`);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    const at = (h: string) => csv[0].indexOf(h);
    expect(csv.slice(1).map((r) => [r[0], r[1], r[at("n_attacked")], r[at("population")], r[at("n_attacked_left_out")], r[at("cells_left_out")], r[at("over")], r[at("attacks")], r[at("mix_marks")]])).toEqual([
      ["G", "no_defense", "8", "own_mix", "0", "0", "all runs", "A 4; B 4", ""],
      ["M", "D", "3", "own_mix", "0", "0", "all runs", "A 3", "[a]"],
      ["M", "no_defense", "8", "own_mix", "0", "0", "all runs", "A 4; B 4", "[a]"],
    ]);
    const tex = tableLatex(t);
    expect(tex).toContain("Model & Condition & $n$ & ASR (goal)");
    expect(tex).toContain("M & no\\_defense$^{\\mathrm{a}}$ & 8 & 25.0 {\\scriptsize [");
    expect(tex).toContain(`% $^{\\mathrm{a}}$ ${t.mix_footnotes[0].text}`);
  });

  it("by default (and --like-for-like, now the default): M's rows over the 3 cells both its conditions ran (66.7% against 33.3%), G kept whole; the same on the column path; the header and each row say so", async () => {
    const dir = writeRun("lfl", RUNS);
    const { index, verdicts } = await readLeanRun(dir);
    const t = paperTable("r", index, verdicts, src);
    const cols = paperTableColumns("r", await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS }), src);
    expect(JSON.stringify(cols)).toBe(JSON.stringify(t));
    expect(t.population).toEqual({
      kind: "like_for_like",
      per_model: {
        G: { conditions: ["no_defense"], common_cells: 8, applied: true, kept: 8, of: 8, cells_per_condition: { no_defense: 8 } },
        M: { conditions: ["D", "no_defense"], common_cells: 3, applied: true, kept: 6, of: 11, cells_per_condition: { D: 3, no_defense: 8 } },
      },
    });
    expect(t.rows.map((r) => [r.agent_model, r.condition, r.n_attacked, r.n_attacked_left_out, r.cells_left_out, r.over, r.judge_asr_goal.x, r.attacks])).toEqual([
      ["G", "no_defense", 8, 0, 0, "all runs", 0, { A: 4, B: 4 }],
      ["M", "D", 3, 0, 0, "all runs", 1, { A: 3 }],
      ["M", "no_defense", 3, 5, 5, "3 shared cells (5 runs on 5 cells left out)", 2, { A: 3 }],
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
    // utility without attack over the unattacked runs on the shared cells' user tasks: here each row's one (on u0)
    expect(t.rows.map((r) => r.utility.n)).toEqual([1, 1, 1]);
    const text = formatTable(t).split("\n");
    expect(text[0]).toBe(
      "population: like for like: each agent model's attacked runs on the (suite, user task, injection task, attack) cells all its conditions ran, as compare --by condition pairs them " +
        '("G": one condition, all 8 attacked runs; "M": 3 cells, 6 of 11 attacked runs); utility without attack over the unattacked runs of the user tasks (suite, user task) of those cells; --own-mix gives each row over all its own runs',
    );
    expect(text.find((l) => l.startsWith("M ") && l.includes("no_defense"))).toMatch(/^M +no_defense \[a\] +3 +3 shared cells \(5 runs on 5 cells left out\) +66\.7 \[/);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    const at = (h: string) => csv[0].indexOf(h);
    expect(csv.slice(1).map((r) => [r[1], r[at("n_attacked")], r[at("population")], r[at("n_attacked_left_out")], r[at("cells_left_out")], r[at("over")]])).toEqual([
      ["no_defense", "8", "like_for_like", "0", "0", "all runs"],
      ["D", "3", "like_for_like", "0", "0", "all runs"],
      ["no_defense", "3", "like_for_like", "5", "5", "3 shared cells (5 runs on 5 cells left out)"],
    ]);
    const tex = tableLatex(t).split("\n");
    expect(tex[1]).toMatch(/^% population: like for like/);
    expect(tex).toContain("% over: M | no_defense: n 3, 3 shared cells (5 runs on 5 cells left out)");
    expect(tex).toContain("% over: G | no_defense: n 8, all runs");
    // --like-for-like (the default) and no option build the same table
    expect(JSON.stringify(paperTable("r", index, verdicts, src, { ownMix: false }))).toBe(JSON.stringify(t));
  });

  it("a model whose conditions share no cell gets no number, the reason naming its conditions, in every output (never its own mix in silence); --own-mix gives its own mix, marked", async () => {
    const apart: Run[] = [
      { model: "K", condition: "no_defense", attack: "A", user: "u0", full: true },
      { model: "K", condition: "D", attack: "B", user: "u1" },
      ...RUNS.filter((r) => r.model === "G"),
    ];
    const dir = writeRun("apart", apart);
    const { index, verdicts } = await readLeanRun(dir);
    const t = paperTable("r", index, verdicts, src);
    expect(JSON.stringify(paperTableColumns("r", await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS }), src))).toBe(JSON.stringify(t));
    expect(t.population.per_model!.K).toMatchObject({ applied: false, common_cells: 0, kept: 0, of: 2 });
    const why = 'its conditions "D", "no_defense" share no (suite, user task, injection task, attack) cell (cells: "D" 1, "no_defense" 1)';
    expect(t.population.per_model!.K.reason).toBe(why);
    const k = t.rows.filter((r) => r.agent_model === "K");
    expect(k.map((r) => [r.condition, r.n_attacked, r.n_attacked_left_out, r.cells_left_out, r.over, r.mix_marks])).toEqual([
      ["D", 0, 1, 1, `no number: ${why}`, []],
      ["no_defense", 0, 1, 1, `no number: ${why}`, []],
    ]);
    const reason = `no_like_for_like_cells ("K": ${why}; --own-mix gives each row over its own runs, marked where unlike)`;
    for (const r of k) {
      for (const c of [r.judge_asr_goal, r.judge_asr_behaviour, r.refusal_rate, r.judge_exposure, r.utility_under_attack]) expect(c).toMatchObject({ value: null, reason });
      expect(r.judge_blocked_attempts_reason).toBe(reason);
      // its utility too: each condition's unattacked runs are on tasks the other did not run (break52: banking beside slack)
      expect(r.utility).toMatchObject({ value: null, n: 0, reason });
    }
    expect(t.rows.find((r) => r.agent_model === "G")!.over).toBe("all runs");
    const text = formatTable(t);
    expect(text.split("\n")[0]).toContain(`"K": no number (${why}; 2 attacked runs)`);
    expect(text).toMatch(/\nK +D +0 +no number: its conditions "D", "no_defense" share no .*undefined \(no like-for-like rate: the model's conditions cannot be put on shared \(suite, user task, injection task, attack\) cells; "K": its conditions/);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    const at = (h: string) => csv[0].indexOf(h);
    expect(csv.slice(1).filter((r) => r[0] === "K").map((r) => [r[at("judge_asr_goal")], r[at("judge_asr_goal_reason")], r[at("over")]])).toEqual([
      ["", reason, `no number: ${why}`],
      ["", reason, `no number: ${why}`],
    ]);
    expect(tableLatex(t)).toContain(`% over: K | D: n 0, no number: ${why}`);
    // --own-mix: each row over its own run, marked
    const own = paperTable("r", index, verdicts, src, { ownMix: true });
    expect(own.rows.filter((r) => r.agent_model === "K").map((r) => [r.condition, r.n_attacked, r.judge_asr_goal.value, r.mix_marks])).toEqual([
      ["D", 1, 0, ["a"]],
      ["no_defense", 1, 1, ["a", "b"]], // and under no_defense, K's cell beside G's 8
    ]);
  });

  it("runs without task ids: compared on attacks and suites, as the check compares them; the same attacks and suites keep every run, said; different ones give no number", async () => {
    const dropIds = (dir: string) => {
      const lines = fs.readFileSync(path.join(dir, "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      for (const l of lines) delete l.user_task_id;
      fs.writeFileSync(path.join(dir, "trajectories.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
      return dir;
    };
    const alike: Run[] = [
      { model: "K", condition: "no_defense", attack: "A", user: "u0", full: true },
      { model: "K", condition: "no_defense", attack: "A", user: "u1" },
      { model: "K", condition: "D", attack: "A", user: "u2" },
    ];
    const a = await readLeanRun(dropIds(writeRun("noids", alike)));
    const t = paperTable("r", a.index, a.verdicts, src);
    expect(t.population.per_model!.K).toEqual({ conditions: ["D", "no_defense"], common_cells: 0, applied: true, kept: 3, of: 3, cells_unknown: 3 });
    expect(t.rows.map((r) => [r.condition, r.n_attacked, r.cells_left_out, r.over, r.judge_asr_goal.value])).toEqual([
      ["D", 1, null, "all runs (cells not compared: 3 attacked runs of the model without task ids; its conditions ran the same attacks and suites)", 0],
      ["no_defense", 2, null, "all runs (cells not compared: 3 attacked runs of the model without task ids; its conditions ran the same attacks and suites)", 0.5],
    ]);
    const unlike = await readLeanRun(dropIds(writeRun("noids2", [...alike, { model: "K", condition: "no_defense", attack: "B", user: "u3" }])));
    const u = paperTable("r", unlike.index, unlike.verdicts, src);
    expect(u.population.per_model!.K).toMatchObject({ applied: false, kept: 0, of: 4 });
    expect(u.population.per_model!.K.reason).toBe('4 of its attacked runs have no user task or injection task id, so its cells are unknown, and its conditions "D", "no_defense" ran different attacks or suites');
    expect(u.rows.map((r) => [r.n_attacked, r.judge_asr_goal.value, r.cells_left_out])).toEqual([
      [0, null, null],
      [0, null, null],
    ]);
  });
  it("like for like says when a condition ran a shared cell more than once (break47b: the rows read as one run per cell)", async () => {
    // M's baseline ran (A, u0) twice (the second not full): 2/4 over the 3 shared cells beside D's 1/3
    const runs: Run[] = [...RUNS, { model: "M", condition: "no_defense", attack: "A", user: "u0" }];
    const { index, verdicts } = await readLeanRun(writeRun("repeat", runs));
    const t = paperTable("r", index, verdicts, src);
    expect(t.population.per_model!.M).toEqual({ conditions: ["D", "no_defense"], common_cells: 3, applied: true, kept: 7, of: 12, cells_per_condition: { D: 3, no_defense: 8 }, runs_per_condition: { D: 3, no_defense: 4 } });
    expect(t.population.per_model!.G.runs_per_condition).toBeUndefined(); // one condition: nothing contrasted
    expect(t.rows.filter((r) => r.agent_model === "M").map((r) => [r.condition, r.n_attacked, r.judge_asr_goal.x])).toEqual([
      ["D", 3, 1],
      ["no_defense", 4, 2],
    ]);
    expect(formatTable(t).split("\n")[0]).toContain(
      `"M": 3 cells, 7 of 12 attacked runs (runs per condition: "D" 3, "no_defense" 4: some cells ran more than once under a condition, so that condition's rate weights them more than one run per cell; compare --by condition calls the difference unpaired)`,
    );
  });
});

describe("estimate --table like for like: the utility column is cut with the rates (break52 #4b)", () => {
  it("each model's utility over its unattacked runs on the (suite, user task) pairs of its shared cells, said on the row; the same on the column path", async () => {
    // M's no_defense ran suites s1 (u0, u1) and s2 (u2) attacked; D ran s1 only. Unattacked: no_defense on s1/u0 (pass),
    // s1/u1 (fail), s2/u2 (pass) and an injection-task run; D on s1/u0 and s1/u1 (both pass)
    const dir = path.join(tmp, "util");
    fs.mkdirSync(dir);
    const rows: object[] = [];
    const verdicts: object[] = [];
    const add = (id: string, condition: string, suite: string, user: string, attacked: boolean, utility: boolean, full = false) => {
      rows.push({ id, agent_model: "M", condition, suite, user_task_id: user, ...(attacked ? { injection_task_id: "injection_task_0", attack: "A" } : {}), attacked, reference: { utility }, content_sha256: "c" });
      verdicts.push({ trajectory_id: id, judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: attacked ? (full ? "full_compliance" : "unaffected") : "not_exposed", attacked, findings: [] });
    };
    add("a1", "no_defense", "s1", "u0", true, false, true);
    add("a2", "no_defense", "s1", "u1", true, false);
    add("a3", "no_defense", "s2", "u2", true, false, true);
    add("a4", "D", "s1", "u0", true, false);
    add("a5", "D", "s1", "u1", true, false);
    add("n1", "no_defense", "s1", "u0", false, true);
    add("n2", "no_defense", "s1", "u1", false, false);
    add("n3", "no_defense", "s2", "u2", false, true);
    add("n4", "no_defense", "s2", "injection_task_1", false, true);
    add("n5", "D", "s1", "u0", false, true);
    add("n6", "D", "s1", "u1", false, true);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const t = paperTable("r", index, vs, src);
    expect(JSON.stringify(paperTableColumns("r", await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS }), src))).toBe(JSON.stringify(t));
    // recomputed by hand: the shared cells are s1/u0 and s1/u1, so no_defense's utility is over n1, n2 (1 of 2)
    expect(t.rows.map((r) => [r.condition, r.n_attacked, r.utility.x, r.utility.n, r.n_unattacked_left_out, r.over])).toEqual([
      ["D", 2, 2, 2, undefined, "all runs"],
      ["no_defense", 2, 1, 2, 1, "2 shared cells (1 runs on 1 cells left out); utility on their user tasks (1 unattacked run left out)"],
    ]);
    // no warning that the utility is over other suites than the rates: it is not
    expect(t.notes.filter((n) => n.includes("utility without attack"))).toEqual([]);
    // --own-mix: every unattacked run of the user's tasks again (3 for no_defense: the injection-task run never counts)
    const own = paperTable("r", index, vs, src, { ownMix: true });
    expect(own.rows.map((r) => [r.condition, r.utility.x, r.utility.n])).toEqual([["D", 2, 2], ["no_defense", 2, 3]]);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    expect(csv[2][csv[0].indexOf("over")]).toBe(t.rows[1].over);
    expect(formatTable(t)).toContain("utility on their user tasks (1 unattacked run left out)");
  });
});
