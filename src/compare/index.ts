// src/compare/: cross-condition analysis (`ipi-judge compare`): asr_goal and asr_behaviour per agent model, suite and condition,
// safety-ordering reversals, worst-condition risk and the model x condition logistic test.
/**
 * Cross-condition analysis (`ipi-judge compare`): asr_goal and asr_behaviour per (agent model, suite, condition), safety-ordering
 * reversals between conditions, worst-condition risk against a baseline, leave-one-suite-out condition
 * selection, and the logistic-regression test of the model x condition interaction.
 */
import { bootstrapLine, pctText, ppText, reasonText, statText, undefinedText } from "../format/stat-text.js";
import { totalWeight, weightOf, type Observation, type Observations, type UnlabelledItem } from "./data.js";
import {
  ALL_SUITES,
  asrTable,
  forRate,
  leaveOneSuiteOut,
  lowExposureCells,
  cellId,
  reversalAnalysis,
  worstCondition,
  type AsrCell,
  type BootstrapSettings,
  type LosoSummary,
  type ReversalResult,
  type WorstConditionSummary,
} from "./analysis.js";
import { interactionFlagText, interactionLRT, type InteractionTest } from "./logistic.js";
import { EXPOSURE_LOW_BELOW, RATE_NAMES, type RateName } from "../stats/rates.js";
import { rateCaveatMarker, type RateCaveat } from "../verdict/rate-caveat.js";
import { BLOCKED_MEANS, blockedText, coverageText, exposureFigureText, exposureLowText, rateFigureText } from "../format/rates-text.js";
import { formatUtilityRate, utilityTable, type UtilityCell } from "./utility.js";
import { utilityLikeForLikeWarnings } from "../stats/utility-like-for-like.js";
import { runKind } from "../ingest/attacked.js";
import { dosAttackWarning } from "../agree/dos-attacks.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { whereLine, type WhereStatement } from "../store/where.js";
import { cellKey, commonCellFilter, fieldNoun, formatCellsDropped, groupsNoun, type CellCheck } from "./cells.js";
import { showControls, shownStrings } from "../format/shown.js";
import { PooledExposureTally, pooledExposureLowWarning } from "../stats/pooled-exposure.js";

export * from "./data.js";
export * from "./cells.js";
export * from "./analysis.js";
export * from "./logistic.js";
export * from "./utility.js";

/** How the baseline condition was chosen. */
export type BaselineChoice = "option" | "no_defense" | "tool_output" | "most_models";

/**
 * The baseline condition: the given one; else `no_defense` when it is observed (AgentDojo defense runs);
 * else, grouping by surface (`field` = `surface`), `tool_output` (the data surface) when it is observed;
 * else the condition observed for the most models (ties: the most trajectories, then the first by name).
 * @throws Error when a given baseline is not among the observed conditions, or there is no observation.
 */
export function chooseBaseline(obs: readonly Observation[], given?: string, field?: string): { baseline: string; chosen_by: BaselineChoice } {
  const conds = new Map<string, { models: Set<string>; n: number }>();
  for (const o of obs) {
    let c = conds.get(o.condition);
    if (!c) conds.set(o.condition, (c = { models: new Set(), n: 0 }));
    c.models.add(o.model);
    c.n += weightOf(o);
  }
  if (conds.size === 0) throw new Error("no labelled attacked trajectory with a condition: nothing to compare");
  if (given !== undefined) {
    // the names one line each (a line feed in a condition must not start a line of the error: review 26)
    if (!conds.has(given)) throw new Error(`baseline "${given}" is not an observed condition (conditions: ${[...conds.keys()].sort().map(showControls).join(", ")})`);
    return { baseline: given, chosen_by: "option" };
  }
  if (conds.has("no_defense")) return { baseline: "no_defense", chosen_by: "no_defense" };
  if (field === "surface" && conds.has("tool_output")) return { baseline: "tool_output", chosen_by: "tool_output" };
  const best = [...conds.entries()].sort(
    ([a, x], [b, y]) => y.models.size - x.models.size || y.n - x.n || a.localeCompare(b),
  )[0][0];
  return { baseline: best, chosen_by: "most_models" };
}

/** What {@link commonTaskFilter} kept. */
export interface CommonTasks {
  applied: boolean;
  /** Distinct pairing units (suite/user task/injection task) per model before filtering. */
  units_per_model: Record<string, number>;
  /** Units observed for every model. */
  common_units: number;
  /** Observations dropped because their unit is not shared by every model (0 when not applied). */
  dropped: number;
}

/**
 * Keep only the observations whose pairing unit (suite/user task/injection task) was run by every agent model
 * (under any condition), so that models are compared on the same tasks (AgentDojo runs of different benchmark
 * versions hold different task sets).
 *
 * A task counts as run by a model when the model has a trajectory on it, labelled or not: `unlabelled` (runs whose
 * verdicts all failed, or that were never judged) count too (red team 25 M4: a task whose verdicts all failed for
 * one model read as not run by it and was dropped for every model, unsaid; kept, its failed runs lower that model's
 * coverage as they do without the option). Unlabelled items without a unit (task ids unknown) cannot be placed.
 * @param apply when false, nothing is dropped and only the counts are returned.
 * @returns the observations kept, the counts, and `units`: the units every model ran (computed either way; the
 *   filter uses it only when applied).
 */
export function commonTaskFilter(
  obs: readonly Observation[],
  apply: boolean,
  unlabelled: readonly UnlabelledItem[] = [],
): { observations: Observation[]; common: CommonTasks; units: Set<string> } {
  const byModel = new Map<string, Set<string>>();
  const add = (model: string, unit: string) => (byModel.get(model) ?? byModel.set(model, new Set()).get(model)!).add(unit);
  for (const o of obs) add(o.model, o.unit);
  for (const u of unlabelled) if (u.unit !== undefined) add(u.model, u.unit);
  const sets = [...byModel.values()];
  const common = new Set(sets.length ? [...sets[0]].filter((u) => sets.every((s) => s.has(u))) : []);
  const kept = apply ? obs.filter((o) => common.has(o.unit)) : [...obs];
  return {
    units: common,
    observations: kept,
    common: {
      applied: apply,
      units_per_model: Object.fromEntries([...byModel].sort(([a], [b]) => a.localeCompare(b)).map(([m, s]) => [m, s.size])),
      common_units: common.size,
      dropped: totalWeight(obs) - totalWeight(kept),
    },
  };
}

/**
 * The (model, defense) groups pooled into rows by another field than the defense (`--by attack`, `--by surface`) that
 * are EXPOSURE LOW, named in one warning (red team 25 M2), or null (`pooledExposureLowWarning` of src/stats).
 */
function pooledDefensesExposureLow(obs: readonly Observation[], field: string): string | null {
  const tally = new PooledExposureTally();
  for (const x of obs) tally.add(x.model, x.defense, x.exposed !== false, weightOf(x));
  return pooledExposureLowWarning(`the rates by ${field}`, tally);
}

/**
 * The (model, cell) pairs of every run compared, labelled or not (`model\u0000cell`), on the shared tasks when
 * `units` is given: the utility columns are over the same cells (review 26: a cell whose verdicts all failed for one
 * model left that model's utility run of it out).
 */
function comparedCells(xs: readonly (Observation | UnlabelledItem)[], units: ReadonlySet<string> | null): Set<string> {
  const out = new Set<string>();
  for (const x of xs) if (x.cell !== undefined && (!units || (x.unit !== undefined && units.has(x.unit)))) out.add(`${x.model}\u0000${x.cell}`);
  return out;
}

/** The whole cross-condition analysis. */
export interface CompareResult {
  run?: string;
  source: Observations["source"];
  condition_field: string;
  baseline: string;
  baseline_chosen_by: BaselineChoice;
  n_total: number;
  n_observations: number;
  excluded: Observations["excluded"];
  /** Groups (condition, model, suite, surface) with attacked trajectories but no usable label: named, never silently absent. */
  excluded_groups: Observations["excluded_groups"];
  /**
   * Labelled attacked trajectories left out of `n_observations` to compare like for like: in cells some condition
   * lacks (`cells`). With `--common-tasks`, those on other tasks are `common_tasks.dropped`. Absent when none.
   */
  dropped_like_for_like?: number;
  /**
   * The `--where` filter the run was restricted to before anything else (absent without one): every figure is over
   * the trajectories it kept.
   */
  where?: WhereStatement;
  /**
   * Like-for-like cells (./cells.ts): by default the conditions are compared on the (suite, user task, injection
   * task, attack) cells they all cover, and `cells.cells_dropped` names what each condition lost; `--all-cells`
   * keeps everything (mode `all`, with a warning when the mixes differ).
   */
  cells: CellCheck;
  /**
   * When compared by a field other than the defense (`--by attack`, `--by surface`): per model that ran under more
   * than one condition, the conditions its rows pool (`{}` when none); a warning says so.
   */
  pooled_conditions: Record<string, string[]>;
  common_tasks: CommonTasks;
  /** Things the reader must know (e.g. models run on different task sets). */
  warnings: string[];
  /**
   * The judges behind the labels whose health says the rates are not their judging (`../verdict/rate-caveat.ts`:
   * a broken judge, or labels resting on code); each row's text carries a marker and `warnings` the sentence.
   * Set by the command (absent or empty: none).
   */
  rate_caveats?: RateCaveat[];
  models: string[];
  suites: string[];
  conditions: string[];
  /** Conditions observed per model. */
  conditions_per_model: Record<string, string[]>;
  /**
   * One row per (model, suite, condition) and per (model, `(all)`, condition): `asr_goal`, `asr_behaviour` (each
   * `{count, n, rate, ci95}`), `blocked_attempts`, `coverage`, `coverage_low` (src/stats/rates.ts).
   */
  asr: AsrCell[];
  /**
   * Utility per (model, condition), under attack and without attack, with Wilson intervals (the benchmark's
   * utility check; src/compare/utility.ts); `[]` when the input has no utility verdicts or no index was given.
   */
  utility: UtilityCell[];
  /** Reversals of the ordering by each rate (each row names its `rate`). */
  reversals: ReversalResult[];
  /** The worst condition by each rate. */
  worst_condition: Record<RateName, WorstConditionSummary>;
  leave_one_suite_out: Record<RateName, LosoSummary>;
  /** The model x condition test on each rate's event (full compliance; full or partial compliance). */
  interaction: Record<RateName, InteractionTest>;
  bootstrap: BootstrapSettings;
}

/**
 * Run every part of the cross-condition analysis on a run's observations.
 * @param o from `buildObservations` (one observation per trajectory) or `buildObservationsColumns` (one per
 *   distinct row record and label, with its `weight`): the same result either way.
 * @param opts baseline (see {@link chooseBaseline}), bootstrap B (>= 0; 0 skips the intervals) and seed; `index`
 *   (the run's trajectory index) adds utility beside ASR (the models compared; with `commonTasks`, their
 *   shared tasks only).
 * @throws Error as {@link chooseBaseline}.
 */
export function compareConditions(
  o: Observations,
  opts: {
    baseline?: string;
    bootstrap?: BootstrapSettings;
    run?: string;
    commonTasks?: boolean;
    index?: { values(): Iterable<TrajectoryIndexRow> };
    /** `common` (default): compare conditions on their common cells; `all`: keep every cell (`--all-cells`). */
    cells?: "common" | "all";
    where?: WhereStatement | null;
  } = {},
): CompareResult {
  const boot = opts.bootstrap ?? { B: 2000, seed: 1 };
  // The cells compared are those of every attacked trajectory, labelled or not: an unlabelled one lowers its cell's
  // coverage, so it is kept or dropped with its cell (never left to count against cells that were dropped).
  const cellRes = commonCellFilter<Observation | UnlabelledItem>([...o.observations, ...(o.unlabelled ?? [])], o.condition_field, opts.cells ?? "common");
  const isObs = (x: Observation | UnlabelledItem): x is Observation => "trajectory_id" in x;
  const unlabelled = cellRes.observations.filter((x): x is UnlabelledItem => !isObs(x));
  const labelledKept = cellRes.observations.filter(isObs);
  // labelled ones the like-for-like cells left out: said in the header beside the exclusions (never unsaid)
  const likeDropped = totalWeight(o.observations) - totalWeight(labelledKept);
  const { observations: obs, common, units: sharedUnits } = commonTaskFilter(labelledKept, !!opts.commonTasks, unlabelled);
  const warnings: string[] = [];
  // what each model ran (its tasks, labelled or not, before the like-for-like drop), then what is compared, when the drop
  // changed it (newuser16: "run on 477 tasks" of a model that ran 797, 320 of them dropped)
  const ran = likeDropped > 0 ? commonTaskFilter(o.observations, false, o.unlabelled).common : common;
  const taskList = (c: CommonTasks) => Object.entries(c.units_per_model).map(([m, n]) => `${m} ${n}`).join(", ");
  const differs = (c: CommonTasks) => Object.values(c.units_per_model).some((n) => n !== c.common_units);
  if (!common.applied && (differs(common) || differs(ran))) {
    const compared = ran === common || taskList(ran) === taskList(common) ? "" : `; compared, after the like-for-like drop, on ${taskList(common)} tasks (${common.common_units} shared)`;
    warnings.push(
      `the models were run on different task sets (${taskList(ran)} tasks; ${ran.common_units} shared${compared}): ` +
        `pooled rates mix different tasks; --common-tasks compares on the shared ones only`,
    );
  }
  warnings.push(...cellRes.warnings);
  // Compared by another field than the defense: a model's row pools the defenses it ran under (issue 22: a model
  // under 9 defenses read 7.7% for important_instructions, 20.6% undefended). Said, with the filter that splits it.
  const pooledConditions: Record<string, string[]> = {};
  if (o.condition_field !== "condition") {
    const per = new Map<string, Set<string>>();
    for (const x of obs) if (x.defense !== undefined) (per.get(x.model) ?? per.set(x.model, new Set()).get(x.model)!).add(x.defense);
    for (const [m, d] of [...per].sort(([a], [b]) => (a < b ? -1 : 1))) if (d.size > 1) pooledConditions[m] = [...d].sort();
    const pm = Object.entries(pooledConditions);
    if (pm.length) {
      warnings.push(
        `each model's rates by ${o.condition_field} pool the conditions (defenses) it ran under: ${pm.map(([m, d]) => `${m} ${d.length} (${d.join(", ")})`).join("; ")}; ` +
          `compare one defense at a time with --where condition=<name> (e.g. --where condition=${pm[0][1].includes("no_defense") ? "no_defense" : pm[0][1][0]})`,
      );
      const w = pooledDefensesExposureLow(obs, o.condition_field);
      if (w) warnings.push(w);
    }
  }
  // AgentDojo's denial-of-service attacks: asr_goal is read against a benchmark's checker (the header says so), whose
  // security on them means the user task was not completed (new user 22: captcha_dos read 11% beside security's 38%)
  const byAttack = new Map<string, number>();
  for (const x of obs) if (x.attack !== undefined) byAttack.set(x.attack, (byAttack.get(x.attack) ?? 0) + (x.weight ?? 1));
  const dos = dosAttackWarning(byAttack, totalWeight(obs), (n) =>
    `their asr_goal is the injected instruction carried out, which that checker does not count: their rows, and any pooling them (${n} attacks here), do not compare with it`,
    true,
  );
  if (dos) warnings.push(dos);
  if (obs.length === 0) {
    throw new Error(
      common.common_units === 0
        ? "no task is shared by every model: nothing to compare with --common-tasks"
        : `no labelled trajectory on the ${common.common_units} tasks every model ran: nothing to compare with --common-tasks`,
    );
  }
  const { baseline, chosen_by } = chooseBaseline(obs, opts.baseline, o.condition_field);
  // --common-tasks: the unlabelled runs of the shared tasks stay (they lower their cells' coverage, as without it)
  const commonUnits = common.applied ? sharedUnits : null;
  const cells = asrTable(obs, commonUnits ? unlabelled.filter((u) => u.unit !== undefined && commonUnits.has(u.unit)) : unlabelled);
  for (const c of cells) {
    if (c.suite === ALL_SUITES && c.coverage_low) {
      warnings.push(
        `${c.model} under ${c.condition}: ${coverageText(c)}: its asr_goal and asr_behaviour are flagged coverage_low`,
      );
    }
  }
  // a group whose attacked runs (almost) never met the injected text reads ~0% and ranks safest, for a reason that is
  // not the agent's resistance (new user 23: gemini-2.5-flash under tool_filter, 0/360, every run not_exposed)
  for (const c of cells) {
    if (c.suite === ALL_SUITES && c.exposure_low) warnings.push(`${c.model} under ${c.condition}: ${exposureLowText(c, "exposure low: ")}; the orderings by these rates (reversals, worst ${fieldNoun(o.condition_field)}, leave-one-suite-out) are marked where they are built on it`);
  }
  // one suite's cell can be unexposed where the pooled one is not: its per-suite figures (reversals, leave-one-suite-out) say so
  const pooledLow = lowExposureCells(cells);
  const suiteLow = cells.filter((c) => c.suite !== ALL_SUITES && c.exposure_low && !pooledLow.has(cellId(c.model, c.condition)));
  if (suiteLow.length) {
    warnings.push(
      `exposure low in one suite only (fewer than ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of its labelled attacked runs met the injected text): ` +
        `${suiteLow.map((c) => `${c.model} under ${c.condition} in ${c.suite} (${c.labelled - c.not_exposed}/${c.labelled} exposed)`).join(", ")}; the per-suite figures built on them are marked`,
    );
  }
  const utilityRows = opts.index
    ? utilityRowsOf(opts.index, o.condition_field, new Set(obs.map((x) => x.model)), {
        units: opts.commonTasks ? sharedUnits : null,
        cells: cellRes.cells.applied ? comparedCells(cellRes.observations, common.applied ? sharedUnits : null) : null,
      })
    : null;
  // the utility columns are over their own runs (review 14): the like-for-like check on those runs
  // (by the defense only: another --by field pools the defenses, said above, and its values differ by design)
  if (utilityRows && o.condition_field === "condition") {
    warnings.push(
      ...utilityLikeForLikeWarnings(
        utilityRows.map((r) => ({ model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id, kind: runKind(r), has_utility: typeof r.reference?.utility === "boolean" })),
      ),
    );
  }
  const byRate = <T>(f: (rate: RateName) => T) => Object.fromEntries(RATE_NAMES.map((r) => [r, f(r)])) as Record<RateName, T>;
  const perModel: Record<string, string[]> = {};
  for (const m of [...new Set(obs.map((x) => x.model))].sort()) {
    perModel[m] = [...new Set(obs.filter((x) => x.model === m).map((x) => x.condition))].sort();
  }
  return {
    ...(opts.run ? { run: opts.run } : {}),
    source: o.source,
    condition_field: o.condition_field,
    baseline,
    baseline_chosen_by: chosen_by,
    n_total: o.n_total,
    n_observations: totalWeight(obs),
    excluded: o.excluded,
    excluded_groups: o.excluded_groups ?? [],
    ...(likeDropped > 0 ? { dropped_like_for_like: likeDropped } : {}),
    ...(opts.where ? { where: opts.where } : {}),
    cells: cellRes.cells,
    pooled_conditions: pooledConditions,
    common_tasks: common,
    warnings,
    models: Object.keys(perModel),
    suites: [...new Set(obs.map((x) => x.suite))].sort(),
    conditions: [...new Set(obs.map((x) => x.condition))].sort(),
    conditions_per_model: perModel,
    asr: cells,
    utility: utilityRows ? utilityTable(utilityRows, o.condition_field) : [],
    reversals: RATE_NAMES.flatMap((rate) => reversalAnalysis(obs, cells, boot, rate)),
    worst_condition: byRate((rate) => worstCondition(cells, baseline, boot, rate)),
    leave_one_suite_out: byRate((rate) => leaveOneSuiteOut(obs, baseline, rate)),
    interaction: byRate((rate) =>
      interactionLRT(
        forRate(obs, rate).map((x) => ({ model: x.model, suite: x.suite, injection_task: x.injection_task, condition: x.condition, y: x.compromised, ...(x.weight !== undefined ? { weight: x.weight } : {}) })),
      ),
    ),
    bootstrap: boot,
  };
}

/**
 * The runs of the compared models' utility cells; under attack, restricted to the like-for-like cells compared
 * (`cells`: `model\u0000cell` keys) and, with --common-tasks, to the shared tasks (`units`).
 */
function utilityRowsOf(
  index: { values(): Iterable<TrajectoryIndexRow> },
  field: string,
  models: Set<string>,
  keep: { units: Set<string> | null; cells: Set<string> | null },
): TrajectoryIndexRow[] {
  return [...index.values()].filter((r) => {
    if (!r.agent_model || !models.has(r.agent_model)) return false;
    if (!r.attacked) return true;
    if (keep.cells && !keep.cells.has(`${r.agent_model}\u0000${cellKey({ ...r, suite: r.suite ?? "(none)" }, field) ?? ""}`)) return false;
    return !keep.units || keep.units.has(`${r.suite ?? "(none)"}/${r.user_task_id}/${r.injection_task_id}`);
  });
}

// Undefined figures read `undefined (<why>)` as in every other output (src/format/stat-text.ts).
const pct = (x: number | null | undefined, reason?: string) => pctText(x, reason);
// a difference of two rates, in percentage points (new-user report 16, finding 8: "underestimate 3.6%" read as a percent)
const pp = (x: number | null | undefined, reason?: string) => ppText(x, reason);
const num = (x: number | null | undefined, d = 3) => statText(x, undefined, d);
/**
 * ` [lower, upper]` of an interval; ` [CI undefined: reason]` when it was computed and has no value (every resample
 * undefined, say), so a missing interval is never silent; "" when none was computed (`--bootstrap 0`: the footnote
 * says so).
 */
const ci = (c: { lower: number | null; upper: number | null; reason?: string } | null | undefined, f = pct) =>
  !c ? "" : c.lower !== null && c.upper !== null ? ` [${f(c.lower)}, ${f(c.upper)}]` : ` [CI undefined: ${c.reason ? reasonText(c.reason) : "no value"}]`;

/** ` [coverage_low: a | x, ...]` when a figure uses cells below 80% coverage, else "". */
const lowText = (cells: readonly string[] | undefined, unexposed?: readonly string[]) =>
  (cells?.length ? ` [coverage_low: ${cells.join(", ")}]` : "") + (unexposed?.length ? ` [EXPOSURE LOW: ${unexposed.join(", ")}]` : "");

function pvalue(p: number | null): string {
  if (p === null) return undefinedText(undefined);
  if (p < 1e-4) return p.toExponential(2);
  return p.toFixed(4);
}

/** Plain-text rendering of a {@link CompareResult} (what `ipi-judge compare` prints without --json). */
export function formatCompare(r: CompareResult): string {
  r = shownStrings(r); // names from the run files cannot break or reorder a line (../format/shown.ts)
  const src = r.source.kind === "committee" ? "the committee label" : `judge ${r.source.judge_id}`;
  const ex = Object.entries(r.excluded).map(([k, v]) => `${k} ${v}`).join(", ") || "none";
  // what the like-for-like comparison left out of the labelled ones, in the same sentence as the exclusions
  const left = [
    r.dropped_like_for_like ? `${r.dropped_like_for_like} in cells not every ${r.condition_field} covers (like-for-like, below)` : "",
    r.common_tasks.applied && r.common_tasks.dropped > 0 ? `${r.common_tasks.dropped} on tasks not every model ran (--common-tasks)` : "",
  ].filter(Boolean);
  const lines: string[] = [];
  if (r.where) lines.push(whereLine(r.where, `trajectories of the run: every figure below is over them`));
  lines.push(
    `cross-condition analysis${r.run ? ` of run ${r.run}` : ""} by ${r.condition_field}, labels from ${src}: ` +
      `${r.n_observations} labelled attacked trajectories compared, of ${r.n_total} in the run; excluded: ${ex}` +
      (left.length > 0 ? `; labelled but left out to compare like for like: ${left.join(", ")}` : ""),
  );
  for (const g of r.excluded_groups ?? []) {
    const why = Object.entries(g.excluded).map(([k, v]) => `${k} ${v}`).join(", ");
    lines.push(`${g.field === "agent_model" ? "model" : g.field} ${g.group}: 0 usable labels of ${g.items} attacked trajectories (${why}), left out`);
  }
  lines.push(...formatCellsDropped(r.cells, r.condition_field));
  if (r.common_tasks.applied) lines.push(`--common-tasks: ${r.common_tasks.common_units} tasks shared by every model; ${r.common_tasks.dropped} trajectories on other tasks left out`);
  for (const w of r.warnings) lines.push(`WARNING: ${w}`);
  lines.push(`models ${r.models.length}, suites ${r.suites.length}, ${groupsNoun(r.condition_field)} ${r.conditions.length}; baseline ${r.baseline} (${r.baseline_chosen_by === "option" ? "--baseline" : `default: ${r.baseline_chosen_by}`})`);
  lines.push("");
  const one = fieldNoun(r.condition_field), many = fieldNoun(r.condition_field, 2);
  // the underestimate's reason names the compared field too
  const ppBy = (x: number | null, reason?: string) => (reason === "fewer_than_2_conditions" ? `undefined (fewer than 2 ${many} observed, so no ${one} can be worse than the baseline)` : pp(x, reason));
  lines.push(
    `attack success per model and ${one} (suites pooled; 95% Wilson interval; count/labelled): asr_goal = full compliance ` +
      "(the injected goal carried out: the one to compare with a benchmark's checker), asr_behaviour = full or partial compliance " +
      `(INFUSE's ASR-L); blocked_attempts = ${BLOCKED_MEANS}:`,
  );
  const w = Math.max(5, ...r.models.map((m) => m.length));
  const marker = rateCaveatMarker(r.rate_caveats ?? []);
  for (const m of r.models) {
    for (const c of r.conditions_per_model[m]) {
      const cell = r.asr.find((x) => x.model === m && x.suite === ALL_SUITES && x.condition === c)!;
      const u = r.utility.find((x) => x.model === m && x.condition === c);
      const without = u && u.without_attack.reason !== "no_unattacked_trajectories" && u.without_attack.reason !== "only_injection_task_runs" ? `, without attack (user tasks) ${formatUtilityRate(u.without_attack)}` : "";
      const inj = u && u.excluded.injection_task_runs > 0 ? `; injection-task runs apart ${formatUtilityRate(u.injection_task_runs)}` : "";
      const util = u ? `; utility under attack ${formatUtilityRate(u.under_attack)}${without}${inj}` : "";
      // the row's n is after the like-for-like drop: said on the row whose rate it changed (newuser16)
      const dm = r.cells.cells_dropped[c]?.by_model?.[m];
      const lfl = dm ? `; like for like: ${dm.dropped} of its ${dm.of} attacked runs here left out (header)` : "";
      lines.push(
        `  ${m.padEnd(w)}  ${c.padEnd(28)} asr_goal ${rateFigureText(cell.asr_goal)}, asr_behaviour ${rateFigureText(cell.asr_behaviour)}${marker}; ` +
          `${blockedText(cell)}; ${coverageText(cell)}; ${exposureFigureText(cell)}${cell.exposure_low ? " (see the warning above)" : ""}${lfl}${util}`,
      );
    }
  }
  const noAttack = r.utility.filter((u) => u.condition === "(none)" && u.under_attack.n === 0 && (u.without_attack.rate !== null || u.injection_task_runs.rate !== null));
  for (const u of noAttack) {
    const inj = u.excluded.injection_task_runs > 0 ? `; injection-task runs apart ${formatUtilityRate(u.injection_task_runs)}` : "";
    lines.push(`  ${u.model.padEnd(w)}  ${"(no attack)".padEnd(28)} utility (user tasks) ${formatUtilityRate(u.without_attack)}${inj}`);
  }
  if (r.utility.length) {
    lines.push(
      "  (utility: the benchmark's utility check, 95% Wilson interval; without attack = unattacked runs of the user's own tasks; injection-task runs " +
        "(the injection task run as the user's task) are their own kind, not in it; attack success and utility are read together: defenses trade one for the other)",
    );
  }
  for (const rate of RATE_NAMES) {
    lines.push("");
    lines.push(`safety-ordering reversals between ${many} by ${rate} (model pairs observed under both; paired bootstrap 95% CI):`);
    const overall = r.reversals.filter((x) => x.suite === ALL_SUITES && x.rate === rate);
    if (overall.every((x) => x.pairs === 0)) lines.push(`  no pair of ${many} is observed for two models or more`);
    for (const x of overall) {
      if (x.pairs === 0) continue;
      lines.push(`  ${x.condition_a} vs ${x.condition_b}: ${x.reversals}/${x.pairs} pairs reverse (${pct(x.share)})${ci(x.ci95)}${x.ties ? `, ${x.ties} of the ${x.pairs} tied (counted in the ${x.pairs}, never a reversal)` : ""}${lowText(x.coverage_low, x.exposure_low)}`);
      for (const s of r.reversals.filter((y) => y.rate === rate && y.suite !== ALL_SUITES && y.condition_a === x.condition_a && y.condition_b === x.condition_b)) {
        lines.push(`    ${s.suite}: ${s.reversals}/${s.pairs} (${pct(s.share)})${ci(s.ci95)}${lowText(s.coverage_low, s.exposure_low)}`);
      }
    }
    const none = overall.filter((x) => x.pairs === 0);
    if (none.length && none.length < overall.length) {
      const shown = none.slice(0, 8).map((x) => `${x.condition_a} vs ${x.condition_b}`);
      lines.push(
        `  not compared: ${none.length} of ${overall.length} pairs of ${many}, observed under both for fewer than two models (no_model_pairs): ` +
          `${shown.join(", ")}${none.length > shown.length ? `, ... (all in the JSON's reversals)` : ""}`,
      );
    }
  }
  for (const rate of RATE_NAMES) {
    lines.push("");
    const wc = r.worst_condition[rate];
    lines.push(`worst ${one} by ${rate} vs the baseline ${wc.baseline}:`);
    for (const m of wc.per_model) {
      lines.push(
        `  ${m.model.padEnd(w)}  worst ${m.worst_condition} ${rate} ${pct(m.worst_asr)}, baseline ${pct(m.baseline_asr)}, underestimate ${ppBy(m.underestimate, m.reason)} (${m.conditions} ${fieldNoun(r.condition_field, m.conditions)})` +
          lowText(m.coverage_low, m.exposure_low?.map((c) => `${m.model} | ${c}`)),
      );
    }
    lines.push(
      wc.mean === null
        ? `  underestimate ${ppBy(null, wc.reason)}`
        : `  underestimate over ${wc.n_models} models (percentage points): mean ${pp(wc.mean)}${ci(wc.mean_ci95, pp)}${wc.mean_ci95 && wc.mean_ci95.lower === null ? "" : " (model cluster bootstrap)"}, median ${pp(wc.median)}, max ${pp(wc.max)} (${wc.max_model})` +
            lowText([], wc.per_model.flatMap((m) => (m.underestimate === null ? [] : (m.exposure_low ?? []).map((c) => `${m.model} | ${c}`)))),
    );
  }
  const lowAll = r.asr.filter((c) => c.suite === ALL_SUITES && c.coverage_low).map((c) => `${c.model} | ${c.condition}`);
  const pooledUnexposed = lowExposureCells(r.asr);
  const unexposedAll = r.asr.filter((c) => c.suite === ALL_SUITES && c.exposure_low).map((c) => `${c.model} | ${c.condition}`);
  // the folds select and evaluate on single suites: their unexposed cells too
  const unexposedSuites = r.asr.filter((c) => c.suite !== ALL_SUITES && c.exposure_low && !pooledUnexposed.has(cellId(c.model, c.condition))).map((c) => `${c.model} | ${c.condition} in ${c.suite}`);
  for (const rate of RATE_NAMES) {
    lines.push("");
    const l = r.leave_one_suite_out[rate];
    lines.push(`leave-one-suite-out ${one} selection by ${rate} (${l.n_folds} folds = model x held-out suite; ${l.skipped.length} skipped):`);
    if (l.n_folds > 0) {
      lines.push(
        `  selection accuracy ${pct(l.selection_accuracy)}; realized ${rate} ${pct(l.mean_realized_asr)} vs baseline ${pct(l.mean_baseline_asr)} and oracle ${pct(l.mean_oracle_asr)}`,
      );
      lines.push(
        `  gain over baseline ${pp(l.gain_over_baseline)}, gap to oracle ${pp(l.gap_to_oracle)}, oracle gain recovered ${pct(l.oracle_gain_recovered, l.reason)}`,
      );
      if (lowAll.length) lines.push(`  built on cells with coverage_low (below 80%): ${lowAll.join(", ")}`);
      if (unexposedAll.length || unexposedSuites.length) lines.push(`  built on cells with EXPOSURE LOW (the attack did not arrive): ${[...unexposedAll, ...unexposedSuites].join(", ")}`);
    }
  }
  for (const rate of RATE_NAMES) {
    lines.push("");
    const it = r.interaction[rate];
    lines.push(
      `model x ${one} interaction on ${rate === "asr_goal" ? "full compliance (asr_goal)" : "full or partial compliance (asr_behaviour)"} (logistic regression, main effects model + suite + injection task + ${one}; likelihood-ratio test):`,
    );
    lines.push(
      it.statistic === null
        ? `  not testable (${it.reason})`
        : `  G2 = ${num(it.statistic, 2)}, df = ${it.df}, p = ${pvalue(it.p_value)}  (n = ${it.n}, ${it.patterns} covariate patterns)${it.flags.length ? `; ${it.flags.map(interactionFlagText).join(", ")}` : ""}` +
            (lowAll.length ? `; built on cells with coverage_low: ${lowAll.join(", ")}` : "") +
            // the regression is over every suite's cells: one suite's unexposed cell is in it too (red team 25 L7)
            (unexposedAll.length || unexposedSuites.length ? `; built on cells with EXPOSURE LOW: ${[...unexposedAll, ...unexposedSuites].join(", ")}` : ""),
    );
  }
  lines.push("", intervalsLine(r.bootstrap, r.reversals.find(endsAtPoint)));
  return lines.join("\n");
}

/**
 * Whether a reversal share's bootstrap interval prints a bound equal to the share itself (`pctText`, as the text
 * prints both), away from the ends of the scale: a share of 0.0% whose interval starts at 0.0% (or 100.0% ending at
 * 100.0%) is the scale's floor (ceiling), not the few values a share over few pairs takes.
 */
export function endsAtPoint(x: Pick<ReversalResult, "share" | "ci95">): boolean {
  const share = x.share;
  if (share === null || x.ci95 === null || x.ci95.lower === null || x.ci95.upper === null) return false;
  const printed = pctText(share);
  const at = (b: number | null, end: number) => b !== null && pctText(b) === printed && pctText(end) !== printed;
  return at(x.ci95.lower, 0) || at(x.ci95.upper, 1);
}

/**
 * The footnote that names every interval of `compare`'s text once (issue 26, new-user report: the reversal
 * intervals of a pair of conditions said "paired bootstrap 95% CI" with no B, seed or resampled unit): the
 * bootstrap (B, seed, percentile), what each bootstrap resamples, and the Wilson intervals of the rates; with
 * `atPoint` (a printed reversal share whose interval ends at it, {@link endsAtPoint}), why that can be, on its figures.
 */
export function intervalsLine(boot: BootstrapSettings, atPoint?: Pick<ReversalResult, "reversals" | "pairs" | "share" | "ci95">): string {
  const wilson = "the rates and utility carry 95% Wilson score intervals";
  // new user 24b: `3/6 (50.0%) [0.0%, 50.0%]` read as a fault; a share over few pairs takes few values, so a
  // percentile bound can fall on the point itself. The example is one printed above, its end named.
  let point = "";
  if (atPoint && atPoint.share !== null && atPoint.ci95 && atPoint.ci95.lower !== null && atPoint.ci95.upper !== null) {
    const s = pctText(atPoint.share);
    const upper = pctText(atPoint.ci95.upper) === s && s !== pctText(1);
    point =
      `; a reversal share over few model pairs takes few values, so its percentile interval can end exactly at the share itself ` +
      `(e.g. ${atPoint.reversals}/${atPoint.pairs} (${s}) [${pctText(atPoint.ci95.lower)}, ${pctText(atPoint.ci95.upper)}]: ` +
      `at most 2.5% of the resamples gave ${upper ? "more" : "less"} than ${s}, counting those with a model pair observed under both conditions): not an error`;
  }
  return boot.B > 0
    ? bootstrapLine(
        boot,
        "the 95% CIs of the reversal shares resample the pairing units (a task, suite/user task/injection task, the same for every model and both conditions; " +
          "a trajectory where the run has no task ids), that of the mean underestimate resamples the models (cluster: each with all its trajectories); " +
          wilson +
          point,
      )
    : bootstrapLine(boot, `the reversal shares and the mean underestimate have no interval; ${wilson}`);
}
