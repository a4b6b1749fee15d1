// src/compare/: cross-condition analysis (`ipi-judge compare`): asr_goal and asr_behaviour per agent model, suite and condition,
// safety-ordering reversals, worst-condition risk and the model x condition logistic test.
/**
 * Cross-condition analysis (`ipi-judge compare`): asr_goal and asr_behaviour per (agent model, suite, condition), safety-ordering
 * reversals between conditions, worst-condition risk against a baseline, leave-one-suite-out condition
 * selection, and the logistic-regression test of the model x condition interaction.
 */
import { utilityDrops, utilityDropWarning } from "./utility-drop.js";
import { totalWeight, weightOf, type Observation, type Observations, type UnlabelledItem } from "./data.js";
import {
  ALL_SUITES,
  asrTable,
  forRate,
  lowExposureCells,
  cellId,
  reversalAnalysis,
  worstCondition,
  type AsrCell,
  type BootstrapSettings,
} from "./analysis.js";
import { interactionLRT } from "./logistic.js";
import { leaveOneSuiteOut } from "./loso.js";
import { EXPOSURE_LOW_BELOW, RATE_NAMES, type RateName } from "../stats/rates.js";
import { coverageText, exposureLowText } from "../format/rates-text.js";
import { baselineAbsentReason, unattackedOnlyModels, unattackedOnlyPairs, unattackedOnlyPairWarnings, unattackedOnlyWarnings } from "./unattacked-only.js";
import { showControls } from "../format/shown.js";
import { utilityTable } from "./utility.js";
import { utilityLikeForLikeWarnings, type UtilityRunItem } from "../stats/utility-like-for-like.js";
import { runKind } from "../ingest/attacked.js";
import { dosAttackWarning } from "../agree/dos-attacks.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { WhereStatement } from "../store/where.js";
import { cellKey, commonCellFilter, fieldNoun, POOLED_FIGURES, type CellCheck } from "./cells.js";
import { PooledExposureTally, pooledExposureLowWarning } from "../stats/pooled-exposure.js";
import { baselineTieText, chooseBaseline, commonTaskFilter, type CommonTasks } from "./tasks.js";
import { baselineFields } from "./baseline-undefended.js";
import type { CompareResult, PooledFigures } from "./result.js";
import { rowCoverageWarning, setRowCoverage } from "./row-coverage.js";
import { uniqueWarnings } from "../format/unique-warnings.js";
import { baselineDifferences, defenseFollowsValue, differenceCell, differenceItems } from "./baseline-diff.js";
import { DISPUTED_MEANS, GOAL_SPLIT_MEANS, withDisputedRanges } from "./disputed-range.js";
import { quoted } from "../format/quote-name.js";

export * from "./data.js";
export * from "./cells.js";
export * from "./cells-text.js";
export * from "./analysis.js";
export * from "./logistic.js";
export * from "./utility.js";
export * from "./tasks.js";
export * from "./result.js";
export * from "./format.js";
export * from "./baseline-diff.js";

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

/** The observations of one like-for-like scope (../compare/cells.ts), after `--common-tasks` when given. */
interface Scope {
  /** Its labelled observations before `--common-tasks`. */
  labelled: Observation[];
  /** Its labelled observations compared. */
  obs: Observation[];
  /** Its unlabelled items (on the shared tasks with `--common-tasks`): they lower their cells' coverage. */
  unlabelled: UnlabelledItem[];
  common: CommonTasks;
  units: Set<string>;
}

/** A scope of the observations and unlabelled items a like-for-like filter kept. */
function scopeOf(xs: readonly (Observation | UnlabelledItem)[], commonTasks: boolean): Scope {
  const isObs = (x: Observation | UnlabelledItem): x is Observation => "trajectory_id" in x;
  const unlabelled = xs.filter((x): x is UnlabelledItem => !isObs(x));
  const labelled = xs.filter(isObs);
  const { observations, common, units } = commonTaskFilter(labelled, commonTasks, unlabelled);
  // --common-tasks: the unlabelled runs of the shared tasks stay (they lower their cells' coverage, as without it)
  const un = common.applied ? unlabelled.filter((u) => u.unit !== undefined && units.has(u.unit)) : unlabelled;
  return { labelled, obs: observations, unlabelled: un, common, units };
}

/**
 * Why no labelled trajectory is left to compare, naming the filter that left none: `--common-tasks` when it was
 * given, else the like-for-like cells (new user 41: `compare --by surface` on VIGIL, whose 5 cells shared by both
 * surfaces hold no labelled run, blamed a `--common-tasks` that was not given).
 */
function nothingLeftText(common: CommonTasks, cells: CellCheck, noun: string, field: string): string {
  if (common.applied) {
    return common.common_units === 0
      ? "no task is shared by every model: nothing to compare with --common-tasks"
      : `no labelled trajectory on the ${common.common_units} tasks every model ran: nothing to compare with --common-tasks`;
  }
  const cellNames = `(${cells.cell_fields.join(", ")})`;
  const where = ["condition", "attack", "surface"].includes(field) ? `, or --where ${field}=... keeps the ${noun}s that have labels` : "";
  return cells.applied
    ? `no labelled trajectory on the ${cellNames} cells compared like for like (those common to each model's own ${noun}s: ` +
        `${Object.entries(cells.per_model).map(([m, pm]) => `${showControls(m)} ${pm.common_cells}`).join(", ")}): nothing to compare; ` +
        `--all-cells keeps every cell (the ${noun}s' mixes of tasks then differ)${where}`
    : "no labelled attacked trajectory to compare";
}

/**
 * The warnings about what is compared: the models' task sets (what each ran, then what is compared when the
 * like-for-like drop changed it), the cell filter's own, a model's rows pooling its defenses (`--by` another field),
 * and AgentDojo's denial-of-service attacks.
 */
function headWarnings(o: Observations, own: Scope, likeDropped: number, cellWarnings: readonly string[]): { warnings: string[]; pooledConditions: Record<string, string[]> } {
  const { obs, common } = own;
  const warnings: string[] = [];
  // newuser16: "run on 477 tasks" of a model that ran 797, 320 of them dropped
  const ran = likeDropped > 0 ? commonTaskFilter(o.observations, false, o.unlabelled).common : common;
  const taskList = (c: CommonTasks) => Object.entries(c.units_per_model).map(([m, n]) => `${quoted(m)} ${n}`).join(", ");
  const differs = (c: CommonTasks) => Object.values(c.units_per_model).some((n) => n !== c.common_units);
  if (!common.applied && (differs(common) || differs(ran))) {
    const compared = ran === common || taskList(ran) === taskList(common) ? "" : `; compared, after the like-for-like drop, on ${taskList(common)} tasks (${common.common_units} shared)`;
    warnings.push(
      `the agent models were run on different task sets (${taskList(ran)} tasks; ${ran.common_units} shared${compared}): ` +
        `each model's rates are over its own tasks, so model against model (and any rate pooled over models) mixes different tasks; --common-tasks compares them on the shared ones only`,
    );
  }
  warnings.push(...cellWarnings);
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
  return { warnings, pooledConditions };
}

/** The warnings about the rates of the rows: coverage low, exposure low (pooled over suites, or in one suite only). */
function rateWarnings(cells: readonly AsrCell[], field: string): string[] {
  const warnings: string[] = [];
  for (const c of cells) {
    if (c.suite === ALL_SUITES && c.coverage_low) warnings.push(`${c.model} under ${c.condition}: ${coverageText(c)}: its asr_goal and asr_behaviour are flagged coverage_low`);
  }
  // a group whose attacked runs (almost) never met the injected text reads ~0% and ranks safest, for a reason that is
  // not the agent's resistance (new user 23: gemini-2.5-flash under tool_filter, 0/360, every run not_exposed)
  for (const c of cells) {
    if (c.suite === ALL_SUITES && c.exposure_low) warnings.push(`${c.model} under ${c.condition}: ${exposureLowText(c, "exposure low: ")}; the orderings by these rates (reversals, worst ${fieldNoun(field)}, leave-one-suite-out) are marked where they are built on it`);
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
  return warnings;
}

/** Each model's conditions among the observations, models and conditions sorted. */
function conditionsPerModel(obs: readonly { model: string; condition: string }[]): Record<string, string[]> {
  const per = new Map<string, Set<string>>();
  for (const x of obs) (per.get(x.model) ?? per.set(x.model, new Set()).get(x.model)!).add(x.condition);
  return Object.fromEntries([...per.keys()].sort().map((m) => [m, [...per.get(m)!].sort()]));
}

/**
 * Run every part of the cross-condition analysis on a run's observations. Each model's own figures (rows, utility,
 * worst condition, leave-one-suite-out) are over the cells common to its own conditions; the figures that set models
 * side by side (reversals, interaction test) over the cells every condition covers (./cells.ts, `pooled_figures`).
 * @param o from `buildObservations` (one observation per trajectory) or `buildObservationsColumns` (one per
 *   distinct row record and label, with its `weight`): the same result either way.
 * @param opts baseline (see {@link chooseBaseline}), bootstrap B (>= 0; 0 skips the intervals) and seed; `index`
 *   (the run's trajectory index) adds utility beside ASR (the models compared; with `commonTasks`, their
 *   shared tasks only).
 * @throws Error as {@link chooseBaseline}, or when `commonTasks` leaves nothing to compare.
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
  const own = scopeOf(cellRes.observations, !!opts.commonTasks);
  // the two scopes hold the same items (both keep the input's order): then the pooled figures are the rows' own
  const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  const sameCells = sameItems(cellRes.pooled, cellRes.observations);
  const other = sameCells ? own : scopeOf(cellRes.pooled, !!opts.commonTasks);
  // --common-tasks can make them the same again (a one-condition model's extra cells were tasks others did not run)
  const same = sameCells || (sameItems(other.obs, own.obs) && sameItems(other.unlabelled, own.unlabelled));
  const pooled = same ? own : other;
  const { obs, common } = own;
  const cellCheck = common.applied ? withCommonTasks(cellRes.cells, own) : cellRes.cells;
  // labelled ones the like-for-like cells left out: said in the header beside the exclusions (never unsaid)
  const likeDropped = totalWeight(o.observations) - totalWeight(own.labelled);
  const { warnings, pooledConditions } = headWarnings(o, own, likeDropped, cellRes.warnings);
  if (obs.length === 0) throw new Error(nothingLeftText(common, cellRes.cells, fieldNoun(o.condition_field), o.condition_field));
  if (opts.baseline !== undefined && opts.index && !obs.some((x) => x.condition === opts.baseline)) {
    const why = baselineAbsentReason(opts.index.values(), o.condition_field, opts.baseline);
    if (why) throw new Error(`baseline "${showControls(opts.baseline)}" is not a compared condition: ${why} (conditions compared: ${[...new Set(obs.map((x) => x.condition))].sort().map(showControls).join(", ")})`);
  }
  const { baseline, chosen_by, tie } = chooseBaseline(obs, opts.baseline, o.condition_field);
  if (tie) warnings.push(baselineTieText(tie, fieldNoun(o.condition_field)));
  const unattackedOnly = opts.index ? unattackedOnlyModels(opts.index.values(), o.condition_field, new Set(obs.map((x) => x.model))) : [];
  warnings.push(...unattackedOnlyWarnings(unattackedOnly, o.condition_field));
  const pairsUnattacked = opts.index ? unattackedOnlyPairs(opts.index.values(), o.condition_field, new Set(obs.map((x) => x.model))) : [];
  warnings.push(...unattackedOnlyPairWarnings(pairsUnattacked, o.condition_field));
  const cells = asrTable(obs, own.unlabelled);
  // each row's share of what its model ran under its condition (session 39: rows over 3 of 67 runs beside rows over all)
  const everyRun = [...o.observations, ...(o.unlabelled ?? [])];
  setRowCoverage(cells, everyRun, [...obs, ...own.unlabelled]);
  warnings.push(...rateWarnings(cells, o.condition_field));
  const disputedRows = cells.filter((c) => c.suite === ALL_SUITES && c.disputed?.count).map((c) => `${c.model} | ${c.condition} ${c.disputed!.count}`);
  if (disputedRows.length) warnings.push(`DISPUTED: ${DISPUTED_MEANS}: ${disputedRows.join("; ")}; each row and each difference from the baseline says the range they could move it over (read each way)`);
  const splitRows = cells.filter((c) => c.suite === ALL_SUITES && c.disputed?.goal_split).map((c) => `${c.model} | ${c.condition} ${c.disputed!.goal_split}`);
  if (splitRows.length) warnings.push(`DISPUTED asr_goal: ${GOAL_SPLIT_MEANS}: ${splitRows.join("; ")}; each row and each asr_goal difference from the baseline says the range with them read each way`);
  const rowLow = rowCoverageWarning(cells, o.condition_field, common.applied);
  if (rowLow) warnings.push(rowLow);
  const ownApplied = Object.keys(cellRes.cells.per_model).length > 0;
  // a model whose defense follows from the compared value pairs by the cells the values define (break53 #6)
  const follows = defenseFollowsValue([...o.observations, ...(o.unlabelled ?? [])]);
  const utilityRows = opts.index
    ? utilityRowsOf(opts.index, o.condition_field, new Set(obs.map((x) => x.model)), {
        units: opts.commonTasks ? own.units : null,
        cells: ownApplied ? comparedCells(cellRes.observations, common.applied ? own.units : null) : null,
      })
    : null;
  // the utility columns are over their own runs (review 14): the like-for-like check on those runs
  // (by the defense only: another --by field pools the defenses, said above, and its values differ by design)
  if (utilityRows && o.condition_field === "condition") {
    warnings.push(
      ...utilityLikeForLikeWarnings(utilityItems(utilityRows)),
    );
  }
  const utility = utilityRows ? utilityTable(utilityRows, o.condition_field) : [];
  const drops = utilityDrops(utility, baseline);
  // the rows' population: the compared cells when the per-model check applied, else every run (--all-cells, or no cells known)
  const dropWarning = utilityDropWarning(drops, fieldNoun(o.condition_field), ownApplied ? "compared" : "every_run");
  if (dropWarning) warnings.push(dropWarning);
  const byRate = <T>(f: (rate: RateName) => T) => Object.fromEntries(RATE_NAMES.map((r) => [r, f(r)])) as Record<RateName, T>;
  const perModel = conditionsPerModel(obs);
  const pCells = same ? cells : asrTable(pooled.obs, pooled.unlabelled);
  if (!same) setRowCoverage(pCells, everyRun, [...pooled.obs, ...pooled.unlabelled]);
  const pDropped = totalWeight(o.observations) - totalWeight(other.labelled);
  const pooledFigures: PooledFigures = {
    figures: [...POOLED_FIGURES],
    n_observations: totalWeight(pooled.obs),
    ...(pDropped > 0 ? { dropped_like_for_like: pDropped } : {}),
    ...(other.common.applied ? { common_tasks_dropped: other.common.dropped } : {}),
    same_as_per_model: same,
    single_condition_models: Object.entries(same ? perModel : conditionsPerModel(pooled.obs)).filter(([, c]) => c.length === 1).map(([m]) => m),
    ...(same ? {} : { asr: pCells }),
  };
  return {
    ...(opts.run ? { run: opts.run } : {}),
    source: o.source,
    condition_field: o.condition_field,
    baseline,
    baseline_chosen_by: chosen_by,
    ...baselineFields(baseline, chosen_by, o.condition_field, opts.index?.values(), [...new Set(obs.map((x) => x.condition))]),
    ...(tie ? { baseline_tie: tie } : {}),
    label_coverage: { labelled: totalWeight(o.observations), attacked: totalWeight(o.observations) + totalWeight(o.unlabelled ?? []) },
    n_total: o.n_total,
    n_observations: totalWeight(obs),
    excluded: o.excluded,
    excluded_groups: o.excluded_groups ?? [],
    ...(likeDropped > 0 ? { dropped_like_for_like: likeDropped } : {}),
    ...(opts.where ? { where: opts.where } : {}),
    cells: cellCheck,
    pooled_figures: pooledFigures,
    pooled_conditions: pooledConditions,
    common_tasks: common,
    warnings: uniqueWarnings(warnings),
    models: Object.keys(perModel),
    suites: [...new Set(obs.map((x) => x.suite))].sort(),
    conditions: [...new Set(obs.map((x) => x.condition))].sort(),
    conditions_per_model: perModel,
    asr: cells,
    utility,
    // each condition against the baseline, same model, paired by cell where it can be (./baseline-diff.ts)
    // a model's conditions with attacked runs, labelled or not: one whose baseline runs have no usable label gets its
    // differences as undefined for that reason, not "not run under the baseline" (break42)
    // (the compared models only: one with no usable label anywhere has no row, and excluded_groups names it)
    // with the committee's disputed runs read each way beside each ASR difference that left some out (./disputed-range.ts)
    baseline_differences: withDisputedRanges(baselineDifferences(differenceItems(obs, utilityRows, o.condition_field, follows), conditionsPerModel([...obs, ...own.unlabelled.filter((u) => u.model in perModel)]), baseline, o.condition_field, own.unlabelled, follows), obs, own.unlabelled, (x) => differenceCell(x.cell, follows.has(x.model) ? undefined : x.defense)),
    // no utility verdict anywhere in the run: said, not left as an empty list (new user 34: an Inspect log read without --utility-scorer)
    ...(opts.index && utility.length === 0 ? { utility_reason: "no_utility_in_input" as const } : {}),
    ...(drops.length > 0 ? { utility_drops: drops } : {}),
    ...(unattackedOnly.length > 0 ? { models_unattacked_only: unattackedOnly } : {}),
    ...(pairsUnattacked.length > 0 ? { pairs_unattacked_only: pairsUnattacked } : {}),
    // the figures that set models side by side: over the cells every condition covers (pooled_figures)
    reversals: RATE_NAMES.flatMap((rate) => reversalAnalysis(pooled.obs, pCells, boot, rate)),
    // a model whose own conditions share no cell has no like-for-like worst condition (newuser51)
    worst_condition: byRate((rate) => worstCondition(cells, baseline, boot, rate, apartModels(cellCheck))),
    // a model whose own conditions share no cell: each fold on the cells its conditions share there, or withheld (session 52)
    leave_one_suite_out: byRate((rate) => leaveOneSuiteOut(obs, baseline, rate, apartModels(cellCheck))),
    interaction: byRate((rate) =>
      interactionLRT(
        forRate(pooled.obs, rate).map((x) => ({ model: x.model, suite: x.suite, injection_task: x.injection_task, condition: x.condition, y: x.compromised, ...(x.weight !== undefined ? { weight: x.weight } : {}) })),
      ),
    ),
    bootstrap: boot,
  };
}

/** The models whose own conditions (two or more) share no cell: their rates per condition are over different tasks. */
function apartModels(c: CellCheck): Set<string> {
  return new Set(Object.entries(c.per_model).filter(([, pm]) => pm.contrast && !pm.applied).map(([m]) => m));
}

/**
 * The per-model cell check with what `--common-tasks` then kept of each model's cells (`ModelCells.common_tasks`): its
 * rows are over those, so the header and --json say so (red team 29: "all its 657 attacked trajectories (657 cells)
 * are kept" above rows over 97).
 */
function withCommonTasks(c: CellCheck, own: Scope): CellCheck {
  if (Object.keys(c.per_model).length === 0) return c;
  const tally = new Map<string, { kept: number; cells: Set<string> }>();
  for (const x of [...own.obs, ...own.unlabelled]) {
    let t = tally.get(x.model);
    if (!t) tally.set(x.model, (t = { kept: 0, cells: new Set() }));
    t.kept += x.weight ?? 1;
    if (x.cell !== undefined) t.cells.add(x.cell);
  }
  const per_model = Object.fromEntries(
    Object.entries(c.per_model).map(([m, pm]) => {
      const t = tally.get(m);
      return [m, { ...pm, common_tasks: { kept: t?.kept ?? 0, cells: t?.cells.size ?? 0 } }];
    }),
  );
  return { ...c, per_model };
}

/** The utility runs as `utilityLikeForLikeWarnings` reads them, made one at a time (a million runs: no list of items, issue 26). */
function* utilityItems(rows: Iterable<TrajectoryIndexRow>): Generator<UtilityRunItem> {
  for (const r of rows) {
    yield { model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id, kind: runKind(r), has_utility: typeof r.reference?.utility === "boolean" };
  }
}

/**
 * The runs of the compared models' utility cells; under attack, restricted to the like-for-like cells compared
 * (`cells`: `model\u0000cell` keys) and, with --common-tasks, to the shared tasks (`units`).
 * @returns the index's rows filtered as they are iterated (each iteration reads `index.values()` again), not a list:
 *   at a million runs the lists (the index spread, then filtered) were 2 x 8 MB of references per compared field,
 *   garbage that set the report's peak (issue 26 point 3).
 */
function utilityRowsOf(
  index: { values(): Iterable<TrajectoryIndexRow> },
  field: string,
  models: Set<string>,
  keep: { units: Set<string> | null; cells: Set<string> | null },
): Iterable<TrajectoryIndexRow> {
  const kept = (r: TrajectoryIndexRow) => {
    if (!r.agent_model || !models.has(r.agent_model)) return false;
    if (!r.attacked) return true;
    if (keep.cells && !keep.cells.has(`${r.agent_model}\u0000${cellKey({ ...r, suite: r.suite ?? "(none)" }, field) ?? ""}`)) return false;
    return !keep.units || keep.units.has(`${r.suite ?? "(none)"}/${r.user_task_id}/${r.injection_task_id}`);
  };
  return {
    *[Symbol.iterator]() {
      for (const r of index.values()) if (kept(r)) yield r;
    },
  };
}

