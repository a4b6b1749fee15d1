/**
 * The `(all)` row of the report's calibrated table (new user 45 #7): the pooled calibrated estimate over every
 * attacked trajectory the table's rows hold, exactly as `ipi-judge estimate` prints its `(all)` group (the same
 * estimate report: its `(all)` group of each rate, with its numbers, interval and notes). The report had per-row
 * calibrated cells only (most `undefined` for too few labels) while its warnings spoke of the `(all)` figure.
 *
 * Present only when the report's calibrated estimate is (human labels and a paper table, the estimate not refused),
 * as `estimate` prints `(all)` whenever it prints anything; an asr_goal that `estimate` cannot give reads as it reads
 * there (`undefined (<why>)`).
 */
import type { EstimateReport, GroupEstimate } from "../estimate/run.js";
import { calibratedCell, type CalibratedCell, type PaperTable } from "../estimate/table.js";
import type { RateName } from "../stats/rates.js";

/** One rate of the `(all)` row: estimate's `(all)` group and its cell as the table's calibrated cells read. */
export interface CalibratedAllRate {
  /** The table's rendering of `group.calibrated` (interval withheld when degenerate, `ci_method` when exact). */
  cell: CalibratedCell;
  /** estimate's `(all)` group of the rate (N, labelled, judge, human, calibrated, coverage, notes), as its --json gives it. */
  group: GroupEstimate;
}

/** The `(all)` row: both rates, or why `estimate` gives none for asr_goal; what it pools. */
export interface CalibratedAll {
  /** Attacked trajectories of the estimate's domain (`(all)`'s N) and its labelled ones. */
  n_population: number;
  n_sampled: number;
  asr_behaviour: CalibratedAllRate;
  asr_goal: CalibratedAllRate | { reason: string };
  /** The agent models and conditions of the table's rows with attacked trajectories: what the row pools. */
  agent_models: string[];
  conditions: string[];
}

/** The report's paper table with its `(all)` row (absent without a calibrated estimate). */
export type ReportPaperTable = PaperTable & { calibrated_all?: CalibratedAll };

/** The `(all)` group of one rate's estimate report, or undefined when it has none. */
function allOf(r: EstimateReport): CalibratedAllRate | undefined {
  const g = r.groups.find((x) => x.group === "(all)");
  return g ? { cell: calibratedCell(g), group: g } : undefined;
}

/**
 * The `(all)` row of `calibrated` for the table `t` (module docstring).
 * @param calibrated the report's calibrated estimate (asr_behaviour carrying asr_goal, as `estimateOver` without `rate`).
 * @returns `t` itself with `calibrated_all` set, or `t` unchanged when there is no estimate or no `(all)` group.
 */
export function withCalibratedAll(t: PaperTable, calibrated: EstimateReport | undefined): ReportPaperTable {
  if (!calibrated) return t;
  const behaviour = allOf(calibrated);
  if (!behaviour) return t;
  const g = calibrated.asr_goal;
  const goal = g && "groups" in g ? allOf(g) ?? { reason: "no_asr_goal_estimate" } : { reason: g?.reason ?? "no_asr_goal_estimate" };
  const attacked = t.rows.filter((r) => r.n_attacked > 0);
  const sorted = (xs: string[]) => [...new Set(xs)].sort();
  const all: CalibratedAll = {
    n_population: behaviour.group.n_population,
    n_sampled: behaviour.group.n_sampled,
    asr_behaviour: behaviour,
    asr_goal: goal,
    agent_models: sorted(attacked.map((r) => r.agent_model)),
    conditions: sorted(attacked.map((r) => r.condition).filter((c) => c !== "(all)")),
  };
  return { ...t, calibrated_all: all };
}

/** The rate of a `(all)` row by name, or its reason. */
export function allRate(a: CalibratedAll, rate: RateName): CalibratedAllRate | { reason: string } {
  return rate === "asr_goal" ? a.asr_goal : a.asr_behaviour;
}

/**
 * The `(all)` group's notes of both rates, a note said alike for asr_goal and asr_behaviour given once
 * (`asr_goal and asr_behaviour: ...`), then each rate's own, in estimate's order.
 */
export function calibratedAllNotes(a: CalibratedAll): string[] {
  const goal = "group" in a.asr_goal ? a.asr_goal.group.warnings : [];
  const beh = a.asr_behaviour.group.warnings;
  const out: string[] = [];
  for (const w of goal) out.push(beh.includes(w) ? `asr_goal and asr_behaviour: ${w}` : `asr_goal: ${w}`);
  for (const w of beh) if (!goal.includes(w)) out.push(`asr_behaviour: ${w}`);
  return out;
}
