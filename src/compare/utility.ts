/**
 * Utility beside ASR (issue 14, "security and utility together"): per (agent model, condition), the share of
 * trajectories whose benchmark utility check passed (`reference.utility`, AgentDojo: the user task was done),
 * under attack (attacked trajectories) and without attack (unattacked ones), each with a 95% Wilson interval
 * (Wilson 1927). Defenses trade one for the other, so the two are read together.
 *
 * Trajectories without a boolean `reference.utility` are left out and counted; a cell with none is null with a
 * reason, never 0. Unattacked trajectories that have no value of the condition field (e.g. `--by attack`: an
 * unattacked run has no attack) are in condition `(none)`.
 */
import { wilsonInterval } from "../stats/confusion.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { conditionValue } from "./data.js";

/** A utility rate: passed/n with a Wilson interval, or null with a reason when n = 0. */
export interface UtilityRate {
  rate: number | null;
  reason?: string;
  passed: number;
  n: number;
  /** Trajectories of the cell without a utility verdict (left out of n). */
  missing: number;
  ci95: { lower: number; upper: number; method: "wilson" } | null;
}

/** Utility of one (model, condition). */
export interface UtilityCell {
  model: string;
  condition: string;
  under_attack: UtilityRate;
  without_attack: UtilityRate;
}

function rate(rows: readonly TrajectoryIndexRow[], none: string): UtilityRate {
  const known = rows.filter((r) => typeof r.reference?.utility === "boolean");
  const passed = known.filter((r) => r.reference!.utility === true).length;
  const n = known.length;
  if (n === 0) return { rate: null, reason: rows.length ? "no_utility_in_input" : none, passed, n, missing: rows.length, ci95: null };
  const ci = wilsonInterval(passed / n, n);
  return { rate: passed / n, passed, n, missing: rows.length - n, ci95: { lower: ci.lower, upper: ci.upper, method: "wilson" } };
}

/**
 * Utility per (agent model, condition) from the run's trajectory index.
 * @param index trajectory index rows; @param conditionField as `compare --by` (see `conditionValue`).
 * @returns cells sorted by model then condition; `[]` when no trajectory has a utility verdict.
 */
export function utilityTable(index: Iterable<TrajectoryIndexRow>, conditionField: string): UtilityCell[] {
  const groups = new Map<string, { model: string; condition: string; att: TrajectoryIndexRow[]; un: TrajectoryIndexRow[] }>();
  let any = false;
  for (const r of index) {
    if (!r.agent_model) continue;
    if (typeof r.reference?.utility === "boolean") any = true;
    const condition = conditionValue(r, conditionField) ?? "(none)";
    const k = `${r.agent_model}\u0000${condition}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { model: r.agent_model, condition, att: [], un: [] }));
    (r.attacked ? g.att : g.un).push(r);
  }
  if (!any) return [];
  return [...groups.values()]
    .sort((a, b) => a.model.localeCompare(b.model) || a.condition.localeCompare(b.condition))
    .map((g) => ({
      model: g.model,
      condition: g.condition,
      under_attack: rate(g.att, "no_attacked_trajectories"),
      without_attack: rate(g.un, "no_unattacked_trajectories"),
    }));
}

/** `70.0% [60.1%, 78.3%] n=100`, or `n/a (reason)`. */
export function formatUtilityRate(u: UtilityRate): string {
  if (u.rate === null) return `n/a (${u.reason})`;
  const p = (x: number) => `${(100 * x).toFixed(1)}%`;
  return `${p(u.rate)} [${p(u.ci95!.lower)}, ${p(u.ci95!.upper)}] n=${u.n}`;
}
