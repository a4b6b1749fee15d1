import { describe, expect, it } from "vitest";
import { conditionViewsOf } from "../../src/report/condition-views.js";
import { conditionsOverHtml, conditionsPopulationHeading } from "../../src/report/conditions-over-html.js";
import type { Observation, Observations } from "../../src/compare/data.js";

/** n observations of one model and condition on attack `attack`, k compromised (and goal), cells `s/u{i}/i0/attack`. */
function runs(model: string, condition: string, attack: string, k: number, n: number, cell = true): Observation[] {
  return Array.from({ length: n }, (_, i) => ({
    trajectory_id: `${model}/${condition}/${attack}/${i}`,
    model,
    suite: "s",
    condition,
    attack,
    injection_task: "s/i0",
    unit: `s/u${i}/i0`,
    ...(cell ? { cell: ["s", `u${i}`, "i0", attack].join("\u0000") } : {}),
    compromised: i < k,
    goal: i < k,
  }));
}

const of = (observations: Observation[]): ((field: string) => Observations) => (field) => ({
  source: { kind: "judge", judge_id: "j" },
  condition_field: field,
  observations: field === "condition" ? observations : [],
  unlabelled: [],
  n_total: observations.length,
  excluded: {},
  excluded_groups: [],
});

describe("the report's by-condition views are like for like by default (session 52)", () => {
  // m's baseline ran attacks a (1 in 10) and b (10 in 10); its defense d ran a only (5 in 10): over its own runs the
  // baseline reads 55% beside 50%, over the 10 cells both ran 10% beside 50%. m2's conditions share no cell.
  const obs = [
    ...runs("m", "none", "a", 1, 10), ...runs("m", "none", "b", 10, 10), ...runs("m", "d", "a", 5, 10),
    ...runs("m2", "none", "b", 1, 4), ...runs("m2", "d", "a", 2, 4),
  ];

  it("each model's cells over the cells all its conditions ran; each cell says what it is over; a model sharing none withheld", () => {
    const [goal] = conditionViewsOf(of(obs));
    expect(goal.population).toEqual({ kind: "like_for_like" });
    expect(goal.cells).toEqual([
      expect.objectContaining({ model: "m", condition: "d", asr: 0.5, n: 10, over: "all runs", n_attacked_left_out: 0 }),
      expect.objectContaining({ model: "m", condition: "none", asr: 0.1, n: 10, over: "10 shared cells (10 runs on 10 cells left out)", n_attacked_left_out: 10, cells_left_out: 10 }),
    ]);
    expect(goal.withheld).toEqual([{ model: "m2", reason: 'no like-for-like cell: "m2": its conditions share no (suite, user_task_id, injection_task_id, attack) cell (d 4, none 4) (--own-mix gives each cell over its own runs)' }]);
    const html = conditionsOverHtml([goal]).replace(/<\/?bdi>/g, "");
    expect(html).toContain("condition: like for like; over fewer runs than they have: &quot;m&quot; | &quot;none&quot;: 10 shared cells (10 runs on 10 cells left out)");
    expect(html).toContain("&quot;m2&quot; withheld: no like-for-like cell");
    expect(conditionsPopulationHeading([goal])).toContain("like for like");
  });

  it("--own-mix: every cell over its own runs (the old figures), said", () => {
    const [goal] = conditionViewsOf(of(obs), { ownMix: true });
    expect(goal.population).toEqual({ kind: "own_mix" });
    expect(goal.cells.find((c) => c.model === "m" && c.condition === "none")).toMatchObject({ asr: 0.55, n: 20, over: "all runs" });
    expect(goal.cells.filter((c) => c.model === "m2")).toHaveLength(2);
    expect(conditionsPopulationHeading([goal])).toContain("each cell over its own runs: --own-mix");
  });

  it("runs without task ids: the cells are not compared, and every cell says so", () => {
    const [goal] = conditionViewsOf(of([...runs("m", "none", "a", 1, 10, false), ...runs("m", "d", "a", 5, 10, false)]));
    expect(goal.population?.kind).toBe("cells_unknown");
    expect(goal.cells[0].over).toContain("all runs (cells not compared: 20 of 20 attacked trajectories");
    expect(conditionsOverHtml([goal])).toContain("NOT like for like");
  });
});
