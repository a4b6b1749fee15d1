import { describe, expect, it } from "vitest";
import { compareConditions } from "../../src/compare/index.js";
import type { Observation } from "../../src/compare/data.js";
import { unattackedOnlyModels, unattackedOnlyPairs, unattackedOnlyPairWarnings, unattackedOnlyWarnings } from "../../src/compare/unattacked-only.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

/** Model a: attacked runs under A and B; model c: only unattacked runs under A and "no_defense" (new user 30, L7). */
function fixture(): { rows: TrajectoryIndexRow[]; obs: Observation[] } {
  const rows: TrajectoryIndexRow[] = [];
  const obs: Observation[] = [];
  const row = (id: string, model: string, condition: string, attacked: boolean, utility: boolean | undefined, user = "user_task_1") =>
    ({ id, agent_model: model, suite: "s", condition, attack: attacked ? "atk" : undefined, user_task_id: user, injection_task_id: attacked ? "injection_task_0" : undefined, attacked, reference: utility === undefined ? {} : { utility }, content_sha256: "c" }) as unknown as TrajectoryIndexRow;
  for (const condition of ["A", "B"])
    for (let i = 0; i < 6; i++) {
      const r = row(`a/${condition}/${i}`, "a", condition, true, i % 2 === 0, `user_task_${i}`);
      rows.push(r);
      obs.push({ trajectory_id: r.id, model: "a", suite: "s", condition, attack: "atk", injection_task: "s/injection_task_0", unit: `s/user_task_${i}/injection_task_0`, compromised: i < 2, goal: i < 1, exposed: true });
    }
  for (let i = 0; i < 4; i++) rows.push(row(`c/A/${i}`, "c", "A", false, i < 3));
  for (let i = 0; i < 5; i++) rows.push(row(`c/nd/${i}`, "c", "no_defense", false, i < 1));
  rows.push(row("c/nd/x", "c", "no_defense", false, undefined));
  rows.push(row("c/nd/inj", "c", "no_defense", false, true, "injection_task_3"));
  return { rows, obs };
}

describe("compare: a model with no attacked trajectory is said, not dropped unsaid (new user 30, L7)", () => {
  it("names it with its utility without attack per condition, injection-task runs left out", () => {
    const { rows } = fixture();
    const got = unattackedOnlyModels(rows, "condition", new Set(["a"]));
    expect(got).toEqual([
      { model: "c", runs: 11, by_condition: { A: { runs: 4, passed: 3, n: 4, injection_task_runs: 0 }, no_defense: { runs: 7, passed: 1, n: 5, injection_task_runs: 1 } } },
    ]);
    // a model with an attacked run (labelled or not) is not "unattacked only"
    expect(unattackedOnlyModels(rows, "condition", new Set())).toHaveLength(1);
  });
  it("compareConditions warns and keeps it in --json; a --baseline held only by unattacked runs says so", () => {
    const { rows, obs } = fixture();
    const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {}, excluded_groups: [] };
    const index = new Map(rows.map((x) => [x.id, x]));
    const r = compareConditions(o, { bootstrap: { B: 0, seed: 1 }, index });
    expect(r.models).toEqual(["a"]);
    expect(r.models_unattacked_only?.map((m) => m.model)).toEqual(["c"]);
    expect(r.warnings).toContainEqual(
      "agent model c: 11 runs, none attacked: not compared (compare sets attack figures side by side); its utility without attack by condition: A 75.0% (3/4), no_defense 20.0% (1/5) (1 injection-task runs left out)",
    );
    expect(() => compareConditions(o, { bootstrap: { B: 0, seed: 1 }, index, baseline: "no_defense" })).toThrow(
      /^baseline "no_defense" is not a compared condition: the run holds 7 runs under it \(7 unattacked, 0 attacked\).*\(conditions compared: A, B\)$/,
    );
    // the warning names the compared field (new user 32: "by condition" under --by surface)
    expect(unattackedOnlyWarnings(r.models_unattacked_only!, "surface")[0]).toMatch(/its utility without attack by surface: /);
    // a condition the run does not hold at all: the error as before
    expect(() => compareConditions(o, { bootstrap: { B: 0, seed: 1 }, index, baseline: "Z" })).toThrow(/^baseline "Z" is not an observed condition/);
    // without the index (a library caller): nothing to say, nothing said
    expect(compareConditions(o, { bootstrap: { B: 0, seed: 1 } }).models_unattacked_only).toBeUndefined();
  });
});

describe("compare: a compared model's condition with only unattacked runs is said, not dropped unsaid (new user 37, L)", () => {
  /** Model a of the fixture, plus 3 unattacked runs under C (2 with a utility verdict, 1 passed) and an injection-task run there. */
  function withC() {
    const { rows, obs } = fixture();
    const row = (id: string, user: string, utility: boolean | undefined) =>
      ({ id, agent_model: "a", suite: "s", condition: "C", user_task_id: user, attacked: false, reference: utility === undefined ? {} : { utility }, content_sha256: "c" }) as unknown as TrajectoryIndexRow;
    rows.push(row("a/C/0", "user_task_0", true), row("a/C/1", "user_task_1", false), row("a/C/2", "user_task_2", undefined), row("a/C/inj", "injection_task_0", true));
    return { rows, obs };
  }
  it("names the pair with its runs and utility without attack; a model's attacked condition and an unattacked-only model are not pairs", () => {
    const { rows } = withC();
    // by hand: a under C has 4 runs, none attacked; of the 3 user-task runs 2 carry utility (1 passed); 1 injection-task run
    expect(unattackedOnlyPairs(rows, "condition", new Set(["a"]))).toEqual([{ model: "a", condition: "C", runs: 4, passed: 1, n: 2, injection_task_runs: 1 }]);
    // model c (not compared) is the whole-model warning's, not a pair
    expect(unattackedOnlyPairs(rows, "condition", new Set(["a", "x"]))).toHaveLength(1);
    expect(unattackedOnlyPairWarnings(unattackedOnlyPairs(rows, "condition", new Set(["a"])))).toEqual([
      "a under condition C: 4 runs, none attacked: no row there (compare sets attack figures side by side), so its lines count its other conditions only and the reversals leave it out of every pair with C; its utility without attack there: 50.0% (1/2) (1 injection-task runs left out)",
    ]);
  });
  it("compareConditions warns and lists it in --json (pairs_unattacked_only); the model keeps its two attacked conditions", () => {
    const { rows, obs } = withC();
    const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, n_total: rows.length, excluded: {}, excluded_groups: [] };
    const r = compareConditions(o, { bootstrap: { B: 0, seed: 1 }, index: new Map(rows.map((x) => [x.id, x])) });
    expect(r.conditions_per_model.a).toEqual(["A", "B"]);
    expect(r.pairs_unattacked_only).toEqual([{ model: "a", condition: "C", runs: 4, passed: 1, n: 2, injection_task_runs: 1 }]);
    expect(r.warnings.filter((w) => w.startsWith("a under condition C: 4 runs, none attacked"))).toHaveLength(1);
    // without such a pair: no key, no warning
    const plain = fixture();
    const r0 = compareConditions({ ...o, observations: plain.obs }, { bootstrap: { B: 0, seed: 1 }, index: new Map(plain.rows.map((x) => [x.id, x])) });
    expect(r0.pairs_unattacked_only).toBeUndefined();
    expect(r0.warnings.some((w) => w.includes("none attacked: no row there"))).toBe(false);
  });
});
