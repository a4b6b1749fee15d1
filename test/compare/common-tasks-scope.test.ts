/**
 * Red team 29: the per-model like-for-like lines must describe what the rows are over. (1) After --common-tasks the
 * lines said "all its 6 attacked trajectories (6 cells) are kept" above rows over 3: each model's line now says what
 * --common-tasks then kept (text and --json `cells.per_model.<model>.common_tasks`). (2) The header said a model's
 * "rates and utility" are over its common cells, but utility without attack (unattacked runs: no injection task, so
 * no cell) is over all its unattacked runs: the header now names which utility figure is on the cells and which is not.
 * Every count is worked out by hand in the comments.
 */
import { describe, expect, it } from "vitest";
import { ALL_SUITES, compareConditions, formatCompare, type Observation, type Observations } from "../../src/compare/index.js";

function runs(model: string, condition: string, cells: number[]): Observation[] {
  return cells.map((i) => ({
    trajectory_id: `${model}/${condition}/c${i}`,
    model,
    suite: "s",
    condition,
    attack: "atk",
    injection_task: "s/inj0",
    unit: `s/c${i}`,
    cell: `s/c${i}`,
    compromised: i % 2 === 0,
    goal: i % 2 === 0,
    exposed: true,
  }));
}
const input = (observations: Observation[]): Observations => ({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations, n_total: observations.length, excluded: {}, excluded_groups: [] });

// g ran A on c1..c4 and B on c1..c3: its own common cells c1..c3, kept 6 of 7 (A's c4 dropped).
// l ran B only on c1..c6: no contrast, all 6 kept. --common-tasks (on what the cell check kept): tasks c1..c3 shared,
// so g keeps 6 (3 cells), l 3 (3 cells): every row is over n=3.
const obs = [...runs("g", "A", [1, 2, 3, 4]), ...runs("g", "B", [1, 2, 3]), ...runs("l", "B", [1, 2, 3, 4, 5, 6])];

describe("--common-tasks: the per-model like-for-like lines say what the rows are over", () => {
  it("text and --json agree with the rows", () => {
    const r = compareConditions(input(obs), { commonTasks: true, bootstrap: { B: 0, seed: 1 } });
    for (const [m, c] of [["g", "A"], ["g", "B"], ["l", "B"]]) {
      const row = r.asr.find((x) => x.model === m && x.condition === c && x.suite === ALL_SUITES)!;
      expect(row.asr_behaviour.n, `${m} ${c}`).toBe(3);
    }
    expect(r.cells.per_model.l).toMatchObject({ contrast: false, kept: 6, of: 6, common_tasks: { kept: 3, cells: 3 } });
    expect(r.cells.per_model.g).toMatchObject({ contrast: true, kept: 6, of: 7, common_tasks: { kept: 6, cells: 3 } });
    const text = formatCompare(r);
    expect(text).toContain(
      "  l: 1 condition (B): no contrast between conditions, so all its 6 attacked trajectories (6 cells) are kept; then --common-tasks kept 3 of them (3 cells), on the tasks every model ran: its rows are over those",
    );
    expect(text).toContain(
      "  g: 2 conditions (A, B), 3 cells common to them; dropped (labelled or not), in cells another condition of its own lacks: A 1 of its 4 attacked trajectories (1 cells); kept 6 of 7; --common-tasks kept all of them: its rows are over these",
    );
  });
  it("without --common-tasks the lines are unchanged and carry no common_tasks", () => {
    const r = compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 } });
    expect(r.cells.per_model.l.common_tasks).toBeUndefined();
    const text = formatCompare(r);
    expect(text).toContain("  l: 1 condition (B): no contrast between conditions, so all its 6 attacked trajectories (6 cells) are kept\n");
    expect(text).not.toContain("--common-tasks kept");
  });
});

describe("the header says which utility figure is on the like-for-like cells and which is not", () => {
  it("names utility under attack as on the cells, utility without attack and injection-task runs as not (text and --json)", () => {
    const r = compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 } });
    expect(r.cells.figures.per_model).toContain("utility.under_attack");
    expect(r.cells.figures.per_model).not.toContain("utility");
    expect(r.cells.figures.not_on_cells).toEqual(["utility.without_attack", "utility.injection_task_runs"]);
    const text = formatCompare(r);
    expect(text).toContain(
      "like-for-like, per agent model: its attack-success rates and utility under attack per condition, its worst condition and its leave-one-suite-out folds are over the (suite, user_task_id, injection_task_id, attack) cells common to its own conditions (--all-cells keeps everything); " +
        "NOT its utility without attack nor its injection-task runs: an unattacked run has no injection task, so no cell; they are over all its unattacked runs under each condition, whatever suites and user tasks (a warning names the suites when they differ from its attacked ones):",
    );
    expect(text).not.toContain("its rates and utility per condition");
  });
});
