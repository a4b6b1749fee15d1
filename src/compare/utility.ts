/**
 * Utility beside ASR (issue 14, "security and utility together"): per (agent model, condition), the share of
 * trajectories whose benchmark utility check passed (`reference.utility`, AgentDojo: the user task was done),
 * under attack (attacked trajectories) and without attack (unattacked runs of the user's own tasks), each with a
 * 95% Wilson interval (Wilson 1927). Defenses trade one for the other, so the two are read together.
 * AgentDojo's injection-task runs (`injection_task_N/none`: the attacker's goal run as the user's task; `runKind`
 * of src/ingest/attacked.ts) are their own kind: not in "without attack" (issue 22, item 4; they put gemini-2.5-flash
 * at 15.5% (9/58) where its user tasks alone give 5.0% (2/40)), counted in `excluded.injection_task_runs` and
 * rated apart (`injection_task_runs`).
 *
 * Trajectories without a boolean `reference.utility` are left out and counted; a cell with none is null with a
 * reason, never 0. Unattacked trajectories that have no value of the condition field (e.g. `--by attack`: an
 * unattacked run has no attack) are in condition `(none)`.
 */
import { wilsonInterval } from "../stats/confusion.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { conditionValue } from "../store/row-field.js";
import { runKind } from "../ingest/attacked.js";
import { undefinedText } from "../format/stat-text.js";

/** A utility rate: passed/n with a Wilson interval, or null with a reason when n = 0. */
export interface UtilityRate {
  rate: number | null;
  reason?: string;
  passed: number;
  n: number;
  /** Trajectories of the cell without a utility verdict (left out of n). */
  missing: number;
  /**
   * Runs of the cell that ended in an agent error (`run_error`, in n when they have a verdict: the benchmark records
   * such a run as failed); said beside the rate (session 50: a row counted them with no note).
   */
  run_errors: number;
  ci95: { lower: number; upper: number; method: "wilson" } | null;
}

/** Utility of one (model, condition). */
export interface UtilityCell {
  model: string;
  condition: string;
  under_attack: UtilityRate;
  /** Unattacked runs of the user's own tasks only. */
  without_attack: UtilityRate;
  /** Unattacked runs of the benchmark's injection tasks as the user's task (their own kind; not in `without_attack`). */
  injection_task_runs: UtilityRate;
  /** Runs of this cell left out of `without_attack`, by kind. */
  excluded: { injection_task_runs: number };
}

/** A cell's runs of one kind, counted as they come: all of them, those with a boolean utility verdict, those that passed. */
interface UtilityCount {
  runs: number;
  n: number;
  passed: number;
  errors: number;
}

function countRun(c: UtilityCount, r: TrajectoryIndexRow): void {
  c.runs++;
  if (r.run_error) c.errors++;
  const u = r.reference?.utility;
  if (typeof u !== "boolean") return;
  c.n++;
  if (u) c.passed++;
}

function rate(c: UtilityCount, none: string): UtilityRate {
  const { n, passed } = c;
  if (n === 0) return { rate: null, reason: c.runs ? "no_utility_in_input" : none, passed, n, missing: c.runs, run_errors: c.errors, ci95: null };
  const ci = wilsonInterval(passed / n, n);
  return { rate: passed / n, passed, n, missing: c.runs - n, run_errors: c.errors, ci95: { lower: ci.lower, upper: ci.upper, method: "wilson" } };
}

/**
 * Utility per (agent model, condition) from the run's trajectory index.
 * @param index trajectory index rows; @param conditionField as `compare --by` (see `conditionValue`).
 * @returns cells sorted by model then condition; `[]` when no trajectory has a utility verdict.
 */
export function utilityTable(index: Iterable<TrajectoryIndexRow>, conditionField: string): UtilityCell[] {
  // counts per cell, not its rows: a million runs are three numbers per cell (issue 26: the report's peak at 1M)
  const zero = (): UtilityCount => ({ runs: 0, n: 0, passed: 0, errors: 0 });
  const groups = new Map<string, { model: string; condition: string; att: UtilityCount; un: UtilityCount; inj: UtilityCount }>();
  let any = false;
  for (const r of index) {
    if (!r.agent_model) continue;
    if (typeof r.reference?.utility === "boolean") any = true;
    const condition = conditionValue(r, conditionField) ?? "(none)";
    const k = `${r.agent_model}\u0000${condition}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { model: r.agent_model, condition, att: zero(), un: zero(), inj: zero() }));
    const kind = runKind(r);
    countRun(kind === "attacked" ? g.att : kind === "injection_task" ? g.inj : g.un, r);
  }
  if (!any) return [];
  return [...groups.values()]
    .sort((a, b) => a.model.localeCompare(b.model) || a.condition.localeCompare(b.condition))
    .map((g) => ({
      model: g.model,
      condition: g.condition,
      under_attack: rate(g.att, "no_attacked_trajectories"),
      without_attack: rate(g.un, g.inj.runs ? "only_injection_task_runs" : "no_unattacked_trajectories"),
      injection_task_runs: rate(g.inj, "no_injection_task_runs"),
      excluded: { injection_task_runs: g.inj.runs },
    }));
}

/**
 * The cells whose "without attack" reads undefined for want of unattacked runs, given the true reason where a filter
 * left them out (`unattacked_outside_where`, `unattacked_outside_sample_population`: `unattackedOutsideRow` of
 * ../agree/where-unattacked.ts), not "no unattacked trajectory" (break53 #3b: the report's utility table said so
 * under `--human`, whose sample population `attacked=true` left out the 97 unattacked runs per model it holds).
 * @param cells {@link utilityTable}'s cells over the filtered runs.
 * @param outside per (model, condition): the reason its unattacked runs are outside the filter, or false.
 * @returns the same cells, those so left out with the reason (a new object; the others as they were).
 */
export function withUtilityOutside(cells: UtilityCell[], outside: (model: string, condition: string) => string | false): UtilityCell[] {
  return cells.map((u) => {
    const why = u.without_attack.n === 0 && u.without_attack.reason === "no_unattacked_trajectories" && outside(u.model, u.condition);
    return why ? { ...u, without_attack: { ...u.without_attack, reason: why } } : u;
  });
}

/**
 * `70.0% [60.1%, 78.3%] n=100`, with `(2 ended in an error)` when some of its runs ended in an agent error, or
 * `undefined (<why>)` in the house wording (`undefinedText`, ../format/stat-text.ts).
 */
export function formatUtilityRate(u: UtilityRate): string {
  if (u.rate === null) return undefinedText(u.reason);
  const p = (x: number) => `${(100 * x).toFixed(1)}%`;
  return `${p(u.rate)} [${p(u.ci95!.lower)}, ${p(u.ci95!.upper)}] n=${u.n}${u.run_errors ? ` (${u.run_errors} ended in an error)` : ""}`;
}
