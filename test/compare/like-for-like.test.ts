/**
 * compare's like-for-like cells and utility over the user's own tasks (issue 22, items 3 and 4), end to end on a
 * real vendored slice (test/data/like-for-like: gpt-4o slack runs undefended over three attacks, and under two
 * defenses run on important_instructions only), labelled with the signature judge through the CLI. Every figure
 * asserted is recomputed here from the raw run files and the stored verdicts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";
import { commonCellFilter, cellKey, mixWords } from "../../src/compare/cells.js";
import { formatCellsDropped } from "../../src/compare/cells-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const SLICE = path.join(DATA, "like-for-like", "runs");

describe("commonCellFilter (pure)", () => {
  const o = (model: string, condition: string, cell: string | undefined, attack = "a") => ({ model, condition, suite: "s", attack, cell });
  it("keeps the cells every condition covers, then per model the cells it has under each of its conditions; names the rest", () => {
    const obs = [o("m", "base", "c1"), o("m", "base", "c2"), o("m", "base", "c3", "b"), o("m", "def", "c1"), o("m", "def", "c2"), o("n", "base", "c1"), o("n", "base", "c2"), o("n", "def", "c1"), o("m", "def", "c4")];
    const r = commonCellFilter(obs, "condition", "common");
    expect(r.cells.applied).toBe(true);
    expect(r.cells.common_cells).toBe(2);
    expect(r.cells.cells_dropped.base.list).toEqual(["c3"]);
    expect(r.cells.cells_dropped.base.by_attack).toEqual({ b: 1, a: 1 });
    // step 2: model n has c2 under base but not under def
    expect(r.cells.cells_dropped.base.per_model).toEqual({ n: { cells: 1, trajectories: 1, list: ["c2"] } });
    expect(r.cells.cells_dropped.def.list).toEqual(["c4"]);
    // newuser16: every model whose rate the drop changes is named, with what it ran under the condition
    expect(r.cells.cells_dropped.base.by_model).toEqual({ m: { dropped: 1, of: 3 }, n: { dropped: 1, of: 2 } });
    expect(r.cells.cells_dropped.def.by_model).toEqual({ m: { dropped: 1, of: 3 } });
    // both models ran both conditions, so each model's own common cells are those of the pooled figures here
    const kept = ["m/base/c1", "m/base/c2", "m/def/c1", "m/def/c2", "n/base/c1", "n/def/c1"];
    expect(r.observations.map((x) => `${x.model}/${x.condition}/${x.cell}`).sort()).toEqual(kept);
    expect(r.pooled.map((x) => `${x.model}/${x.condition}/${x.cell}`).sort()).toEqual(kept);
    expect(r.cells.per_model.m).toMatchObject({ conditions: ["base", "def"], contrast: true, common_cells: 2, applied: true, kept: 4, of: 6, pooled: 4 });
    expect(r.cells.per_model.m.dropped).toEqual({ base: { cells: 1, trajectories: 1, of: 3, list: ["c3"] }, def: { cells: 1, trajectories: 1, of: 3, list: ["c4"] } });
    expect(r.cells.per_model.n.dropped).toEqual({ base: { cells: 1, trajectories: 1, of: 2, list: ["c2"] } });
    // its own block per condition: each count names the condition or model it belongs to (review: the breakdown
    // read as the last model's)
    const text = formatCellsDropped(r.cells).join("\n");
    expect(text).toContain("  m: 2 conditions (base, def), 2 cells common to them; dropped (labelled or not), in cells another condition of its own lacks: base 1 of its 3 attacked trajectories (1 cells), def 1 of its 3 attacked trajectories (1 cells); kept 4 of 6");
    expect(text).toContain(
      [
        "  condition base: 2 attacked trajectories dropped (labelled or not)",
        "    1 cells of base that some other condition lacks",
        "    agent model n: 1 trajectories in 1 cells that n lacks under another condition of its own",
        "    the 2 dropped from base, by attack: a 1, b 1; by suite: s 2",
        "    by agent model (left out of these figures only): m 1 of its 3 (these figures over 2), n 1 of its 2 (these figures over 1)",
      ].join("\n"),
    );
    expect(text).toContain("the counts per model in .by_model, each model's own in .per_model.<model>.list)");
  });
  it("--all-cells keeps everything and warns that the mixes differ; conditions sharing no cell are kept whole, with a warning", () => {
    const obs = [o("m", "base", "c1"), o("m", "def", "c2")];
    const all = commonCellFilter(obs, "condition", "all");
    expect(all.observations).toHaveLength(2);
    expect(all.cells.mixes_differ).toBe(true);
    expect(all.warnings[0]).toMatch(/--all-cells: the conditions cover different .* not like for like/);
    const none = commonCellFilter(obs, "condition", "common");
    expect(none.observations).toHaveLength(2);
    expect(none.cells).toMatchObject({ mode: "common", applied: false, common_cells: 0, cells_dropped: {}, mixes_differ: true });
    expect(none.cells.reason).toMatch(/share no .* cell \(base 1, def 1\)/);
    expect(none.warnings[0]).toMatch(/nothing is like for like.*--where/);
  });
  it("unknown task ids: the check is not made, and said", () => {
    const r = commonCellFilter([o("m", "base", undefined), o("m", "def", "c1")], "condition", "common");
    expect(r.cells.applied).toBe(false);
    expect(r.cells.reason).toMatch(/1 of 2 .* no user task or injection task id/);
    expect(r.warnings[0]).toMatch(/could not be checked for like-for-like cells/);
  });
  it("a cell leaves out the condition field (by attack, the attack is what is compared)", () => {
    const t = { suite: "s", user_task_id: "u", injection_task_id: "i", attack: "x" };
    expect(cellKey(t, "condition")).toBe("s\u0000u\u0000i\u0000x");
    expect(cellKey(t, "attack")).toBe("s\u0000u\u0000i");
    expect(cellKey({ suite: "s", user_task_id: "u" }, "condition")).toBeUndefined();
  });
});

describe("compare on the real slice", () => {
  let dir: string;
  const labels = () => path.join(dir, "labels");
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-lfl-"));
    const r = await runCli(["label", SLICE, "--run", "lfl", "--labels-dir", labels()]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The raw files: cell -> path, per (folder) condition; and the stored signature labels by trajectory id. */
  function raw() {
    const runs: Array<{ id: string; condition: string; cell: string | null; utility: boolean; userTask: string }> = [];
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(SLICE)) {
      const j = JSON.parse(fs.readFileSync(f, "utf8"));
      const rel = path.relative(SLICE, f).replace(/\.json$/, "");
      const folder = rel.split("/")[0];
      const condition = folder.startsWith("gpt-4o-2024-05-13-") ? folder.slice("gpt-4o-2024-05-13-".length) : "no_defense";
      runs.push({ id: rel, condition, cell: j.attack_type ? `${j.suite_name}/${j.user_task_id}/${j.injection_task_id}/${j.attack_type}` : null, utility: j.utility, userTask: j.user_task_id });
    }
    const verdicts = fs
      .readFileSync(path.join(labels(), "lfl", "verdicts.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const label = new Map(verdicts.map((v) => [v.trajectory_id, v.label]));
    return { runs, label };
  }

  it("compares the baseline on the defenses' own cells and names the dropped cells (JSON and text)", async () => {
    const r = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--by", "condition", "--baseline", "no_defense", "--bootstrap", "0", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    // recompute: the cells every condition covers, from the raw files
    const { runs, label } = raw();
    const byCond = new Map<string, Set<string>>();
    for (const x of runs) if (x.cell) (byCond.get(x.condition) ?? byCond.set(x.condition, new Set()).get(x.condition)!).add(x.cell);
    const sets = [...byCond.values()];
    const common = [...sets[0]].filter((c) => sets.every((s) => s.has(c))).sort();
    expect(common).toEqual(["slack/user_task_0/injection_task_1/important_instructions", "slack/user_task_1/injection_task_1/important_instructions"]);
    expect(j.cells).toMatchObject({ mode: "common", applied: true, common_cells: common.length });
    expect(j.cells.cells_dropped.no_defense.list).toEqual(["slack/user_task_0/injection_task_1/ignore_previous", "slack/user_task_0/injection_task_1/tool_knowledge"]);
    expect(j.cells.cells_dropped.no_defense.by_attack).toEqual({ ignore_previous: 1, tool_knowledge: 1 });
    expect(j.cells.cells_dropped.tool_filter.list).toEqual(["slack/user_task_2/injection_task_1/important_instructions"]);
    // every rate is over the common cells only, and asr_behaviour equals the raw recomputation
    for (const cond of ["no_defense", "tool_filter", "repeat_user_prompt"]) {
      const mine = runs.filter((x) => x.condition === cond && x.cell && common.includes(x.cell));
      const k = mine.filter((x) => ["full_compliance", "partial_compliance"].includes(label.get(x.id))).length;
      const cell = j.asr.find((c: { suite: string | null; condition: string }) => c.suite === null && c.condition === cond);
      expect(cell.asr_behaviour.n, cond).toBe(mine.length);
      expect(cell.asr_behaviour.count, cond).toBe(k);
    }
    const text = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--bootstrap", "0"]);
    expect(unwrapText(text.stdout)).toMatch(/like-for-like, pooled: the figures that set models side by side \(the safety-ordering reversals, the model x condition interaction test\) compare the conditions on the 2 \(suite, user_task_id, injection_task_id, attack\) cells they all cover/);
    // one model: its own common cells are the pooled figures' cells, and the text says the two scopes agree
    expect(unwrapText(text.stdout)).toContain("like-for-like, per agent model: its attack-success rates and utility under attack per condition, its worst condition and its leave-one-suite-out folds are over the (suite, user_task_id, injection_task_id, attack) cells common to its own conditions (--all-cells keeps everything); NOT its utility without attack nor its injection-task runs: an unattacked run has no injection task, so no cell; they are over all its unattacked runs under each condition");
    expect(j.pooled_figures).toMatchObject({ same_as_per_model: true, single_condition_models: [], n_observations: j.n_observations });
    expect(j.pooled_figures.asr).toBeUndefined();
    // the block's own lines (each under 120 columns, so as printed; unwrapText would join the indented ones)
    expect(text.stdout).toContain(
      "  condition no_defense: 2 attacked trajectories dropped (labelled or not)\n    2 cells of no_defense that some other condition lacks\n    the 2 dropped from no_defense, by attack: ignore_previous 1, tool_knowledge 1; by suite: slack 2\n",
    );
  }, 60_000);

  it("--all-cells keeps every cell with a warning; --where narrows the run first and is stated", async () => {
    const all = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--bootstrap", "0", "--all-cells", "--json"]);
    const j = JSON.parse(all.stdout);
    expect(j.cells).toMatchObject({ mode: "all", applied: false, mixes_differ: true, cells_dropped: {} });
    expect(j.warnings.join("\n")).toMatch(/--all-cells: the conditions cover different/);
    expect(j.asr.find((c: { suite: string | null; condition: string }) => c.suite === null && c.condition === "no_defense").asr_behaviour.n).toBe(4);
    const w = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--bootstrap", "0", "--where", "attack=important_instructions,(none)", "--json"]);
    expect(w.code, w.stderr).toBe(0);
    const jw = JSON.parse(w.stdout);
    expect(jw.where).toEqual({ filter: "attack=important_instructions,(none)", clauses: { attack: ["important_instructions", "(none)"] }, kept: 12, of: 14, unmatched: [] });
    expect(jw.cells.cells_dropped.no_defense).toBeUndefined();
  }, 60_000);

  it("utility without attack counts the user's own tasks; the injection-task run is its own kind", async () => {
    const r = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--bootstrap", "0", "--json"]);
    const u = JSON.parse(r.stdout).utility.find((x: { condition: string }) => x.condition === "no_defense");
    const { runs } = raw();
    const un = runs.filter((x) => x.condition === "no_defense" && !x.cell);
    const user = un.filter((x) => !x.userTask.startsWith("injection_task_"));
    const inj = un.filter((x) => x.userTask.startsWith("injection_task_"));
    expect(user.length).toBe(1);
    expect(inj.length).toBe(1);
    expect(u.without_attack).toMatchObject({ n: user.length, passed: user.filter((x) => x.utility).length });
    expect(u.injection_task_runs).toMatchObject({ n: inj.length, passed: inj.filter((x) => x.utility).length });
    expect(u.excluded).toEqual({ injection_task_runs: 1 });
  }, 60_000);

  it("per (model, condition) tables warn when a model's conditions ran different attacks; --by attack says which defenses it pools", async () => {
    // the undefended runs hold three attacks, the defenses one: the paper table with --own-mix and the label summary say
    // so; like for like (the table's default) its rows are over the cells its conditions share, with no such warning
    const lfl = await runCli(["estimate", "--run", "lfl", "--labels-dir", labels(), "--table", "--json"]);
    expect(lfl.code, lfl.stderr).toBe(0);
    expect((JSON.parse(lfl.stdout).notes as string[]).some((n) => n.startsWith('WARNING: "gpt-4o-2024-05-13": its conditions'))).toBe(false);
    const t = await runCli(["estimate", "--run", "lfl", "--labels-dir", labels(), "--table", "--json", "--own-mix"]);
    expect(t.code, t.stderr).toBe(0);
    const notes: string[] = JSON.parse(t.stdout).notes;
    const w = notes.find((n) => n.startsWith('WARNING: "gpt-4o-2024-05-13": its conditions ran different attacks'));
    expect(w).toMatch(/"no_defense": ignore_previous, important_instructions, tool_knowledge; "repeat_user_prompt": important_instructions; "tool_filter": important_instructions/);
    expect(w).toMatch(/--where attack=important_instructions/);
    const again = await runCli(["label", SLICE, "--run", "lfl", "--labels-dir", labels(), "--json"]);
    expect(JSON.parse(again.stdout).warnings.join("\n")).toMatch(/"gpt-4o-2024-05-13": its conditions ran different attacks/);
    // one attack, but the defenses ran user_task_2 too, which the undefended slice lacks: the cells still differ
    const one = await runCli(["estimate", "--run", "lfl", "--labels-dir", labels(), "--table", "--json", "--own-mix", "--where", "attack=important_instructions,(none)"]);
    const cellsNote = (JSON.parse(one.stdout).notes as string[]).filter((n) => n.startsWith("WARNING"));
    expect(cellsNote).toEqual([
      'WARNING: "gpt-4o-2024-05-13": its conditions ran different (suite, user task, injection task, attack) cells ("no_defense" 2, "repeat_user_prompt" 3, "tool_filter" 3; 2 shared by all), so its per-condition rates are not like for like; compare --by condition compares them on the shared cells',
    ]);
    // like for like: one user task under the one attack in every condition, no warning
    const like = await runCli(["estimate", "--run", "lfl", "--labels-dir", labels(), "--table", "--json", "--where", "attack=important_instructions,(none)", "--where", "user_task=user_task_0,user_task_1"]);
    expect(like.code, like.stderr).toBe(0);
    expect((JSON.parse(like.stdout).notes as string[]).some((n) => n.startsWith("WARNING"))).toBe(false);
    // --by attack: each model's rows pool its three conditions, and the output names them
    const by = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--by", "attack", "--bootstrap", "0", "--json"]);
    expect(by.code, by.stderr).toBe(0);
    const j = JSON.parse(by.stdout);
    expect(j.pooled_conditions).toEqual({ "gpt-4o-2024-05-13": ["no_defense", "repeat_user_prompt", "tool_filter"] });
    expect(j.warnings.join("\n")).toMatch(/pool the conditions \(defenses\) it ran under: gpt-4o-2024-05-13 3 \(no_defense, repeat_user_prompt, tool_filter\); compare one defense at a time with --where condition=/);
    const byC = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--by", "condition", "--bootstrap", "0", "--json"]);
    expect(JSON.parse(byC.stdout).pooled_conditions).toEqual({});
  }, 60_000);

  it("a run whose labelling did not finish is said by compare and estimate --table; an empty input is a warning, not a silent success", async () => {
    const copy = path.join(dir, "labels-interrupted");
    fs.cpSync(labels(), copy, { recursive: true });
    const storeFile = path.join(copy, "lfl", "store.json");
    const st = JSON.parse(fs.readFileSync(storeFile, "utf8"));
    st.label_state = { ...st.label_state, state: "interrupted" };
    fs.writeFileSync(storeFile, JSON.stringify(st));
    const c = await runCli(["compare", "--run", "lfl", "--labels-dir", copy, "--bootstrap", "0", "--json"]);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout).warnings[0]).toMatch(/^run incomplete: the last label run was interrupted/);
    const t = await runCli(["estimate", "--run", "lfl", "--labels-dir", copy, "--table", "--json"]);
    expect((JSON.parse(t.stdout).notes as string[]).some((n) => /^WARNING: run incomplete: the last label run was interrupted/.test(n))).toBe(true);
    // the finished run says nothing of the kind
    const done = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--bootstrap", "0", "--json"]);
    expect(JSON.parse(done.stdout).warnings.join("\n")).not.toMatch(/run incomplete/);
    const empty = path.join(dir, "empty");
    fs.mkdirSync(empty);
    const e = await runCli(["label", empty, "--run", "empty", "--labels-dir", labels()]);
    expect(e.stderr).toMatch(/no trajectory was found in .*empty: nothing was labelled/);
    expect(e.code).toBe(2);
  }, 60_000);
});

describe("compare's cell warnings name what differs (new user 19: never 'tasks and attacks' of one attack on different suites)", () => {
  const o = (condition: string, suite: string, attack: string, u = "u1") => ({ model: "m", condition, suite, attack, cell: cellKey({ suite, attack, user_task_id: u, injection_task_id: "i" }, "condition") });
  const fields = ["suite", "user_task_id", "injection_task_id", "attack"];
  it("suites only, attacks only, both, tasks only; a field not in the cell is not named", () => {
    expect(mixWords([o("a", "s1", "ii"), o("b", "s2", "ii")], ["a", "b"], fields)).toBe("different suites");
    expect(mixWords([o("a", "s1", "ii"), o("b", "s1", "d")], ["a", "b"], fields)).toBe("different attacks");
    expect(mixWords([o("a", "s1", "ii"), o("b", "s2", "d")], ["a", "b"], fields)).toBe("different suites and attacks");
    expect(mixWords([o("a", "s1", "ii"), o("b", "s1", "ii", "u2")], ["a", "b"], fields)).toBe("different tasks");
    expect(mixWords([o("a", "s1", "ii"), o("b", "s1", "d", "u2")], ["a", "b"], ["suite", "user_task_id", "injection_task_id"])).toBe("different tasks");
  });
  it("the no-shared-cell and --all-cells warnings use them", () => {
    const obs = [o("a", "s1", "ii"), o("b", "s2", "ii")];
    expect(commonCellFilter(obs, "condition", "common").warnings[0]).toContain("the conditions' rates mix different suites;");
    expect(commonCellFilter(obs, "condition", "all").warnings[0]).toContain("their rates mix different suites and are not like for like");
  });
});
