/**
 * compare's two like-for-like scopes (src/compare/cells.ts, session 29): each model's own figures on the cells common
 * to its own conditions; the figures that set models side by side (reversals, interaction test) on the cells every
 * condition covers, then per model those under each of its own conditions. Every figure asserted is worked out by
 * hand in the comments from the observations built here.
 */
import { describe, expect, it } from "vitest";
import { commonCellFilter } from "../../src/compare/cells.js";
import { formatCellsDropped } from "../../src/compare/cells-text.js";
import { ALL_SUITES, compareConditions, formatCompare } from "../../src/compare/index.js";
import { cs, input, runs } from "../helpers/compare-observations.js";

const rowOf = (asr: { model: string; suite: string; condition: string }[], model: string, condition: string) =>
  asr.find((c) => c.model === model && c.suite === ALL_SUITES && c.condition === condition) as { asr_behaviour: { count: number; n: number } };

describe("a model seen under one condition keeps all its cells (nothing of its own is contrasted)", () => {
  // g ran A and B on c1..c4; l ran B only, on c1..c6 (c5, c6: cells A lacks)
  const obs = [...runs("g", "A", cs(1, 2, 3, 4), [1, 1, 0, 0]), ...runs("g", "B", cs(1, 2, 3, 4), [1, 0, 0, 0]), ...runs("l", "B", cs(1, 2, 3, 4, 5, 6), [0, 0, 0, 0, 1, 1])];

  it("the filter: its rows keep 6 of 6; the pooled figures 4 of 6, named per condition", () => {
    const r = commonCellFilter(obs, "condition", "common");
    expect(r.cells.per_model.l).toEqual({ conditions: ["B"], contrast: false, cells_per_condition: { B: 6 }, common_cells: 6, applied: true, kept: 6, of: 6, dropped: {}, pooled: 4 });
    expect(r.cells.per_model.g).toMatchObject({ contrast: true, common_cells: 4, kept: 8, of: 8, dropped: {}, pooled: 8 });
    expect(r.observations).toHaveLength(14);
    expect(r.pooled.filter((x) => x.model === "l").map((x) => x.cell)).toEqual(["s/c1", "s/c2", "s/c3", "s/c4"]);
    expect(r.cells.cells_dropped.B).toMatchObject({ cells: 2, trajectories: 2, list: ["s/c5", "s/c6"], by_model: { l: { dropped: 2, of: 6 } } });
    expect(r.cells.figures).toEqual({ per_model: ["asr", "utility.under_attack", "worst_condition", "leave_one_suite_out"], pooled: ["reversals", "interaction"], not_on_cells: ["utility.without_attack", "utility.injection_task_runs"] });
    const text = formatCellsDropped(r.cells).join("\n");
    expect(text).toContain("  l: 1 condition (B): no contrast between conditions, so all its 6 attacked trajectories (6 cells) are kept");
    expect(text).toContain("  g: 2 conditions (A, B), 4 cells common to them; nothing dropped (8 attacked trajectories)");
  });

  it("compare: its row and worst condition over its 6; it is in the interaction test on 4, under one condition, and said", () => {
    const r = compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 }, baseline: "B" });
    // row: 2 of 6 compromised; worst condition: its only one, no underestimate
    expect(rowOf(r.asr, "l", "B").asr_behaviour).toMatchObject({ count: 2, n: 6 });
    expect(r.worst_condition.asr_behaviour.per_model.find((m) => m.model === "l")).toMatchObject({ worst_asr: 2 / 6, underestimate: null, reason: "fewer_than_2_conditions" });
    expect(r.n_observations).toBe(14);
    expect(r.dropped_like_for_like).toBeUndefined();
    // pooled: l on c1..c4 (0 of 4); the interaction test counts g's 8 and l's 4
    expect(r.pooled_figures).toMatchObject({ n_observations: 12, dropped_like_for_like: 2, same_as_per_model: false, single_condition_models: ["l"] });
    expect(rowOf(r.pooled_figures.asr!, "l", "B").asr_behaviour).toMatchObject({ count: 0, n: 4 });
    expect(r.interaction.asr_behaviour.n).toBe(12);
    const text = formatCompare(r);
    expect(text.split("\n")[0]).toContain(
      "14 labelled attacked trajectories compared, of 14 in the run; excluded: none; the figures that set models side by side (the safety-ordering reversals, the model x condition interaction test) are over 12 labelled attacked trajectories (the cells every condition covers: like-for-like, pooled, below)",
    );
    expect(text).toContain("  (models under one condition only, in its main effects with no model x condition term: l)");
    expect(text).toMatch(/rest on these rates where they differ from the rows above[^\n]*\n {2}l +B +asr_goal 0\.0% [^\n]*\(0\/4\)/);
  });

  it("each of l's two B figures says its runs where it is printed, the row naming the other (out51 #7)", () => {
    // each row with its wrapped continuation lines joined, spaces collapsed
    const rows = formatCompare(compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 }, baseline: "B" }))
      .replace(/\n {6}/g, " ")
      .split("\n")
      .map((l) => l.replace(/ +/g, " "));
    const [row, pooled] = rows.filter((l) => l.startsWith(" l B asr_goal "));
    expect(row).toMatch(/asr_behaviour 33\.3% \[[^\]]+\] \(2\/6\)/);
    expect(row).toContain(
      "; these rates are over the cells its own conditions share (6 attacked runs); the figures that set models side by side (the safety-ordering reversals, the model x condition interaction test) use 4 of them, on the cells every condition covers: asr_goal 0.0% (0/4), asr_behaviour 0.0% (0/4) (below)",
    );
    expect(pooled).toContain("(0/4); over its 4 attacked runs on the cells every condition covers, not the 6 of its row above (the cells its own conditions share); ");
    // g's rows are the pooled figures' own: no clause
    const g = rows.filter((x) => /^ g [AB] asr_goal \d+\.\d% \[/.test(x)); // the rows, not the differences from the baseline
    expect(g).toHaveLength(2);
    for (const l of g) expect(l).not.toContain("these rates are over");
  });
});

describe("a model whose two conditions ran different cells, beside models that ran others", () => {
  // x: A on c1..c6, B on c1..c4 (its own common cells c1..c4); y: A and B on c1..c6; z: C only, on c1, c2.
  // Every condition covers c1, c2 only (C), so the pooled figures are over c1, c2.
  const x = [...runs("x", "A", cs(1, 2, 3, 4, 5, 6), [1, 1, 0, 0, 0, 0]), ...runs("x", "B", cs(1, 2, 3, 4), [1, 0, 0, 0])];
  const y = [...runs("y", "A", cs(1, 2, 3, 4, 5, 6), [0, 0, 1, 1, 1, 1]), ...runs("y", "B", cs(1, 2, 3, 4, 5, 6), [0, 0, 0, 0, 0, 0])];
  const z = runs("z", "C", cs(1, 2), [1, 0]);
  const r = compareConditions(input([...x, ...y, ...z]), { bootstrap: { B: 0, seed: 1 }, baseline: "B" });

  it("each model's rows are over its own common cells: x's A row loses c5, c6; y keeps all 12; z its 2", () => {
    expect(r.cells.per_model.x.dropped).toEqual({ A: { cells: 2, trajectories: 2, of: 6, list: ["s/c5", "s/c6"] } });
    expect(r.cells.per_model.y).toMatchObject({ common_cells: 6, kept: 12, dropped: {}, pooled: 4 });
    expect(r.cells.per_model.z).toMatchObject({ contrast: false, kept: 2, pooled: 2 });
    // x: A 2/4, B 1/4; y: A 4/6, B 0/6 (by these rows, y is less safe under A and safer under B: a reversal)
    expect(rowOf(r.asr, "x", "A").asr_behaviour).toMatchObject({ count: 2, n: 4 });
    expect(rowOf(r.asr, "x", "B").asr_behaviour).toMatchObject({ count: 1, n: 4 });
    expect(rowOf(r.asr, "y", "A").asr_behaviour).toMatchObject({ count: 4, n: 6 });
    expect(rowOf(r.asr, "y", "B").asr_behaviour).toMatchObject({ count: 0, n: 6 });
    // the worst condition is per model: x's A 50% against its baseline B 25%
    expect(r.worst_condition.asr_behaviour.per_model.find((m) => m.model === "x")).toMatchObject({ worst_condition: "A", underestimate: 0.25 });
    expect(r.dropped_like_for_like).toBe(2);
    expect(formatCompare(r)).toMatch(/\n {2}x +A +asr_goal .*; attacked runs in the compared cells 4 of 6 \(66\.7%, labelled or not\) \(like for like; the cells left out: header\)/);
  });

  it("the reversals set x beside y on the cells every condition covers (c1, c2), not on their different own cells", () => {
    // on c1, c2: x A 2/2, B 1/2; y A 0/2, B 0/2: x is the less safe under both, so nothing reverses
    expect(rowOf(r.pooled_figures.asr!, "x", "A").asr_behaviour).toMatchObject({ count: 2, n: 2 });
    expect(rowOf(r.pooled_figures.asr!, "y", "A").asr_behaviour).toMatchObject({ count: 0, n: 2 });
    const rev = r.reversals.find((v) => v.rate === "asr_behaviour" && v.suite === ALL_SUITES && v.condition_a === "A" && v.condition_b === "B")!;
    expect(rev).toMatchObject({ pairs: 1, reversals: 0 });
    // pairs of conditions with z: z ran C alone, so it is in no pair (models under both only)
    expect(r.reversals.filter((v) => v.suite === ALL_SUITES && v.condition_b === "C").every((v) => v.pairs === 0)).toBe(true);
    expect(r.pooled_figures).toMatchObject({ n_observations: 10, same_as_per_model: false, single_condition_models: ["z"] });
    expect(r.interaction.asr_behaviour.n).toBe(10);
    const text = formatCompare(r);
    expect(text).toContain("safety-ordering reversals between conditions by asr_behaviour (model pairs observed under both; 95% CI: a paired bootstrap of the tasks with the models fixed: how the share moves with other tasks, not other models, so a bound at the share itself is no \"at least that many for certain\"; over the cells every condition covers: like-for-like, pooled, above):");
    expect(text).toContain("    by agent model (left out of these figures only): y 4 of its 6 (these figures over 2), x 2 of its 4 (these figures over 2)");
    // the pooled rates of x and y are printed, as they differ from the rows; z's are the same and are not
    const block = text.slice(text.indexOf("rest on these rates"), text.indexOf("\n\nsafety-ordering"));
    expect(block.split("\n").slice(1).map((l) => l.trim().split(/ +/).slice(0, 2).join(" "))).toEqual(["x A", "x B", "y A", "y B"]);
  });
});

describe("pooled figures when nothing, or one model, is like for like", () => {
  it("conditions sharing no cell: the pooled figures are over each model's own cells, and the warning says so", () => {
    // x: A on c1, c3, B on c1; y: A on c2, C on c2. A covers c1..c3, B c1, C c2: no cell is under all three
    const obs = [...runs("x", "A", cs(1, 3), [0, 1]), ...runs("x", "B", cs(1), [0]), ...runs("y", "A", cs(2), [1]), ...runs("y", "C", cs(2), [0])];
    const f = commonCellFilter(obs, "condition", "common");
    expect(f.cells).toMatchObject({ applied: false, common_cells: 0, cells_dropped: {} });
    expect(f.cells.reason).toMatch(/^the conditions share no \(suite, user_task_id, injection_task_id, attack\) cell \(A 3, B 1, C 1\)/);
    expect(f.observations.map((o) => o.trajectory_id)).toEqual(["x/A/c1", "x/B/c1", "y/A/c2", "y/C/c2"]);
    expect(f.pooled).toBe(f.observations);
    expect(f.warnings[0]).toMatch(/nothing is like for like across them, so the figures that set models side by side \(reversals, interaction\) are over each model's own cells/);
    const r = compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 } });
    expect(r.pooled_figures).toMatchObject({ same_as_per_model: true, n_observations: 4 });
    expect(formatCompare(r)).toContain("like-for-like, pooled: the conditions share no (suite, user_task_id, injection_task_id, attack) cell (A 3, B 1, C 1): the figures that set models side by side");
    // a model whose own conditions share no cell either is named in that one warning (not in one more of its own)
    const w = commonCellFilter([...obs, ...runs("v", "A", cs(7), [1]), ...runs("v", "B", cs(8), [0])], "condition", "common").warnings;
    expect(w).toHaveLength(1);
    expect(w[0]).toContain("; nor do the conditions of v, so all its trajectories are kept and its rates per condition mix tasks too (no worst condition; leave-one-suite-out folds each over the cells shared in the fold, or withheld); narrow them");
    const byAttack = commonCellFilter(runs("v", "A", cs(7), [1]).concat(runs("v", "B", cs(8), [0])), "attack", "common").warnings;
    expect(byAttack[0]).toContain("; nor do the conditions of any model, so all its trajectories are kept and its rates per attack mix tasks too (no worst attack; leave-one-suite-out folds each over the cells shared in the fold, or withheld)");
  });

  it("two models whose own conditions share no cell: one warning naming both, with each one's counts (session 39: one per model, the same text)", () => {
    const o = (model: string, condition: string, cell: string, attack = "a") => ({ model, condition, suite: "s", attack, cell });
    // a common cell c0 across conditions (pooled, through z), but x's and y's own conditions share none
    const obs = [o("x", "A", "c1"), o("x", "B", "c2", "b"), o("y", "A", "c3"), o("y", "B", "c4"), o("z", "A", "c0"), o("z", "B", "c0")];
    const f = commonCellFilter(obs, "condition", "common");
    const own = f.warnings.filter((w) => /share no/.test(w));
    expect(own).toEqual([
      "2 agent models: their own conditions share no (suite, user_task_id, injection_task_id, attack) cell (x: A 1, B 1; y: A 1, B 1): nothing of them is like for like, so all their attacked trajectories are kept (x 2, y 2) and their rates per condition mix different attacks (x), different tasks (y) (they have no worst condition; their leave-one-suite-out folds are each over the cells their conditions share in the fold, or withheld); narrow them with --where",
    ]);
  });
  it("a model whose own conditions share no cell is kept whole in its rows, said NOT LIKE FOR LIKE, and left out of the pooled figures", () => {
    const obs = [...runs("x", "A", cs(1), [1]), ...runs("x", "B", cs(2), [0]), ...runs("y", "A", cs(1, 2), [0, 1]), ...runs("y", "B", cs(1, 2), [0, 0])];
    const f = commonCellFilter(obs, "condition", "common");
    expect(f.cells.per_model.x).toMatchObject({ applied: false, common_cells: 0, kept: 2, of: 2, pooled: 0 });
    expect(f.cells.per_model.x.reason).toBe("its conditions share no (suite, user_task_id, injection_task_id, attack) cell (A 1, B 1)");
    expect(f.warnings).toEqual([
      "agent model x: its conditions share no (suite, user_task_id, injection_task_id, attack) cell (A 1, B 1): nothing of it is like for like, so all its 2 attacked trajectories are kept " +
        "and its rates per condition mix different tasks (it has no worst condition; its leave-one-suite-out folds are each over the cells its conditions share in the fold, or withheld); narrow them with --where",
    ]);
    expect(f.observations).toHaveLength(6);
    expect(f.pooled.map((o) => o.model)).toEqual(["y", "y", "y", "y"]);
    expect(formatCellsDropped(f.cells).join("\n")).toContain("  x: 2 conditions (A, B) share no cell: NOT LIKE FOR LIKE, all its 2 attacked trajectories kept (see the warning)");
  });

  it("--all-cells: both scopes keep everything and nothing per model is reported", () => {
    const obs = [...runs("g", "A", cs(1, 2), [1, 0]), ...runs("g", "B", cs(1), [0]), ...runs("l", "B", cs(3), [1])];
    const f = commonCellFilter(obs, "condition", "all");
    expect(f.observations).toHaveLength(4);
    expect(f.pooled).toHaveLength(4);
    expect(f.cells).toMatchObject({ mode: "all", applied: false, per_model: {}, cells_dropped: {} });
    expect(formatCellsDropped(f.cells)).toEqual([]);
  });

  it("--common-tasks: each scope keeps the tasks every model ran within it", () => {
    // g: A and B on c1..c4; l: B on c1..c6. Per model, l keeps c1..c6, then --common-tasks keeps the 4 tasks g ran too
    const obs = [...runs("g", "A", cs(1, 2, 3, 4), [1, 1, 0, 0]), ...runs("g", "B", cs(1, 2, 3, 4), [1, 0, 0, 0]), ...runs("l", "B", cs(1, 2, 3, 4, 5, 6), [0, 0, 0, 0, 1, 1])];
    const r = compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 }, commonTasks: true });
    expect(r.common_tasks).toMatchObject({ applied: true, common_units: 4, dropped: 2 });
    expect(rowOf(r.asr, "l", "B").asr_behaviour).toMatchObject({ count: 0, n: 4 });
    // the pooled scope had dropped c5, c6 already (nothing more to drop there): both scopes end the same, and say so
    expect(r.pooled_figures).toMatchObject({ n_observations: 12, dropped_like_for_like: 2, common_tasks_dropped: 0, same_as_per_model: true });
    expect(r.pooled_figures.asr).toBeUndefined();
    expect(formatCompare(r)).not.toContain("rest on these rates");
  });
});

describe("no labelled run on the like-for-like cells: the error names that filter, not --common-tasks (new user 41)", () => {
  // VIGIL by surface: g's A runs on c1..c3 are labelled; its B runs (c3..c5) and its A run on c3 are not, so the one
  // cell common to A and B (c3) holds no labelled run
  const unl = (condition: string, c: string) => ({ model: "g", suite: "s", condition, attack: "atk", cell: `s/${c}`, unit: `s/${c}`, reason: "injection_text_unknown" });
  const obs = runs("g", "A", cs(1, 2), [1, 0]);
  const o = { ...input(obs), unlabelled: [unl("A", "c3"), unl("B", "c3"), unl("B", "c4"), unl("B", "c5")] };

  it("names the cells compared like for like and the ways out", () => {
    expect(() => compareConditions(o, { bootstrap: { B: 0, seed: 1 } })).toThrow(
      "no labelled trajectory on the (suite, user_task_id, injection_task_id, attack) cells compared like for like (those common to each model's own conditions: g 1): nothing to compare; --all-cells keeps every cell (the conditions' mixes of tasks then differ), or --where condition=... keeps the conditions that have labels",
    );
  });

  it("--all-cells compares what is labelled", () => {
    const r = compareConditions(o, { bootstrap: { B: 0, seed: 1 }, cells: "all" });
    expect(rowOf(r.asr, "g", "A").asr_behaviour).toMatchObject({ count: 1, n: 2 });
  });
});
