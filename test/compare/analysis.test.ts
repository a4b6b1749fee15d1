import { describe, expect, it } from "vitest";
import {
  ALL_SUITES,
  asrMap,
  asrTable,
  countReversals,
  reversalAnalysis,
  worstCondition,
} from "../../src/compare/analysis.js";
import { leaveOneSuiteOut } from "../../src/compare/loso.js";
import { chooseBaseline, commonTaskFilter, compareConditions, formatCompare } from "../../src/compare/index.js";
import type { Observation, UnlabelledItem } from "../../src/compare/data.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

/** n observations of one cell, k of them compromised, spread over units `${suite}/u${i}` (one per observation). */
function cell(model: string, suite: string, condition: string, k: number, n: number, unitPrefix = ""): Observation[] {
  return Array.from({ length: n }, (_, i) => ({
    trajectory_id: `${model}/${suite}/${condition}/${i}`,
    model,
    suite,
    condition,
    injection_task: `${suite}/inj${i % 3}`,
    unit: `${suite}/${unitPrefix}u${i}`,
    compromised: i < k,
    goal: false,
  }));
}

const models13 = Array.from({ length: 13 }, (_, i) => `m${String(i + 1).padStart(2, "0")}`);
/** Under A, model i (1..13) has i of 20 compromised. Under B the first 5 are in reverse order and m12/m13 swap. */
function k13(i: number, cond: "A" | "B"): number {
  if (cond === "A") return i;
  if (i <= 5) return 6 - i;
  if (i === 12) return 13;
  if (i === 13) return 12;
  return i;
}

describe("ASR table", () => {
  it("counts compromised / labelled per (model, suite, condition) and pools suites, with Wilson intervals", () => {
    const obs = [...cell("a", "s1", "x", 3, 4), ...cell("a", "s2", "x", 1, 6), ...cell("b", "s1", "x", 0, 5)];
    const t = asrTable(obs);
    const get = (m: string, s: string) => t.find((c) => c.model === m && c.suite === s && c.condition === "x")!;
    expect(get("a", "s1").asr_behaviour).toMatchObject({ n: 4, count: 3, rate: 0.75 });
    expect(get("a", "s2").asr_behaviour).toMatchObject({ n: 6, count: 1 });
    expect(get("a", ALL_SUITES).asr_behaviour).toMatchObject({ n: 10, count: 4, rate: 0.4 });
    expect(get("b", ALL_SUITES).asr_behaviour.rate).toBe(0);
    // Wilson 95% for 0/5: [0, z²/(n+z²)] = [0, 0.4345]
    expect(get("b", "s1").asr_behaviour.ci95!.lower).toBe(0);
    expect(get("b", "s1").asr_behaviour.ci95!.upper).toBeCloseTo(3.841459 / (5 + 3.841459), 5);
    expect(t.map((c) => c.suite)).toEqual(["s1", "s2", ALL_SUITES, "s1", ALL_SUITES]);
  });
});

describe("safety-ordering reversals", () => {
  it("13 models: 78 pairs, of which 10 (first five reversed) + 1 (m12/m13 swapped) reverse", () => {
    const obs: Observation[] = [];
    models13.forEach((m, i) => {
      obs.push(...cell(m, "s1", "A", k13(i + 1, "A"), 20), ...cell(m, "s1", "B", k13(i + 1, "B"), 20));
    });
    const r = countReversals(asrMap(asrTable(obs)), "A", "B");
    expect(r.pairs).toBe(78);
    expect(r.reversals).toBe(11);
    expect(r.ties).toBe(0);
    expect(r.share).toBeCloseTo(11 / 78, 15);
    expect(r.reversed).toContainEqual(["m12", "m13"]);
    expect(r.reversed).toContainEqual(["m01", "m05"]);
    expect(r.reversed).not.toContainEqual(["m05", "m06"]);
  });

  it("a tie under either condition is not a reversal; models missing a condition are not paired", () => {
    const asr = new Map([
      ["a", new Map([["A", 0.5], ["B", 0.2]])],
      ["b", new Map([["A", 0.5], ["B", 0.9]])], // tie with a under A
      ["c", new Map([["A", 0.1], ["B", 0.8]])], // c < a under A, c > a under B: reversal; c < b under A, c < b under B
      ["d", new Map([["A", 0.9]])], // no B: not paired
    ]);
    const r = countReversals(asr, "A", "B");
    expect(r.pairs).toBe(3);
    expect(r.ties).toBe(1);
    expect(r.reversals).toBe(1);
    expect(r.reversed).toEqual([["a", "c"]]);
  });

  it("share is null with a reason when fewer than two models have both conditions", () => {
    const r = countReversals(new Map([["a", new Map([["A", 0.5], ["B", 0.2]])]]), "A", "B");
    expect(r.share).toBeNull();
    expect(r.reason).toBe("no_model_pairs");
  });

  it("overall and per suite, with a paired bootstrap that is degenerate when every unit has the same composition", () => {
    // 3 units per suite, each holding 20 trajectories of every (model, condition) with the same k: any resample
    // of units gives the same ASRs, so the interval is [11/78, 11/78].
    const obs: Observation[] = [];
    for (const s of ["s1", "s2"]) {
      for (const u of [0, 1, 2]) {
        models13.forEach((m, i) => {
          for (const c of ["A", "B"] as const) {
            obs.push(...cell(m, s, c, k13(i + 1, c), 20).map((o) => ({ ...o, unit: `${s}/u${u}`, trajectory_id: `${o.trajectory_id}/${u}` })));
          }
        });
      }
    }
    const res = reversalAnalysis(obs, asrTable(obs), { B: 200, seed: 7 });
    expect(res.map((r) => r.suite)).toEqual([ALL_SUITES, "s1", "s2"]);
    for (const r of res) {
      expect(r.share).toBeCloseTo(11 / 78, 15);
      // every resample gives 11/78: a zero-width interval is no precision, said so (new user 36), not [14.1, 14.1]
      expect(r.ci95!.lower).toBeNull();
      expect(r.ci95!.upper).toBeNull();
      expect(r.ci95!.reason).toBe("zero_width_bootstrap");
      expect(r.ci95!.B).toBe(200);
      expect(r.ci95!.defined).toBe(200);
    }
  });

  it("the bootstrap interval is seeded (same seed, same interval), covers the estimate, and B = 0 skips it", () => {
    const obs: Observation[] = [];
    for (const [m, ka, kb] of [["a", 10, 4], ["b", 6, 8], ["c", 2, 3]] as const) {
      obs.push(...cell(m, "s1", "A", ka, 20), ...cell(m, "s1", "B", kb, 20));
    }
    const t = asrTable(obs);
    const r1 = reversalAnalysis(obs, t, { B: 500, seed: 3 })[0];
    const r2 = reversalAnalysis(obs, t, { B: 500, seed: 3 })[0];
    // a>b under A (0.5>0.3), a<b under B (0.2<0.4): reverse; a vs c: 0.5>0.1, 0.2>0.15: keep; b vs c: keep
    expect(r1.reversals).toBe(1);
    expect(r1.pairs).toBe(3);
    expect(r1.ci95).toEqual(r2.ci95);
    expect(r1.ci95!.lower!).toBeLessThanOrEqual(1 / 3);
    expect(r1.ci95!.upper!).toBeGreaterThanOrEqual(1 / 3);
    expect(r1.ci95!.resampling).toMatch(/paired/);
    expect(reversalAnalysis(obs, t, { B: 0, seed: 3 })[0].ci95).toBeNull();
  });
});

describe("worst-condition risk and the baseline's underestimate", () => {
  // ASR (pooled) per model: a: base .2, x .5, y .3 -> worst x, gap .3; b: base .4, x .1 -> worst base, gap 0;
  // c: base .1, y .7 -> gap .6; d: x .9 only -> no baseline.
  const obs = [
    ...cell("a", "s1", "base", 2, 10), ...cell("a", "s1", "x", 5, 10), ...cell("a", "s1", "y", 3, 10),
    ...cell("b", "s1", "base", 4, 10), ...cell("b", "s1", "x", 1, 10),
    ...cell("c", "s1", "base", 1, 10), ...cell("c", "s1", "y", 7, 10),
    ...cell("d", "s1", "x", 9, 10),
  ];
  it("per model, then mean .3, median .3, max .6 over the 3 models with a baseline", () => {
    const w = worstCondition(asrTable(obs), "base", { B: 1000, seed: 1 });
    const row = (m: string) => w.per_model.find((r) => r.model === m)!;
    expect(row("a")).toMatchObject({ worst_condition: "x", worst_asr: 0.5, baseline_asr: 0.2, conditions: 3 });
    expect(row("a").underestimate).toBeCloseTo(0.3, 12);
    expect(row("b")).toMatchObject({ worst_condition: "base", underestimate: 0 });
    expect(row("c").underestimate).toBeCloseTo(0.6, 12);
    expect(row("d")).toMatchObject({ underestimate: null, reason: "baseline_not_observed", worst_condition: "x" });
    expect(w.n_models).toBe(3);
    expect(w.mean).toBeCloseTo(0.3, 12);
    expect(w.median).toBeCloseTo(0.3, 12);
    expect(w.max).toBeCloseTo(0.6, 12);
    expect(w.max_model).toBe("c");
    // cluster bootstrap over 3 model gaps {0, .3, .6}: resample means lie on the grid k·0.1, within [0, .6]
    expect(w.mean_ci95!.lower!).toBeGreaterThanOrEqual(0);
    expect(w.mean_ci95!.upper!).toBeLessThanOrEqual(0.6 + 1e-12);
    expect(w.mean_ci95!.lower!).toBeLessThan(0.3);
    expect(w.mean_ci95!.upper!).toBeGreaterThan(0.3);
    expect(w.mean_ci95!.resampling).toMatch(/models/);
  });

  it("equal gaps give a degenerate interval; no model with the baseline gives nulls with a reason", () => {
    const two = [...cell("a", "s1", "base", 1, 10), ...cell("a", "s1", "x", 3, 10), ...cell("b", "s1", "base", 4, 10), ...cell("b", "s1", "x", 6, 10)];
    // two models resample to three means only: no interval (audit 31 M4)
    expect(worstCondition(asrTable(two), "base", { B: 300, seed: 2 }).mean_ci95).toMatchObject({ lower: null, upper: null, reason: "fewer_than_3_clusters" });
    const eq = [...two, ...cell("c", "s1", "base", 2, 10), ...cell("c", "s1", "x", 4, 10)];
    const w = worstCondition(asrTable(eq), "base", { B: 300, seed: 2 });
    expect(w.mean).toBeCloseTo(0.2, 12);
    expect(w.mean_ci95!.lower).toBeCloseTo(0.2, 12);
    expect(w.mean_ci95!.upper).toBeCloseTo(0.2, 12);
    const none = worstCondition(asrTable(eq), "zzz", { B: 300, seed: 2 });
    expect(none.mean).toBeNull();
    expect(none.reason).toBe("no_model_with_baseline");
  });

  it("a model seen under one condition has no underestimate (null, fewer_than_2_conditions), and is left out of the mean", () => {
    const xs = [...cell("a", "s1", "base", 2, 10), ...cell("b", "s1", "base", 4, 10), ...cell("b", "s1", "x", 7, 10)];
    const w = worstCondition(asrTable(xs), "base", { B: 200, seed: 3 });
    expect(w.per_model.find((r) => r.model === "a")).toMatchObject({ conditions: 1, underestimate: null, reason: "fewer_than_2_conditions" });
    expect(w.n_models).toBe(1);
    expect(w.mean).toBeCloseTo(0.3, 12);
    // one model with an underestimate is one cluster: the bootstrap interval is undefined, not [x, x]
    expect(w.mean_ci95).toMatchObject({ lower: null, upper: null, reason: "fewer_than_3_clusters" });
    const text = formatCompare(compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: xs, n_total: xs.length, excluded: {} }, { bootstrap: { B: 200, seed: 3 } }));
    expect(text).toContain("underestimate over 1 models (percentage points): mean 30.0 pp [CI undefined: fewer than 3 models to resample");
    expect(text).not.toMatch(/underestimate over 1 models \(percentage points\): mean 30\.0 pp \[30/);
    const one = worstCondition(asrTable(cell("a", "s1", "base", 2, 10)), "base", { B: 200, seed: 3 });
    expect(one).toMatchObject({ n_models: 0, mean: null, median: null, max: null, mean_ci95: null, reason: "fewer_than_2_conditions" });
  });
});

describe("ties in what compare ranks are said, never one condition by name (fixM 2)", () => {
  const run = (obs: Observation[], baseline?: string) =>
    compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} }, { bootstrap: { B: 50, seed: 1 }, baseline });

  it("every condition at one rate: no worst, all tied (all_tied), never 'worst <first by name>'", () => {
    const obs = [...cell("a", "s1", "base", 3, 10), ...cell("a", "s1", "x", 3, 10), ...cell("a", "s1", "y", 3, 10)];
    const row = worstCondition(asrTable(obs), "base", { B: 0, seed: 1 }).per_model[0];
    expect(row).toMatchObject({ worst_tied: ["base", "x", "y"], all_tied: true, underestimate: 0 });
    const text = formatCompare(run(obs, "base"));
    expect(text).toMatch(/ a +no worst: all 3 conditions tied at asr_behaviour 30\.0%/);
    expect(text).not.toMatch(/worst base asr/);
  });

  it("two of three tied at the top: both named", () => {
    const obs = [...cell("a", "s1", "base", 1, 10), ...cell("a", "s1", "x", 5, 10), ...cell("a", "s1", "y", 5, 10)];
    const row = worstCondition(asrTable(obs), "base", { B: 0, seed: 1 }).per_model[0];
    expect(row.worst_tied).toEqual(["x", "y"]);
    expect(row.all_tied).toBeUndefined();
    expect(formatCompare(run(obs, "base"))).toMatch(/ a +worst \(tie\) x = y asr_behaviour 50\.0%/);
  });

  it("the largest underestimate tied between models: all named", () => {
    const obs = [...cell("a", "s1", "base", 1, 10), ...cell("a", "s1", "x", 4, 10), ...cell("b", "s1", "base", 2, 10), ...cell("b", "s1", "x", 5, 10)];
    const w = worstCondition(asrTable(obs), "base", { B: 0, seed: 1 });
    expect(w.max_models).toEqual(["a", "b"]);
    expect(formatCompare(run(obs, "base"))).toContain("max 30.0 pp (tie: a, b)");
  });

  it("a default baseline tied in models and trajectories says so (baseline_tie) and points to --baseline", () => {
    const obs = [...cell("a", "s1", "p", 1, 10), ...cell("a", "s1", "q", 4, 10)];
    expect(chooseBaseline(obs)).toEqual({ baseline: "p", chosen_by: "most_models", tie: { conditions: ["p", "q"], models: 1, trajectories: { p: 10, q: 10 }, broken_by: "name" } });
    const r = run(obs);
    expect(r.baseline_tie?.conditions).toEqual(["p", "q"]);
    expect(formatCompare(r)).toContain("baseline p (default: most_models, tied with q: see the warning, choose one with --baseline");
    expect(chooseBaseline([...obs, ...cell("b", "s1", "p", 1, 10)]).tie).toBeUndefined();
  });
});

describe("leave-one-suite-out condition selection", () => {
  // One model, three suites, conditions base and x; ASR (k/10):
  //          s1   s2   s3
  //   base   2    2    6
  //   x      5    4    1
  // hold out s1: train s2+s3 base 8/20=.4, x 5/20=.25 -> select base; on s1 oracle x (.5): wrong; realized .2
  // hold out s2: train s1+s3 base 8/20, x 6/20 -> base; oracle x (.4): wrong; realized .2
  // hold out s3: train s1+s2 base 4/20, x 9/20 -> x; oracle base (.6): wrong; realized .1
  // A second model where x always wins: every fold selects x and is right.
  //          s1  s2  s3
  //   base   1   1   1
  //   x      3   5   7
  const obs = [
    ...cell("m", "s1", "base", 2, 10), ...cell("m", "s2", "base", 2, 10), ...cell("m", "s3", "base", 6, 10),
    ...cell("m", "s1", "x", 5, 10), ...cell("m", "s2", "x", 4, 10), ...cell("m", "s3", "x", 1, 10),
    ...cell("n", "s1", "base", 1, 10), ...cell("n", "s2", "base", 1, 10), ...cell("n", "s3", "base", 1, 10),
    ...cell("n", "s1", "x", 3, 10), ...cell("n", "s2", "x", 5, 10), ...cell("n", "s3", "x", 7, 10),
  ];
  it("selects on the other suites, evaluates on the held-out one, and summarizes", () => {
    const l = leaveOneSuiteOut(obs, "base");
    expect(l.n_folds).toBe(6);
    const f = (m: string, s: string) => l.folds.find((x) => x.model === m && x.held_out === s)!;
    expect(f("m", "s1")).toMatchObject({ selected: "base", oracle: ["x"], correct: false, realized_asr: 0.2, baseline_asr: 0.2, oracle_asr: 0.5 });
    expect(f("m", "s2")).toMatchObject({ selected: "base", correct: false, realized_asr: 0.2, oracle_asr: 0.4 });
    expect(f("m", "s3")).toMatchObject({ selected: "x", oracle: ["base"], correct: false, realized_asr: 0.1, baseline_asr: 0.6, oracle_asr: 0.6 });
    for (const s of ["s1", "s2", "s3"]) expect(f("n", s)).toMatchObject({ selected: "x", correct: true });
    expect(l.selection_accuracy).toBeCloseTo(3 / 6, 12);
    // realized: m .2 .2 .1, n .3 .5 .7 -> mean 2.0/6
    expect(l.mean_realized_asr).toBeCloseTo(2.0 / 6, 12);
    // baseline: m .2 .2 .6, n .1 .1 .1 -> 1.3/6
    expect(l.mean_baseline_asr).toBeCloseTo(1.3 / 6, 12);
    // oracle: m .5 .4 .6, n .3 .5 .7 -> 3.0/6
    expect(l.mean_oracle_asr).toBeCloseTo(3.0 / 6, 12);
    expect(l.gain_over_baseline).toBeCloseTo(0.7 / 6, 12);
    expect(l.gap_to_oracle).toBeCloseTo(1.0 / 6, 12);
    // recovered: Σ(realized − baseline) / Σ(oracle − baseline) = 0.7 / 1.7
    expect(l.oracle_gain_recovered).toBeCloseTo(0.7 / 1.7, 12);
  });

  it("a tie on the training suites is not broken by name: the fold's figures are the means over the tied conditions (audit 31 M1)", () => {
    // training (s2) ties base and x at 2/10; on s1 base 1/10, x 5/10: oracle x. First by name (base) read 0% right.
    const l = leaveOneSuiteOut([...cell("m", "s1", "base", 1, 10), ...cell("m", "s2", "base", 2, 10), ...cell("m", "s1", "x", 5, 10), ...cell("m", "s2", "x", 2, 10)], "base");
    const f = l.folds.find((x) => x.held_out === "s1")!;
    expect(f).toMatchObject({ selected: "base", selected_tied: ["base", "x"], correct_share: 0.5, correct: false, oracle: ["x"] });
    expect(f.realized_asr).toBeCloseTo(0.3, 12);
    expect(l.folds_tied).toBe(1);
    expect(l.folds.find((x) => x.held_out === "s2")!.selected_tied).toBeUndefined();
  });

  it("skips folds without another suite, with one condition only, or without the baseline", () => {
    const l = leaveOneSuiteOut(
      [
        ...cell("a", "s1", "base", 1, 5),
        ...cell("b", "s1", "x", 1, 5), ...cell("b", "s2", "x", 2, 5), ...cell("b", "s1", "y", 1, 5), ...cell("b", "s2", "y", 2, 5),
        ...cell("c", "s1", "base", 1, 5), ...cell("c", "s2", "base", 2, 5),
      ],
      "base",
    );
    expect(l.n_folds).toBe(0);
    expect(l.selection_accuracy).toBeNull();
    expect(l.reason).toBe("no_folds");
    expect(l.skipped).toEqual([
      { model: "a", held_out: "s1", reason: "no_training_suite" },
      { model: "b", held_out: "s1", reason: "baseline_not_observed" },
      { model: "b", held_out: "s2", reason: "baseline_not_observed" },
      { model: "c", held_out: "s1", reason: "single_condition" },
      { model: "c", held_out: "s2", reason: "single_condition" },
    ]);
  });
});

describe("baseline choice and the whole analysis", () => {
  it("uses the option, else no_defense, else the condition seen for the most models", () => {
    const obs = [...cell("a", "s", "x", 1, 2), ...cell("b", "s", "x", 1, 2), ...cell("a", "s", "y", 1, 5)];
    expect(chooseBaseline(obs)).toEqual({ baseline: "x", chosen_by: "most_models" });
    expect(chooseBaseline(obs, "y")).toEqual({ baseline: "y", chosen_by: "option" });
    expect(() => chooseBaseline(obs, "z")).toThrow(/not an observed condition/);
    expect(chooseBaseline([...obs, ...cell("a", "s", "no_defense", 0, 1)])).toEqual({ baseline: "no_defense", chosen_by: "no_defense" });
    expect(() => chooseBaseline([])).toThrow(/nothing to compare/);
  });

  it("compareConditions puts every part together and never produces NaN", () => {
    const obs: Observation[] = [];
    models13.slice(0, 4).forEach((m, i) => {
      for (const s of ["s1", "s2"]) {
        obs.push(...cell(m, s, "A", k13(i + 1, "A"), 20), ...cell(m, s, "B", k13(i + 1, "B"), 20));
      }
    });
    const r = compareConditions(
      { source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length + 5, excluded: { unattacked: 5 } },
      { bootstrap: { B: 100, seed: 1 } },
    );
    expect(r.models).toHaveLength(4);
    expect(r.baseline).toBe("A");
    expect(r.reversals.find((x) => x.suite === ALL_SUITES && x.rate === "asr_behaviour")!.reversals).toBe(6); // first four reversed: C(4,2)
    expect(r.interaction.asr_behaviour.df).toBe(3);
    // no full compliance in these observations: every model ties at asr_goal 0, so nothing reverses by it
    expect(r.reversals.find((x) => x.suite === ALL_SUITES && x.rate === "asr_goal")!.reversals).toBe(0);
    expect(JSON.stringify(r)).not.toMatch(/NaN|Infinity/);
  });

  it("the text names an interval that was computed without a value instead of leaving it out", () => {
    const obs: Observation[] = [];
    models13.slice(0, 4).forEach((m, i) => obs.push(...cell(m, "s1", "A", k13(i + 1, "A"), 20), ...cell(m, "s1", "B", k13(i + 1, "B"), 20)));
    const r = compareConditions(
      { source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} },
      { bootstrap: { B: 50, seed: 1 } },
    );
    const x = r.reversals.find((y) => y.suite === ALL_SUITES && y.rate === "asr_behaviour")!;
    expect(formatCompare(r)).toMatch(/pairs reverse \([^)]*\) \[[0-9.]+%, [0-9.]+%\]/);
    x.ci95 = { ...x.ci95!, lower: null, upper: null, reason: "all_resamples_undefined" };
    expect(formatCompare(r)).toContain("pairs reverse (100.0%) [CI undefined: undefined on every bootstrap resample]".replace("100.0%", `${(x.share! * 100).toFixed(1)}%`));
  });

  it("the like-for-like drop: a model under one condition keeps its cells in its row; the pooled figures' drop is named (newuser16, session 29)", () => {
    // a runs A and B on u0..u3; b runs A only, on u0..u5: u4, u5 are cells B lacks. b contrasts nothing of its own, so
    // its row keeps all 6; the pooled figures (reversals, interaction) are over the 4 cells every condition covers
    const withCell = (xs: Observation[]) => xs.map((o) => ({ ...o, cell: o.unit }));
    const obs = withCell([...cell("a", "s", "A", 2, 4), ...cell("a", "s", "B", 1, 4), ...cell("b", "s", "A", 3, 6)]);
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} }, { bootstrap: { B: 0, seed: 1 } });
    expect(r.cells.cells_dropped.A.by_model).toEqual({ b: { dropped: 2, of: 6 } });
    expect(r.cells.per_model.b).toMatchObject({ contrast: false, kept: 6, of: 6, pooled: 4, dropped: {} });
    expect(r.warnings[0]).toMatch(/different task sets \("a" 4, "b" 6 tasks; 4 shared\)/);
    expect(r.asr.find((c) => c.model === "b" && c.suite === ALL_SUITES)!.asr_behaviour).toMatchObject({ count: 3, n: 6 });
    expect(r.pooled_figures).toMatchObject({ n_observations: 12, dropped_like_for_like: 2, same_as_per_model: false, single_condition_models: ["b"] });
    expect(r.pooled_figures.asr!.find((c) => c.model === "b" && c.suite === ALL_SUITES)!.asr_behaviour).toMatchObject({ count: 3, n: 4 });
    const text = formatCompare(r);
    expect(text).toContain("  b: 1 condition (A): no contrast between conditions, so all its 6 attacked trajectories (6 cells) are kept");
    expect(text).toContain("by agent model (left out of these figures only): b 2 of its 6 (these figures over 4)");
    expect(text).toMatch(/\n {2}b +A +asr_goal .*\(0\/6\)/);
    expect(text).not.toMatch(/like for like: \d+ of its/);
    // the rates the reversals and the interaction test rest on, where they differ from the rows
    expect(text).toMatch(/rest on these rates where they differ from the rows above[^\n]*\n {2}b +A +asr_goal 0\.0% [^\n]*\(0\/4\), asr_behaviour 75\.0% [^\n]*\(3\/4\)/);
  });

  it("the like-for-like drop: a model whose two conditions ran different cells loses them in its row, and the row says so (newuser16)", () => {
    // a runs A on u0..u5 and B on u0..u3: its own common cells are u0..u3, so its A row is over 4 of its 6
    const withCell = (xs: Observation[]) => xs.map((o) => ({ ...o, cell: o.unit }));
    const obs = withCell([...cell("a", "s", "A", 2, 6), ...cell("a", "s", "B", 1, 4), ...cell("b", "s", "A", 3, 6), ...cell("b", "s", "B", 3, 6)]);
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} }, { bootstrap: { B: 0, seed: 1 } });
    expect(r.cells.per_model.a.dropped).toEqual({ A: { cells: 2, trajectories: 2, of: 6, list: ["s/u4", "s/u5"] } });
    expect(r.cells.per_model.b).toMatchObject({ kept: 12, of: 12, dropped: {} });
    expect(r.dropped_like_for_like).toBe(2);
    const text = formatCompare(r);
    expect(text).toMatch(/\n {2}a +A +asr_goal .*\(0\/4\).*; attacked runs in the compared cells 4 of 6 \(66\.7%, labelled or not\) \(like for like; the cells left out: header\)/);
    expect(text).not.toMatch(/\n {2}a +B .*like for like:/);
    expect(text).not.toMatch(/\n {2}b +A .*like for like:/);
  });

  it("--common-tasks keeps only the tasks every model was run on, and a warning says when the sets differ", () => {
    // model a: units s/u0..u3; model b: s/u0..u5 (a newer benchmark version with two more tasks)
    const obs = [...cell("a", "s", "A", 2, 4), ...cell("a", "s", "B", 1, 4), ...cell("b", "s", "A", 3, 6), ...cell("b", "s", "B", 6, 6)];
    const f = commonTaskFilter(obs, true);
    expect(f.common).toEqual({ applied: true, units_per_model: { a: 4, b: 6 }, common_units: 4, dropped: 4 });
    expect(f.observations.every((o) => ["s/u0", "s/u1", "s/u2", "s/u3"].includes(o.unit))).toBe(true);
    const base = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} };
    const all = compareConditions(base, { bootstrap: { B: 0, seed: 1 } });
    expect(all.warnings[0]).toMatch(/different task sets \("a" 4, "b" 6 tasks; 4 shared\)/);
    expect(all.asr.find((c) => c.model === "b" && c.suite === ALL_SUITES && c.condition === "A")!.labelled).toBe(6);
    const common = compareConditions(base, { bootstrap: { B: 0, seed: 1 }, commonTasks: true });
    // hand-made observations carry no like-for-like cell: the one warning left says so (src/compare/cells.ts)
    // (and A and B are each run by both models: the default baseline's tie is said, broken by name: new user 37)
    expect(common.warnings.filter((w) => !/like-for-like/.test(w))).toEqual([
      "the default baseline rule (the condition observed for the most models) is tied: 2 conditions observed for 2 models each; broken by name (equal labelled attacked trajectories too) (A 8, B 8), so A is an arbitrary baseline: every underestimate below is relative to it; --baseline chooses one",
    ]);
    // b on u0..u3 under A: k = 3 of the first 4 (cell marks the first k compromised)
    expect(common.asr.find((c) => c.model === "b" && c.suite === ALL_SUITES && c.condition === "A")!.asr_behaviour).toMatchObject({ n: 4, count: 3 });
    expect(() => compareConditions({ ...base, observations: [...cell("a", "s", "A", 1, 2), ...cell("b", "t", "A", 1, 2)] }, { commonTasks: true })).toThrow(/no task is shared/);
  });
});

describe("reversals over too few model pairs (inputs13)", () => {
  it("one or two pairs: the count stands, the interval is undefined with too_few_pairs; the text says why", () => {
    const obs: Observation[] = [];
    for (const [m, ka, kb] of [["a", 10, 4], ["b", 6, 8]] as const) obs.push(...cell(m, "s1", "A", ka, 20), ...cell(m, "s1", "B", kb, 20));
    const [r] = reversalAnalysis(obs, asrTable(obs), { B: 200, seed: 3 });
    expect(r).toMatchObject({ pairs: 1, reversals: 1, share: 1 });
    expect(r.ci95).toMatchObject({ lower: null, upper: null, defined: 0 });
    expect(r.ci95!.reason).toMatch(/^too_few_pairs: 1 model pair, an interval needs 3 or more/);
    const text = formatCompare(compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {}, excluded_groups: [] }, { bootstrap: { B: 200, seed: 3 } }));
    expect(text).toContain("A vs B: 1/1 pairs reverse (100.0%) [CI undefined: too_few_pairs: 1 model pair");
  });
});

describe("a reversal share's interval says what it resamples and what it holds fixed (new user 49 #7)", () => {
  // four models whose A-ordering the B-ordering partly reverses: an interval with bounds
  const obs4 = (unit?: (o: Observation) => string): Observation[] => {
    const obs: Observation[] = [];
    models13.slice(0, 4).forEach((m, i) => obs.push(...cell(m, "s1", "A", k13(i + 1, "A"), 20), ...cell(m, "s1", "B", k13(i + 1, "B"), 20)));
    return unit ? obs.map((o) => ({ ...o, unit: unit(o) })) : obs;
  };
  const textOf = (obs: Observation[]) => formatCompare(compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {}, excluded_groups: [] }, { bootstrap: { B: 200, seed: 3 } }));

  it("tasks: ci95.method names them and the models fixed; the pair's line says it in a clause, the heading why", () => {
    const [r] = reversalAnalysis(obs4(), asrTable(obs4()), { B: 200, seed: 3 });
    expect(r.ci95).toMatchObject({ resampling: "units (paired across models and conditions)", method: "paired percentile bootstrap: tasks resampled, models fixed" });
    expect(r.ci95!.lower).not.toBeNull();
    const text = textOf(obs4());
    expect(text).toMatch(/\n {2}A vs B: \d+\/6 pairs reverse \([0-9.]+%\) \[[0-9.]+%, [0-9.]+%\] \(tasks resampled, models fixed\)/);
    expect(text).toContain("95% CI: a paired bootstrap of the tasks with the models fixed: how the share moves with other tasks, not other models, so a bound at the share itself is no \"at least that many for certain\"");
  });

  it("no task ids (each trajectory its own unit): the clause says trajectories; an undefined interval gets no clause", () => {
    const own = obs4((o) => o.trajectory_id);
    const [r] = reversalAnalysis(own, asrTable(own), { B: 200, seed: 3 });
    expect(r.ci95!.method).toBe("paired percentile bootstrap: trajectories resampled, models fixed");
    expect(textOf(own)).toContain("(trajectories resampled, models fixed)");
    const two: Observation[] = [];
    for (const [m, ka, kb] of [["a", 10, 4], ["b", 6, 8]] as const) two.push(...cell(m, "s1", "A", ka, 20), ...cell(m, "s1", "B", kb, 20));
    expect(textOf(two)).not.toContain("resampled, models fixed)");
  });
});

describe("a tied pair counts in the reversal share's denominator, and the text says so (new user 23)", () => {
  it("three models, one pair tied under A: 1 of the 3 tied, counted in the 3", () => {
    const obs: Observation[] = [];
    for (const [m, ka, kb] of [["a", 10, 4], ["b", 10, 8], ["c", 2, 12]] as const) obs.push(...cell(m, "s1", "A", ka, 20), ...cell(m, "s1", "B", kb, 20));
    const text = formatCompare(compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {}, excluded_groups: [] }, { bootstrap: { B: 0, seed: 3 } }));
    expect(text).toMatch(/A vs B: 2\/3 pairs reverse \(66\.7%\)[^\n]*, 1 of the 3 tied \(counted in the 3, never a reversal\)/);
  });
});

describe("EXPOSURE LOW on the orderings (new user 23 / red team 24): marked where a figure is built on an unexposed cell", () => {
  // c under B: 20 runs, 1 exposed (5%): its 0% ranks it safest for a reason that is not resistance
  const unexposed = (m: string, s: string, c: string, n: number, exposed: number) => cell(m, s, c, 0, n).map((o, i) => ({ ...o, exposed: i < exposed }));
  const obs: Observation[] = [];
  for (const [m, ka, kb] of [["a", 10, 4], ["b", 6, 8]] as const) obs.push(...cell(m, "s1", "A", ka, 20), ...cell(m, "s1", "B", kb, 20));
  obs.push(...cell("c", "s1", "A", 12, 20), ...unexposed("c", "s1", "B", 20, 1));
  const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {}, excluded_groups: [] };
  it("the cell, the reversals and the worst condition carry it; the text marks each figure", () => {
    const r = compareConditions(o, { bootstrap: { B: 0, seed: 1 }, baseline: "B" });
    expect(r.asr.find((c) => c.model === "c" && c.suite === ALL_SUITES && c.condition === "B")).toMatchObject({ not_exposed: 19, labelled: 20, exposure_low: true });
    expect(r.asr.filter((c) => c.exposure_low).map((c) => `${c.model}|${c.suite}|${c.condition}`).sort()).toEqual([`c|${ALL_SUITES}|B`, "c|s1|B"]);
    const rev = r.reversals.find((x) => x.rate === "asr_behaviour" && x.suite === ALL_SUITES)!;
    expect(rev.exposure_low).toEqual(["c | B"]);
    expect(r.worst_condition.asr_behaviour.per_model.find((m) => m.model === "c")!.exposure_low).toEqual(["B"]);
    expect(r.worst_condition.asr_behaviour.per_model.find((m) => m.model === "a")!.exposure_low).toEqual([]);
    const text = formatCompare(r);
    expect(text).toContain("WARNING: c under B: exposure low: 19 of 20 labelled attacked runs are not_exposed");
    expect(text).toMatch(/A vs B: \d+\/3 pairs reverse[^\n]*\[EXPOSURE LOW: c \| B\]/);
    expect(text).toMatch(/ c +worst A asr_behaviour 60\.0%, baseline 0\.0%, underestimate 60\.0 pp \(2 conditions\) \[EXPOSURE LOW: c \| B\]/);
    expect(text).toMatch(/ c +B +asr_goal .*; exposure 5\.0% \(1\/20\) EXPOSURE LOW \(see the warning above\)/);
    expect(text).toMatch(/ a +B +asr_goal .*; exposure 100\.0% \(20\/20\); attacked runs in the compared cells 20 of 20 \(100\.0%, labelled or not\)$/m);
  });
  it("a cell unexposed in one suite only is warned about by itself", () => {
    const two = [...obs, ...cell("a", "s2", "B", 2, 20), ...unexposed("b", "s2", "B", 20, 0), ...cell("c", "s2", "B", 3, 200)];
    const r = compareConditions({ ...o, observations: two, n_total: two.length }, { bootstrap: { B: 0, seed: 1 }, cells: "all" });
    expect(r.warnings.find((w) => w.startsWith("exposure low in one suite only"))).toMatch(/b under B in s2 \(0\/20 exposed\)/);
    // the interaction test's regression is over every suite's cells: its lines name the suite-only cell (red team 25 L7)
    const lines = formatCompare(r).split("\n").filter((l) => /^ +G2 = /.test(l));
    expect(lines.length).toBe(2);
    for (const l of lines) expect(l).toContain("b | B in s2");
  });
});

describe("--common-tasks keeps the unlabelled runs of the shared tasks (red team 24: coverage read 100% (60/60))", () => {
  it("a cell's coverage is over its labelled and unlabelled runs on the common tasks, as without the option", () => {
    const obs: Observation[] = [];
    for (const m of ["a", "b"]) obs.push(...cell(m, "s1", "A", 2, 10), ...cell(m, "s1", "B", 3, 10));
    // a under B: 10 more runs on the shared units without a label, and 5 on a unit no other model ran
    const unlabelled = [
      ...Array.from({ length: 10 }, (_, i) => ({ model: "a", suite: "s1", condition: "B", unit: `s1/u${i}`, reason: "judge_error" })),
      ...Array.from({ length: 5 }, (_, i) => ({ model: "a", suite: "s1", condition: "B", unit: `s1/only-a-${i}`, reason: "judge_error" })),
    ];
    const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, unlabelled, n_total: 55, excluded: {}, excluded_groups: [] };
    const cov = (r: ReturnType<typeof compareConditions>) => r.asr.find((c) => c.model === "a" && c.suite === ALL_SUITES && c.condition === "B")!;
    expect(cov(compareConditions(o, { bootstrap: { B: 0, seed: 1 } }))).toMatchObject({ labelled: 10, attacked: 25, coverage_low: true });
    const common = cov(compareConditions(o, { bootstrap: { B: 0, seed: 1 }, commonTasks: true }));
    expect(common).toMatchObject({ labelled: 10, attacked: 20, coverage: 0.5, coverage_low: true });
  });
});

describe("--common-tasks counts a task as run by a model whose verdicts on it all failed (red team 25 M4)", () => {
  it("the task stays shared: the other model's runs on it are kept, the failed ones lower coverage", () => {
    // a and b both ran s1/u0..u3 under A; a's verdicts on s1/u3 all failed (unlabelled)
    const obs: Observation[] = [...cell("a", "s1", "A", 1, 3), ...cell("b", "s1", "A", 2, 4)];
    const unlabelled = [{ model: "a", suite: "s1", condition: "A", unit: "s1/u3", reason: "judge_error" }];
    const f = commonTaskFilter(obs, true, unlabelled);
    expect(f.common).toEqual({ applied: true, units_per_model: { a: 4, b: 4 }, common_units: 4, dropped: 0 });
    const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, unlabelled, n_total: 8, excluded: {}, excluded_groups: [] };
    const r = compareConditions(o, { bootstrap: { B: 0, seed: 1 }, commonTasks: true });
    const at = (m: string) => r.asr.find((c) => c.model === m && c.suite === ALL_SUITES && c.condition === "A")!;
    expect(at("b")).toMatchObject({ labelled: 4, attacked: 4 });
    expect(at("a")).toMatchObject({ labelled: 3, attacked: 4, coverage: 0.75 });
    expect(r.common_tasks).toMatchObject({ common_units: 4, dropped: 0 });
    // no warning that the models ran different task sets: they did not
    expect(r.warnings.filter((w) => /different task sets/.test(w))).toEqual([]);
  });

  it("every verdict on the shared tasks failed: the error says so instead of 'no task is shared'", () => {
    const obs: Observation[] = [...cell("a", "s1", "A", 1, 2), ...cell("b", "s2", "A", 1, 2)];
    const unlabelled = [
      { model: "a", suite: "s3", condition: "A", unit: "s3/u0", reason: "judge_error" },
      { model: "b", suite: "s3", condition: "A", unit: "s3/u0", reason: "judge_error" },
    ];
    const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, unlabelled, n_total: 6, excluded: {}, excluded_groups: [] };
    expect(() => compareConditions(o, { bootstrap: { B: 0, seed: 1 }, commonTasks: true })).toThrow(/no labelled trajectory on the 1 tasks every model ran/);
  });
});

describe("compare header: what like for like left out is said beside the exclusions (inputs13)", () => {
  it("labelled trajectories in cells some condition lacks are counted in the header, and the numbers add up", () => {
    // condition B lacks the cell of u5..u9: their A observations are dropped like for like
    const obs: Observation[] = [...cell("a", "s1", "A", 3, 10), ...cell("a", "s1", "B", 2, 5), ...cell("b", "s1", "A", 1, 10), ...cell("b", "s1", "B", 1, 5)].map((o) => ({ ...o, cell: o.unit }));
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: 40, excluded: { unattacked: 10 }, excluded_groups: [] }, { bootstrap: { B: 0, seed: 1 } });
    expect(r.dropped_like_for_like).toBe(10);
    expect(r.n_observations).toBe(20);
    expect(formatCompare(r).split("\n")[0]).toContain(
      "20 labelled attacked trajectories compared, of 40 in the run; excluded: unattacked 10; labelled but left out to compare like for like: 10 in cells their model's own conditions do not all cover (like-for-like, below)",
    );
  });

  it("AgentDojo's denial-of-service attacks among the compared runs are named: their asr_goal is not what the checker counts (new user 22)", () => {
    const withAttack = (xs: Observation[], attack: string) => xs.map((o) => ({ ...o, attack, trajectory_id: `${o.trajectory_id}/${attack}` }));
    const base = [...cell("a", "s", "A", 1, 4), ...cell("a", "s", "B", 2, 4)];
    const obs = [...withAttack(base, "important_instructions"), ...withAttack(base, "captcha_dos"), ...withAttack(base.slice(0, 2), "dos")];
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} }, { bootstrap: { B: 0, seed: 1 } });
    const w = r.warnings.filter((x) => x.includes("denial-of-service"));
    expect(w).toEqual([
      "10 of the 18 attacked trajectories ran a denial-of-service attack (captcha_dos 8, dos 2), where the benchmark's security means the user task was not completed, not an injected goal carried out: " +
        "their asr_goal is the injected instruction carried out, which that checker does not count: their rows, and any pooling them (3 attacks here), do not compare with it; --where 'attack=important_instructions,(none)' leaves them out",
    ]);
    expect(formatCompare(r)).toContain(`WARNING: ${w[0]}`);
    // none among them: no such warning
    const plain = withAttack(base, "important_instructions");
    const q = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: plain, n_total: plain.length, excluded: {} }, { bootstrap: { B: 0, seed: 1 } });
    expect(q.warnings.some((x) => x.includes("denial-of-service"))).toBe(false);
  });
});

describe("compare --by attack names the EXPOSURE LOW (model, defense) groups its rows pool (red team 25 M2)", () => {
  it("a warning after the pooled-conditions one, with each low group's counts", () => {
    const obs: Observation[] = [];
    for (const m of ["a", "b"])
      for (const attack of ["A", "B"])
        for (const defense of ["no_defense", "tool_filter"])
          for (let i = 0; i < 10; i++)
            obs.push({ trajectory_id: `${m}/${attack}/${defense}/${i}`, model: m, suite: "s", condition: attack, attack, defense, injection_task: "s/inj", unit: `s/u${i}`, compromised: i < 2, goal: false, exposed: !(m === "a" && defense === "tool_filter") });
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "attack", observations: obs, n_total: obs.length, excluded: {} }, { bootstrap: { B: 0, seed: 1 } });
    const i = r.warnings.findIndex((w) => w.startsWith("the rates by attack pool"));
    expect(r.warnings[i]).toMatch(/^the rates by attack pool 4 \(agent model, condition\) groups, 1 of them EXPOSURE LOW .*: a \| tool_filter 0\/20 exposed;/);
    expect(r.warnings[i - 1]).toMatch(/^each model's rates by attack pool the conditions/);
  });
});

describe("compare's utility columns keep a model's run whose verdicts all failed (review 26)", () => {
  it("under --common-tasks and like for like, the utility n counts the unlabelled run's cell", async () => {
    const { cellKey } = await import("../../src/compare/cells.js");
    const rows: TrajectoryIndexRow[] = [];
    const obs: Observation[] = [];
    const unlabelled: UnlabelledItem[] = [];
    for (const model of ["a", "b"])
      for (let u = 0; u < 4; u++) {
        const r = { id: `${model}/u${u}`, agent_model: model, suite: "s", condition: "A", attack: "atk", user_task_id: `user_task_${u}`, injection_task_id: "injection_task_0", attacked: true, reference: { utility: u % 2 === 0 }, content_sha256: "c" } as unknown as TrajectoryIndexRow;
        rows.push(r);
        const cell = cellKey(r, "condition")!;
        const unit = `s/user_task_${u}/injection_task_0`;
        if (model === "a" && u === 3) unlabelled.push({ model, suite: "s", condition: "A", attack: "atk", cell, unit, reason: "judge_error" });
        else obs.push({ trajectory_id: r.id, model, suite: "s", condition: "A", attack: "atk", injection_task: "s/injection_task_0", unit, cell, compromised: false, goal: false, exposed: true });
      }
    const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, unlabelled, n_total: 8, excluded: {}, excluded_groups: [] };
    for (const commonTasks of [false, true]) {
      const r = compareConditions(o, { bootstrap: { B: 0, seed: 1 }, commonTasks, index: new Map(rows.map((x) => [x.id, x])) });
      const ua = r.utility.find((c) => c.model === "a" && c.condition === "A")!;
      expect(ua.under_attack.n, `commonTasks ${commonTasks}`).toBe(4);
    }
  });  it("a run with no utility verdict says so (utility_reason), and one with any has none (new user 34)", async () => {
    const { cellKey } = await import("../../src/compare/cells.js");
    const mk = (withUtility: boolean) => {
      const rows: TrajectoryIndexRow[] = [];
      const obs: Observation[] = [];
      for (let u = 0; u < 3; u++) {
        const r = { id: `a/u${u}`, agent_model: "a", suite: "s", condition: "A", attack: "atk", user_task_id: `user_task_${u}`, injection_task_id: "injection_task_0", attacked: true, ...(withUtility ? { reference: { utility: true } } : {}), content_sha256: "c" } as unknown as TrajectoryIndexRow;
        rows.push(r);
        obs.push({ trajectory_id: r.id, model: "a", suite: "s", condition: "A", attack: "atk", injection_task: "s/injection_task_0", unit: `s/user_task_${u}/injection_task_0`, cell: cellKey(r, "condition")!, compromised: false, goal: false, exposed: true });
      }
      const o = { source: { kind: "judge" as const, judge_id: "j" }, condition_field: "condition", observations: obs, n_total: 3, excluded: {}, excluded_groups: [] };
      return compareConditions(o, { bootstrap: { B: 0, seed: 1 }, index: new Map(rows.map((x) => [x.id, x])) });
    };
    const none = mk(false);
    expect(none.utility).toEqual([]);
    expect(none.utility_reason).toBe("no_utility_in_input");
    const some = mk(true);
    expect(some.utility_reason).toBeUndefined();
    expect(some.utility).toHaveLength(1);
  });
});
