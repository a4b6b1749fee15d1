/**
 * The result of `compare` (`compareConditions` of ./index.ts), and what its pooled figures are over.
 */
import type { UnattackedOnlyModel, UnattackedOnlyPair } from "./unattacked-only.js";
import type { Observations } from "./data.js";
import type { AsrCell, BootstrapSettings, ReversalResult, WorstConditionSummary } from "./analysis.js";
import type { LosoSummary } from "./loso.js";
import type { InteractionTest } from "./logistic.js";
import type { RateName } from "../stats/rates.js";
import type { RateCaveat } from "../verdict/rate-caveat.js";
import type { UtilityCell } from "./utility.js";
import type { UtilityDrop } from "./utility-drop.js";
import type { WhereStatement } from "../store/where.js";
import type { CellCheck } from "./cells.js";
import type { BaselineDifference } from "./baseline-diff.js";
import type { BaselineChoice, BaselineTie, CommonTasks } from "./tasks.js";

/**
 * What the figures that set models side by side (the reversals and the interaction test: `cells.figures.pooled`) are
 * over: the cells every condition covers, then per model those it has under each of its own conditions
 * (`cells.cells_dropped`), and with `--common-tasks` the tasks every model ran there.
 */
export interface PooledFigures {
  /** The result's keys of these figures. */
  figures: string[];
  /** Labelled attacked trajectories they are over. */
  n_observations: number;
  /** Labelled attacked trajectories left out of them to compare like for like (absent when none). */
  dropped_like_for_like?: number;
  /** With `--common-tasks`: those of the rest on tasks not every model ran there. */
  common_tasks_dropped?: number;
  /** True when they are over the same trajectories as the per-model figures (`asr` is then theirs too). */
  same_as_per_model: boolean;
  /**
   * Models with one condition among them: in the interaction test's main effects only (no model x condition term),
   * in no reversal (a reversal needs a model under both conditions). `[]` when none.
   */
  single_condition_models: string[];
  /**
   * The rates they are built on, as `asr` (every model, suite and condition), when not `same_as_per_model`
   * (absent otherwise: `asr` is theirs).
   */
  asr?: AsrCell[];
}

/** The whole cross-condition analysis. */
export interface CompareResult {
  run?: string;
  source: Observations["source"];
  condition_field: string;
  baseline: string;
  baseline_chosen_by: BaselineChoice;
  /** By condition: whether the baseline's name reads as undefended (no_defense, none, ...: ./baseline-undefended.ts). */
  baseline_undefended?: boolean;
  /**
   * By condition, a default baseline that is not undefended: why (no compared condition is; those the run holds
   * unattacked only), and that the underestimate is then relative to a defense, not to no defense (new user 33).
   */
  baseline_note?: string;
  /** A default baseline tied with other conditions on the number of models: the tie and how it was broken (also a warning; new user 37). */
  baseline_tie?: BaselineTie;
  /**
   * The labels' coverage: attacked trajectories with a model and a value of the compared field (`attacked`), and
   * those with a usable label (`labelled`), before any like-for-like restriction; said on the first line (new user 37).
   */
  label_coverage: { labelled: number; attacked: number };
  n_total: number;
  /**
   * Labelled attacked trajectories in the per-model figures (`asr`, `utility`, `worst_condition`,
   * `leave_one_suite_out`): each model on the cells common to its own conditions (`cells.per_model`).
   */
  n_observations: number;
  excluded: Observations["excluded"];
  /** Groups (condition, model, suite, surface) with attacked trajectories but no usable label: named, never silently absent. */
  excluded_groups: Observations["excluded_groups"];
  /**
   * Labelled attacked trajectories left out of `n_observations` to compare like for like: in cells not every one of
   * their model's own conditions covers (`cells.per_model`). With `--common-tasks`, those on other tasks are
   * `common_tasks.dropped`. Absent when none. The pooled figures' own count is `pooled_figures`.
   */
  dropped_like_for_like?: number;
  /**
   * The `--where` filter the run was restricted to before anything else (absent without one): every figure is over
   * the trajectories it kept.
   */
  where?: WhereStatement;
  /**
   * Like-for-like cells (./cells.ts), in two scopes: each model's own figures on the cells common to its own
   * conditions (`cells.per_model`: what each of its conditions lost); the pooled figures on the cells every condition
   * covers, then per model those it has under each of its own (`cells.common_cells`, `cells.cells_dropped`: what
   * each condition lost); `cells.figures` names the figures of each. `--all-cells` keeps everything (mode `all`,
   * with a warning when the mixes differ).
   */
  cells: CellCheck;
  /** What the figures that set models side by side (`reversals`, `interaction`) are over. */
  pooled_figures: PooledFigures;
  /**
   * When compared by a field other than the defense (`--by attack`, `--by surface`): per model that ran under more
   * than one condition, the conditions its rows pool (`{}` when none); a warning says so.
   */
  pooled_conditions: Record<string, string[]>;
  common_tasks: CommonTasks;
  /** Things the reader must know (e.g. models run on different task sets). */
  warnings: string[];
  /**
   * Information about the run the figures are right despite (the run state's `note: ` lines: a `--limit` pass, inputs
   * that moved), printed `note: ...`; set by the command (absent or empty: none).
   */
  notes?: string[];
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
  /**
   * For each model's condition other than the baseline, on each rate (asr_goal, asr_behaviour, utility under and
   * without attack): the difference condition − baseline with a 95% interval, paired by cell (Newcombe's paired
   * hybrid score interval, exact McNemar p) or said unpaired (./baseline-diff.ts); null with a reason when undefined.
   */
  baseline_differences: BaselineDifference[];
  /** Why `utility` is empty when the run's index was read: no trajectory records a utility verdict. */
  utility_reason?: "no_utility_in_input";
  /** The (model, condition)s whose utility fell to under half the baseline's (`./utility-drop.ts`); absent when none. */
  utility_drops?: UtilityDrop[];
  /** Agent models the run holds with no attacked trajectory: not compared, their utility without attack said (`./unattacked-only.ts`). */
  models_unattacked_only?: UnattackedOnlyModel[];
  /** Compared models with a condition under which they have runs but none attacked: no row there, said (`./unattacked-only.ts`; new user 37). */
  pairs_unattacked_only?: UnattackedOnlyPair[];
  /** Reversals of the ordering by each rate (each row names its `rate`), over `pooled_figures`. */
  reversals: ReversalResult[];
  /** The worst condition by each rate. */
  worst_condition: Record<RateName, WorstConditionSummary>;
  leave_one_suite_out: Record<RateName, LosoSummary>;
  /** The model x condition test on each rate's event (full compliance; full or partial compliance), over `pooled_figures`. */
  interaction: Record<RateName, InteractionTest>;
  bootstrap: BootstrapSettings;
}
