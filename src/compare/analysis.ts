/**
 * Cross-condition analysis of attack success: how far a safety ranking of agent models, and a model's
 * measured risk, depend on the condition it was measured under (where the payload was placed, the attack, or
 * the defense). Pure functions over {@link Observation}s.
 *
 * Conventions:
 * - The rates of a cell (src/stats/rates.ts, DESIGN section 1): asr_goal = full compliance and asr_behaviour =
 *   full or partial compliance over the labelled attacked trajectories of the cell, each with a 95% Wilson score
 *   interval; a cell with no labelled trajectory has rate null. Every analysis below takes the rate it orders by
 *   (`rate`, default asr_behaviour) and its results name it.
 * - "Overall" figures pool the trajectories of every suite (suite `(all)`).
 * - An observation stands for `weight` trajectories (absent: 1; the column path's one observation per distinct row
 *   record and label): every count adds its weight, so the figures are those of the trajectories one by one.
 * - Two ASRs are tied when they differ by less than 1e-12.
 * - Bootstrap intervals are percentile intervals (type-1 quantiles) from `bootstrapItems` of src/stats
 *   (seeded pure-rand xoroshiro128plus), Efron & Tibshirani (1993) ch. 13.
 */
import { ZERO_WIDTH } from "../format/stat-text.js";
import { bootstrapItems, type TableBootstrapResult } from "../stats/bootstrap.js";
import { RateTally, type AttackRates, type RateItem, type RateName } from "../stats/rates.js";
import type { ReferenceValue } from "../stats/reference-rates.js";
import { weightOf, type Observation, type UnlabelledItem } from "./data.js";

/**
 * The suite of figures pooled over all suites: null, which no input suite can be (it was the string `(all)`, which a
 * suite named `(all)` shared: its figures and the pooled ones were one tally; fix50b). The JSON's pooled cells and
 * reversals read `suite: null`; the text and CSV print the pooled rows without a suite column.
 */
export const ALL_SUITES = null;
/** A suite of {@link AsrCell}: a suite's name, or {@link ALL_SUITES} (null) for the pooled figure. */
export type SuiteOrAll = string | null;
/** Two rates closer than this are tied. */
export const TIE = 1e-12;

/**
 * The rates of one (model, suite, condition) cell: `asr_goal`, `asr_behaviour` (each `{count, n, rate, ci95}`),
 * `blocked_attempts`, `coverage` and `coverage_low` (src/stats/rates.ts).
 */
export interface AsrCell extends AttackRates {
  model: string;
  /** A suite, or null ({@link ALL_SUITES}) for the pooled figure. */
  suite: SuiteOrAll;
  condition: string;
  /** What of the model's attacked runs under the condition the row is over (./row-coverage.ts; set by `compareConditions`). */
  like_for_like?: RowCoverage;
}

/** A row resting on fewer than this share of its model's attacked runs under its condition is flagged (./row-coverage.ts). */
export const ROW_COVERAGE_LOW_BELOW = 0.5;

/** What a row of `compare` is over, of what its model ran under its condition (in that suite, or all suites). */
export interface RowCoverage {
  /** Attacked runs (labelled or not) of the model under the condition that the row's figures are over. */
  used: number;
  /** Attacked runs (labelled or not) of the model under the condition in the run (after --where). */
  available: number;
  /** used / available (null when none is available). */
  share: number | null;
  /** share below {@link ROW_COVERAGE_LOW_BELOW}. */
  low: boolean;
  /** What `used` and `available` count, in words (the same text on every row: `./row-coverage.ts`). */
  population?: string;
}

/** A compact percentile bootstrap interval. */
export interface BootCI {
  lower: number | null;
  upper: number | null;
  reason?: string;
  level: number;
  B: number;
  /** Resamples where the statistic was defined. */
  defined: number;
  seed: number;
  resampling: string;
  /**
   * A reversal share's interval only: what the bootstrap resamples and what it holds fixed, in words
   * ({@link reversalMethod}); the text line says it as a short clause (new user 49 #7: `1/10 pairs reverse (10.0%)
   * [10.0%, 20.0%]` read as "at least one reversal for certain", while the models are held fixed).
   */
  method?: string;
}

/**
 * The interval of a bootstrap result; a zero-width one (every resample gave the same figure: all pairs tied, every
 * model's underestimate 0) has no bounds and the reason `zero_width_bootstrap`, as the other commands print it
 * (new user 36, red team 36: "0/6 pairs reverse (0.0%) [0.0%, 0.0%]" read as a precise zero).
 */
function bootCI(r: TableBootstrapResult, resampling: string): BootCI {
  const zero = r.lower !== null && r.upper !== null && r.lower === r.upper;
  return {
    lower: zero ? null : r.lower,
    upper: zero ? null : r.upper,
    ...(zero ? { reason: ZERO_WIDTH } : r.reason ? { reason: r.reason } : {}),
    level: r.level,
    B: r.B,
    defined: r.defined,
    seed: r.seed,
    resampling,
  };
}

/** Bootstrap settings. */
export interface BootstrapSettings {
  B: number;
  seed: number;
}

const key = (...parts: string[]) => parts.join("\u0000");
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/**
 * The rates per (agent model, suite, condition), plus the pooled (model, `(all)`, condition) cells: both named
 * rates with Wilson 95% intervals, blocked attempts and coverage (src/stats/rates.ts). Only cells with at least
 * one attacked trajectory are listed.
 * @param obs each counts `weight` trajectories (absent: 1).
 * @param unlabelled the cells' attacked trajectories without a usable label (they lower coverage).
 * @returns cells sorted by model, suite (`(all)` last), condition.
 */
export function asrTable(obs: readonly Observation[], unlabelled: readonly UnlabelledItem[] = []): AsrCell[] {
  const tallies = new Map<string, { model: string; suite: SuiteOrAll; condition: string; t: RateTally }>();
  // an observation of weight w is w trajectories: its item is added w times (the tallies are counts)
  // with the run's benchmark verdict when the observation carries it (`reference_security` beside a LOW coverage)
  const add = (model: string, suite: string, condition: string, item: RateItem, times: number, ref: ReferenceValue | undefined) => {
    for (const sc of [suite, ALL_SUITES]) {
      const kk = JSON.stringify([model, sc, condition]);
      let c = tallies.get(kk);
      if (!c) tallies.set(kk, (c = { model, suite: sc, condition, t: new RateTally() }));
      for (let i = 0; i < times; i++) c.t.add(item, ref);
    }
  };
  for (const o of obs) add(o.model, o.suite, o.condition, { label: o.goal ? "full_compliance" : o.compromised ? "partial_compliance" : o.exposed === false ? "not_exposed" : "unaffected", ...(o.goal_split ? { goal_split: true } : {}), blocked: o.blocked, ...(o.blocked_kind !== undefined ? { blocked_kind: o.blocked_kind } : {}) }, weightOf(o), o.reference);
  for (const u of unlabelled) add(u.model, u.suite, u.condition, { label: null, reason: u.reason, ...(u.votes_for ? { votes_for: u.votes_for } : {}) }, weightOf(u), u.reference);
  const cells = [...tallies.values()].map((c): AsrCell => ({ model: c.model, suite: c.suite, condition: c.condition, ...c.t.result() }));
  const suiteOrder = (s: SuiteOrAll) => (s === ALL_SUITES ? "\uffff" : s);
  return cells.sort(
    (a, b) => a.model.localeCompare(b.model) || suiteOrder(a.suite).localeCompare(suiteOrder(b.suite)) || a.condition.localeCompare(b.condition),
  );
}

/**
 * The key of a (model, condition) cell in {@link lowCoverageCells} and {@link lowExposureCells}: the two names joined
 * by U+0000, so a name holding ` | ` cannot stand for another cell (red team 25: model `a | b` under `c` and model
 * `a` under `b | c` were one key); figures show the cell as `model | condition`.
 */
export const cellId = (model: string, condition: string): string => `${model}\u0000${condition}`;

/**
 * The (model, condition) cells of one suite (or pooled) whose coverage is below 80% (`coverage_low`), as
 * {@link cellId} keys: the figures built on them are flagged wherever they are shown.
 */
export function lowCoverageCells(cells: readonly AsrCell[], suite: SuiteOrAll = ALL_SUITES): Set<string> {
  return new Set(cells.filter((c) => c.suite === suite && c.coverage_low).map((c) => cellId(c.model, c.condition)));
}

/**
 * The (model, condition) cells of one suite (or pooled) flagged `exposure_low` (src/stats/rates.ts: fewer than 10% of
 * their labelled attacked runs met the injected text), as {@link cellId} keys: an ordering built on them ranks
 * an attack that did not arrive as resistance, so the figures say so (new user 23).
 */
export function lowExposureCells(cells: readonly AsrCell[], suite: SuiteOrAll = ALL_SUITES): Set<string> {
  return new Set(cells.filter((c) => c.suite === suite && c.exposure_low).map((c) => cellId(c.model, c.condition)));
}

/** The observations with `compromised` set to the event of `rate` (full compliance for `asr_goal`). */
export function forRate(obs: readonly Observation[], rate: RateName): readonly Observation[] {
  return rate === "asr_behaviour" ? obs : obs.map((o) => ({ ...o, compromised: o.goal }));
}

/** ASR lookup `model -> condition -> asr` for one suite (or `(all)`). */
export type AsrMap = Map<string, Map<string, number>>;

/** One rate of one suite (or pooled) as a nested map, from {@link asrTable} cells (cells without a value left out). */
export function asrMap(cells: readonly AsrCell[], suite: SuiteOrAll = ALL_SUITES, rate: RateName = "asr_behaviour"): AsrMap {
  const m: AsrMap = new Map();
  for (const c of cells) {
    const v = c[rate].rate;
    if (c.suite !== suite || v === null) continue;
    if (!m.has(c.model)) m.set(c.model, new Map());
    m.get(c.model)!.set(c.condition, v);
  }
  return m;
}

const sign = (d: number) => (Math.abs(d) < TIE ? 0 : d > 0 ? 1 : -1);

/** Ordering reversals between two conditions over the model pairs observed under both. */
export interface ReversalCount {
  /** Model pairs with an ASR under both conditions for both models. */
  pairs: number;
  reversals: number;
  /** Pairs tied (equal ASR) under at least one of the two conditions: never a reversal. */
  ties: number;
  share: number | null;
  reason?: string;
  /** The reversing pairs: [model i, model j] with i < j. */
  reversed: Array<[string, string]>;
}

/**
 * Count the agent-model pairs whose safety ordering reverses between conditions `a` and `b`: models i < j both
 * observed under both conditions; the pair reverses when sign(ASR_i,a − ASR_j,a) · sign(ASR_i,b − ASR_j,b) < 0
 * (a tie under either condition is not a reversal). share = reversals / pairs (13 models give 78 pairs).
 * @returns share null with reason `no_model_pairs` when fewer than two models have both conditions.
 */
export function countReversals(asr: AsrMap, a: string, b: string): ReversalCount {
  const models = sorted([...asr.keys()].filter((m) => asr.get(m)!.has(a) && asr.get(m)!.has(b)));
  let pairs = 0;
  let reversals = 0;
  let ties = 0;
  const reversed: Array<[string, string]> = [];
  for (let i = 0; i < models.length; i++) {
    for (let j = i + 1; j < models.length; j++) {
      const mi = asr.get(models[i])!;
      const mj = asr.get(models[j])!;
      const sa = sign(mi.get(a)! - mj.get(a)!);
      const sb = sign(mi.get(b)! - mj.get(b)!);
      pairs++;
      if (sa === 0 || sb === 0) ties++;
      else if (sa !== sb) {
        reversals++;
        reversed.push([models[i], models[j]]);
      }
    }
  }
  return pairs === 0
    ? { pairs, reversals, ties, share: null, reason: "no_model_pairs", reversed }
    : { pairs, reversals, ties, share: reversals / pairs, reversed };
}

/** Reversal share between two conditions in one scope, with its paired bootstrap interval. */
export interface ReversalResult extends ReversalCount {
  /** The rate the orderings are of. */
  rate: RateName;
  /** Cells (`model | condition`) the comparison uses whose coverage is below 80%: its figures are flagged. */
  coverage_low: string[];
  /** Cells (`model | condition`) the comparison uses flagged `exposure_low` ({@link lowExposureCells}). */
  exposure_low: string[];
  condition_a: string;
  condition_b: string;
  /** null ({@link ALL_SUITES}: suites pooled) or one suite. */
  suite: SuiteOrAll;
  ci95: BootCI | null;
}

interface Unit {
  /** per (model index, condition slot) counts */
  cells: Array<{ m: number; c: number; k: number; n: number }>;
}

/**
 * Paired bootstrap of the reversal share: resample the pairing units (the same task for every model and both
 * conditions, {@link Observation.unit}) with replacement, recompute each model's ASR under both conditions from
 * the resampled units, and the share over the model pairs defined in that resample.
 */
function reversalBootstrap(obs: readonly Observation[], a: string, b: string, models: string[], boot: BootstrapSettings): BootCI {
  const mIndex = new Map(models.map((m, i) => [m, i]));
  const units = new Map<string, Map<string, { m: number; c: number; k: number; n: number }>>();
  for (const o of obs) {
    const mi = mIndex.get(o.model);
    if (mi === undefined || (o.condition !== a && o.condition !== b)) continue;
    const c = o.condition === a ? 0 : 1;
    let u = units.get(o.unit);
    if (!u) units.set(o.unit, (u = new Map()));
    const kk = `${mi}:${c}`;
    let cell = u.get(kk);
    if (!cell) u.set(kk, (cell = { m: mi, c, k: 0, n: 0 }));
    cell.n += weightOf(o);
    if (o.compromised) cell.k += weightOf(o);
  }
  const items: Unit[] = [...units.keys()].sort().map((k) => ({ cells: [...units.get(k)!.values()] }));
  const method = reversalMethod(obs, a, b, mIndex);
  const M = models.length;
  const K = new Float64Array(M * 2);
  const N = new Float64Array(M * 2);
  const stat = (sample: readonly Unit[]): number | null => {
    K.fill(0);
    N.fill(0);
    for (const u of sample) {
      for (const c of u.cells) {
        K[c.m * 2 + c.c] += c.k;
        N[c.m * 2 + c.c] += c.n;
      }
    }
    let pairs = 0;
    let rev = 0;
    for (let i = 0; i < M; i++) {
      if (N[i * 2] === 0 || N[i * 2 + 1] === 0) continue;
      for (let j = i + 1; j < M; j++) {
        if (N[j * 2] === 0 || N[j * 2 + 1] === 0) continue;
        pairs++;
        const sa = sign(K[i * 2] / N[i * 2] - K[j * 2] / N[j * 2]);
        const sb = sign(K[i * 2 + 1] / N[i * 2 + 1] - K[j * 2 + 1] / N[j * 2 + 1]);
        if (sa !== 0 && sb !== 0 && sa !== sb) rev++;
      }
    }
    return pairs === 0 ? null : rev / pairs;
  };
  return { ...bootCI(bootstrapItems(items, stat, { B: boot.B, seed: boot.seed }), "units (paired across models and conditions)"), method };
}

/** What a reversal share's bootstrap resamples: tasks, trajectories (no task ids), or both. */
type ReversalUnits = "tasks" | "trajectories" | "tasks and trajectories";

/**
 * The method of a reversal share's interval (`ci95.method`): a percentile bootstrap that resamples the pairing
 * units, the same for every model and both conditions, with the models held fixed: it says how the share moves with
 * the tasks, not which model pairs would reverse with other models, so a lower bound at the share itself is no
 * "at least this many reversals for certain". The units are tasks (suite/user task/injection task), or trajectories
 * for observations without task ids (`Observation.unit` falls back to the trajectory id).
 * @param obs the scope's observations; @param a @param b the two conditions; @param mIndex the paired models.
 */
function reversalMethod(obs: readonly Observation[], a: string, b: string, mIndex: ReadonlyMap<string, number>): string {
  let tasks = false;
  let trajectories = false;
  for (const o of obs) {
    if (!mIndex.has(o.model) || (o.condition !== a && o.condition !== b)) continue;
    if (o.unit === o.trajectory_id) trajectories = true;
    else tasks = true;
  }
  const units: ReversalUnits = tasks && trajectories ? "tasks and trajectories" : trajectories ? "trajectories" : "tasks";
  return `${REVERSAL_METHOD_HEAD} ${units} resampled, models fixed`;
}

/** The first words of every reversal `ci95.method` (the rest: `<units> resampled, models fixed`). */
export const REVERSAL_METHOD_HEAD = "paired percentile bootstrap:";

/**
 * The fewest model pairs a reversal share gets a bootstrap interval for (3: three models). With one or two pairs the
 * share can only be 0, 1/2 or 1, and resampling units (tasks) around one or two orderings gives an interval that
 * looks like a measured uncertainty of a share but is that of one or two sign comparisons: the count (`1/1 pairs
 * reverse`) says it all, so the interval is undefined with the reason.
 */
export const MIN_REVERSAL_PAIRS_FOR_CI = 3;

/** The undefined interval of a reversal share over fewer than {@link MIN_REVERSAL_PAIRS_FOR_CI} model pairs. */
function tooFewPairs(pairs: number, boot: BootstrapSettings): BootCI {
  return {
    lower: null,
    upper: null,
    reason: `too_few_pairs: ${pairs} model pair${pairs === 1 ? "" : "s"}, an interval needs ${MIN_REVERSAL_PAIRS_FOR_CI} or more (the share can only be ${pairs === 1 ? "0 or 1" : "0, 1/2 or 1"})`,
    level: 0.95,
    B: boot.B,
    defined: 0,
    seed: boot.seed,
    resampling: "none (too few model pairs)",
  };
}

/**
 * For every pair of conditions (a < b), the share of agent-model pairs whose safety ordering by `rate` (default
 * `asr_behaviour`; `asr_goal` orders by full compliance) reverses, overall
 * (suites pooled) and per suite, each with a paired bootstrap 95% interval (units resampled within the scope;
 * the same seed for every scope, so scopes share random numbers). Pairs of conditions with no model pair in a
 * scope are listed with share null and no interval; those with fewer than {@link MIN_REVERSAL_PAIRS_FOR_CI} model pairs
 * get an undefined interval saying why (`too_few_pairs`).
 * @param boot B resamples (0 skips the intervals) and the seed.
 */
export function reversalAnalysis(
  obs: readonly Observation[],
  cells: readonly AsrCell[],
  boot: BootstrapSettings,
  rate: RateName = "asr_behaviour",
): ReversalResult[] {
  obs = forRate(obs, rate);
  const conditions = sorted(obs.map((o) => o.condition));
  const suites: SuiteOrAll[] = [ALL_SUITES, ...sorted(obs.map((o) => o.suite))];
  const out: ReversalResult[] = [];
  for (const suite of suites) {
    const map = asrMap(cells, suite, rate);
    const scoped = suite === ALL_SUITES ? obs : obs.filter((o) => o.suite === suite);
    // the suite's flagged cells, once for all its pairs of conditions
    const low = lowCoverageCells(cells, suite);
    const unexposed = lowExposureCells(cells, suite);
    for (let i = 0; i < conditions.length; i++) {
      for (let j = i + 1; j < conditions.length; j++) {
        const a = conditions[i];
        const b = conditions[j];
        const r = countReversals(map, a, b);
        if (suite !== ALL_SUITES && r.pairs === 0) continue;
        const models = sorted([...map.keys()].filter((m) => map.get(m)!.has(a) && map.get(m)!.has(b)));
        const ci =
          r.pairs > 0 && boot.B > 0
            ? r.pairs < MIN_REVERSAL_PAIRS_FOR_CI
              ? tooFewPairs(r.pairs, boot)
              : reversalBootstrap(scoped, a, b, models, boot)
            : null;
        const used = models.flatMap((m) => [[m, a], [m, b]] as const);
        const named = (set: Set<string>) => used.filter(([m, c]) => set.has(cellId(m, c))).map(([m, c]) => `${m} | ${c}`);
        out.push({ rate, condition_a: a, condition_b: b, suite, ...r, coverage_low: named(low), exposure_low: named(unexposed), ci95: ci });
      }
    }
  }
  return out;
}

/** One model's worst condition and the baseline's shortfall. */
export interface WorstConditionRow {
  model: string;
  conditions: number;
  /** The worst condition; on a tie the first by name of `worst_tied` (the text names them all, never this one alone). */
  worst_condition: string;
  /**
   * Every condition tied at the worst rate, when two or more are (fixM 2: a tie of all conditions was named "worst" by
   * one arbitrary condition). When it holds every condition of the model, `all_tied` is set.
   */
  worst_tied?: string[];
  /** Every condition of the model (two or more) is tied at the same rate: none is worse than another. */
  all_tied?: true;
  worst_asr: number;
  baseline_asr: number | null;
  /** worst_asr − baseline_asr (>= 0): how much measuring under the baseline alone underestimates the risk. */
  underestimate: number | null;
  reason?: string;
  /** The model's conditions here (worst, baseline) whose coverage is below 80%: the figures are flagged. */
  coverage_low: string[];
  /** The model's conditions here (worst, baseline) flagged `exposure_low`: the figures are flagged. */
  exposure_low: string[];
}

/** Summary of the baseline's underestimate over models. */
export interface WorstConditionSummary {
  /** The rate the worst condition is worst by. */
  rate: RateName;
  baseline: string;
  per_model: WorstConditionRow[];
  /** Models with a baseline ASR. */
  n_models: number;
  mean: number | null;
  median: number | null;
  max: number | null;
  /** Model whose underestimate is the largest (first by name of `max_models` on ties). */
  max_model: string | null;
  /** Every model tied at the largest underestimate, when two or more are (the text names them all). */
  max_models?: string[];
  reason?: string;
  /** Model-level cluster bootstrap of the mean (models resampled with all their trajectories). */
  mean_ci95: BootCI | null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/**
 * Worst-condition risk per model by `rate` (default `asr_behaviour`): the highest pooled rate over the conditions it was observed under (on a
 * tie `worst_tied` names every tied condition and `all_tied` says when no condition is worse than another; `worst_condition` is
 * then the first by name, for the JSON only) and how much the baseline condition underestimates it: worst − baseline, with
 * its mean, median and maximum over the models observed under the baseline, and a cluster bootstrap interval of
 * the mean that resamples models (the clusters) with replacement, keeping each model's figure whole; with fewer
 * than 3 such models the interval is undefined (`mean_ci95` bounds null, reason `fewer_than_3_clusters`: two models
 * resample to three means only).
 * A model observed under fewer than 2 conditions has no underestimate (null, `fewer_than_2_conditions`); nor has a
 * model in `apart` (null, `conditions_share_no_cell`): its conditions share no cell, so its rates per condition are
 * over different tasks and "worst" and "underestimate" would compare tasks, not conditions (newuser51: +2.0 pp over
 * different tasks where the two attacks' 13 shared cells gave -15.4 pp; the paired differences are its like-for-like
 * figures).
 * @param apart models whose own conditions share no cell (`ModelCells.applied` false with `contrast`).
 * @returns mean/median/max null with reason `no_model_with_baseline` when no model has the baseline, or
 *   `fewer_than_2_conditions` when no model with the baseline was observed under another condition.
 */
export function worstCondition(cells: readonly AsrCell[], baseline: string, boot: BootstrapSettings, rate: RateName = "asr_behaviour", apart: ReadonlySet<string> = new Set()): WorstConditionSummary {
  const map = asrMap(cells, ALL_SUITES, rate);
  const per_model: WorstConditionRow[] = [];
  const low = lowCoverageCells(cells);
  const unexposed = lowExposureCells(cells);
  for (const model of sorted(map.keys())) {
    const byC = map.get(model)!;
    let worst = "";
    let worstAsr = -1;
    for (const c of sorted(byC.keys())) {
      if (byC.get(c)! > worstAsr + TIE) {
        worst = c;
        worstAsr = byC.get(c)!;
      }
    }
    // a tie at the top is said, never one condition picked by name (fixM 2)
    const tied = sorted(byC.keys()).filter((c) => byC.get(c)! >= worstAsr - TIE);
    const base = byC.get(baseline);
    // one condition: no other condition to be worse than the baseline, so the underestimate is undefined, not 0
    const reason = base === undefined ? "baseline_not_observed" : byC.size < 2 ? "fewer_than_2_conditions" : apart.has(model) ? "conditions_share_no_cell" : undefined;
    per_model.push({
      model,
      coverage_low: [...new Set([worst, baseline])].filter((c) => low.has(cellId(model, c))),
      exposure_low: [...new Set([worst, baseline])].filter((c) => unexposed.has(cellId(model, c))),
      conditions: byC.size,
      worst_condition: worst,
      ...(tied.length > 1 ? { worst_tied: tied } : {}),
      ...(tied.length > 1 && tied.length === byC.size ? { all_tied: true as const } : {}),
      worst_asr: worstAsr,
      baseline_asr: base ?? null,
      underestimate: reason ? null : worstAsr - base!,
      ...(reason ? { reason } : {}),
    });
  }
  const gaps = per_model.filter((r) => r.underestimate !== null);
  const vals = gaps.map((r) => r.underestimate!);
  if (vals.length === 0) {
    const reason = per_model.some((r) => r.reason === "conditions_share_no_cell")
      ? "conditions_share_no_cell"
      : per_model.some((r) => r.reason === "fewer_than_2_conditions")
      ? "fewer_than_2_conditions"
      : "no_model_with_baseline";
    return { rate, baseline, per_model, n_models: 0, mean: null, median: null, max: null, max_model: null, reason, mean_ci95: null };
  }
  const mean = vals.reduce((s, x) => s + x, 0) / vals.length;
  const max = Math.max(...vals);
  const maxModels = gaps.filter((r) => r.underestimate! >= max - TIE).map((r) => r.model);
  // one model is one cluster: resampling it gives the same mean every time, an interval of zero width that
  // measures nothing; two give only three means (both of one, one of each: audit 31 M4, "[0.0 pp, 5.6 pp]" was those
  // values), so the interval is undefined (null with a reason) below three, as the reversal share's is below three pairs
  const ci: BootCI | null =
    boot.B > 0 && vals.length < 3
      ? { lower: null, upper: null, reason: "fewer_than_3_clusters", level: 0.95, B: boot.B, defined: 0, seed: boot.seed, resampling: "models (cluster bootstrap)" }
      : boot.B > 0
      ? bootCI(
          bootstrapItems(vals, (s) => s.reduce((t, x) => t + x, 0) / s.length, { B: boot.B, seed: boot.seed }),
          "models (cluster bootstrap)",
        )
      : null;
  return {
    rate,
    baseline,
    per_model,
    n_models: vals.length,
    mean,
    median: median(vals),
    max,
    max_model: maxModels[0],
    ...(maxModels.length > 1 ? { max_models: maxModels } : {}),
    mean_ci95: ci,
  };
}
