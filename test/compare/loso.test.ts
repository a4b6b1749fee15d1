import { describe, expect, it } from "vitest";
import { leaveOneSuiteOut } from "../../src/compare/loso.js";
import type { Observation } from "../../src/compare/data.js";

/** n observations of one model, suite, condition and attack, k compromised, on cells `suite/u{i}/i0/attack`. */
function cell(model: string, suite: string, condition: string, attack: string, k: number, n: number): Observation[] {
  return Array.from({ length: n }, (_, i) => ({
    trajectory_id: `${model}/${suite}/${condition}/${attack}/${i}`,
    model,
    suite,
    condition,
    attack,
    injection_task: `${suite}/i0`,
    unit: `${suite}/u${i}/i0`,
    cell: [suite, `u${i}`, "i0", attack].join("\u0000"),
    compromised: i < k,
    goal: false,
  }));
}

describe("leaveOneSuiteOut: a model whose conditions share no cell (session 52)", () => {
  // base ran attacks a and b on s1, s2, s3; x ran a on s1 and s2; z ran c on s1 and s3: no cell common to all three.
  // base's b runs are all compromised, its a runs 1 in 10: pooled over its own tasks base reads 55% where it is 10%.
  const obs = [
    ...cell("m", "s1", "base", "a", 1, 10), ...cell("m", "s1", "base", "b", 10, 10),
    ...cell("m", "s2", "base", "a", 1, 10), ...cell("m", "s2", "base", "b", 10, 10),
    ...cell("m", "s3", "base", "a", 1, 10), ...cell("m", "s3", "base", "b", 10, 10),
    ...cell("m", "s1", "x", "a", 5, 10), ...cell("m", "s2", "x", "a", 5, 10),
    ...cell("m", "s1", "z", "c", 0, 10), ...cell("m", "s3", "z", "c", 0, 10),
  ];

  it("without the model named apart, the folds pool each condition's own tasks (the old figures)", () => {
    const f = leaveOneSuiteOut(obs, "base").folds.find((x) => x.held_out === "s2")!;
    expect(f).toMatchObject({ selected: "base", baseline_asr: 0.55 });
    expect(f.shared_cells).toBeUndefined();
  });

  it("named apart, each fold is on the cells its candidate conditions share, training and held out", () => {
    const l = leaveOneSuiteOut(obs, "base", "asr_behaviour", new Set(["m"]));
    const f = (s: string) => l.folds.find((x) => x.held_out === s);
    // held out s2: candidates base and x (z never ran s2), trained on s1's shared cells (attack a): base 1/10,
    // x 5/10 -> x selected; scored on s2's shared cells: base 1/10 (not 11/20 over its own tasks)
    expect(f("s2")).toMatchObject({ selected: "x", oracle: ["x"], correct: true, realized_asr: 0.5, baseline_asr: 0.1, oracle_asr: 0.5, shared_cells: { train: 10, held_out: 10 } });
    // held out s1 (base, x, z) and s3 (base, z): no cell shared by the candidates on the training suites: withheld
    expect(l.n_folds).toBe(1);
    expect(l.skipped).toEqual([
      { model: "m", held_out: "s1", reason: "no_shared_cell", detail: 'its conditions "base", "x", "z" share no cell on the training suites (cells: "base" 40, "x" 10, "z" 10)' },
      { model: "m", held_out: "s3", reason: "no_shared_cell", detail: 'its conditions "base", "z" share no cell on the training suites (cells: "base" 40, "z" 10)' },
    ]);
  });

  it("a run without a cell in the fold withholds it (its shared cells are unknown)", () => {
    const noCell = obs.map((o) => (o.suite === "s2" && o.condition === "x" && o.trajectory_id.endsWith("/0") ? { ...o, cell: undefined } : o));
    const l = leaveOneSuiteOut(noCell, "base", "asr_behaviour", new Set(["m"]));
    expect(l.skipped.find((x) => x.held_out === "s2")).toMatchObject({ reason: "no_shared_cell", detail: expect.stringContaining("1 of its runs in the fold have no user task or injection task id") });
  });
});
