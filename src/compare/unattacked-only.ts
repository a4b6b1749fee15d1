/**
 * Agent models a run holds with no attacked trajectory at all (new user 30, L7): `compare` sets attack figures side by
 * side, so such a model has no row; it must not vanish unsaid, and its utility without attack (the one figure it has)
 * is said beside the warning. Also the reason a `--baseline` condition is not compared when the run does hold it.
 */
import { runKind } from "../ingest/attacked.js";
import { showControls } from "../format/shown.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { conditionValue } from "../store/row-field.js";
import { fieldNoun } from "./cells.js";

/** One model with runs and no attacked trajectory: its runs and utility without attack per condition. */
export interface UnattackedOnlyModel {
  model: string;
  runs: number;
  /**
   * Per condition: runs; of the unattacked runs (not AgentDojo's injection-task runs, `injection_task_runs`, left out
   * of utility without attack as in the utility columns) those with a utility verdict (`n`) and those that passed.
   */
  by_condition: Record<string, { runs: number; passed: number; n: number; injection_task_runs: number }>;
}

/**
 * The models of `index` that are not among `compared` and have no attacked trajectory (labelled or not).
 * @param index the run's trajectory index rows; @param field the condition field (`compare --by`).
 * @returns one entry per model, sorted by name; `[]` when none.
 */
export function unattackedOnlyModels(index: Iterable<TrajectoryIndexRow>, field: string, compared: ReadonlySet<string>): UnattackedOnlyModel[] {
  const per = new Map<string, { attacked: boolean; m: UnattackedOnlyModel }>();
  for (const r of index) {
    if (!r.agent_model || compared.has(r.agent_model)) continue;
    let e = per.get(r.agent_model);
    if (!e) per.set(r.agent_model, (e = { attacked: false, m: { model: r.agent_model, runs: 0, by_condition: {} } }));
    const kind = runKind(r);
    if (kind === "attacked") e.attacked = true;
    e.m.runs++;
    const c = conditionValue(r, field) ?? "(none)";
    const b = (e.m.by_condition[c] ??= { runs: 0, passed: 0, n: 0, injection_task_runs: 0 });
    b.runs++;
    if (kind === "injection_task") b.injection_task_runs++;
    else if (typeof r.reference?.utility === "boolean") {
      b.n++;
      if (r.reference.utility) b.passed++;
    }
  }
  return [...per.values()].filter((e) => !e.attacked).map((e) => e.m).sort((a, b) => a.model.localeCompare(b.model));
}

/** The warning for {@link unattackedOnlyModels}' entries, one line per model, by `field` (the compared field, `compare --by`). */
export function unattackedOnlyWarnings(models: readonly UnattackedOnlyModel[], field = "condition"): string[] {
  return models.map((m) => {
    const parts = Object.entries(m.by_condition)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, b]) => {
        const inj = b.injection_task_runs > 0 ? ` (${b.injection_task_runs} injection-task runs left out)` : "";
        return `${showControls(c)} ${b.n > 0 ? `${((100 * b.passed) / b.n).toFixed(1)}% (${b.passed}/${b.n})` : `undefined (no utility verdict in its ${b.runs - b.injection_task_runs} unattacked runs)`}${inj}`;
      });
    return `agent model ${showControls(m.model)}: ${m.runs} runs, none attacked: not compared (compare sets attack figures side by side); its utility without attack by ${field}: ${parts.join(", ")}`;
  });
}

/** A compared model with runs under a condition but no attacked one there: its runs and utility without attack. */
export interface UnattackedOnlyPair {
  model: string;
  condition: string;
  runs: number;
  /** As {@link UnattackedOnlyModel.by_condition}'s entries: unattacked runs with a utility verdict, passed, injection-task runs. */
  passed: number;
  n: number;
  injection_task_runs: number;
}

/**
 * The (model, condition) pairs of the compared models (`compared`) with runs and no attacked trajectory (labelled or
 * not): the model has attack rows under its other conditions, none under these, so its lines count fewer conditions
 * and the reversals fewer model pairs (new user 37: gpt-5-mini under tool_filter, 4 unattacked runs, vanished).
 * @returns sorted by model then condition; `[]` when none.
 */
export function unattackedOnlyPairs(index: Iterable<TrajectoryIndexRow>, field: string, compared: ReadonlySet<string>): UnattackedOnlyPair[] {
  const per = new Map<string, { attacked: boolean; p: UnattackedOnlyPair }>();
  for (const r of index) {
    if (!r.agent_model || !compared.has(r.agent_model)) continue;
    const c = conditionValue(r, field);
    if (c === undefined) continue; // no value of the field: counted apart (no_condition)
    const k = `${r.agent_model}\u0000${c}`;
    let e = per.get(k);
    if (!e) per.set(k, (e = { attacked: false, p: { model: r.agent_model, condition: c, runs: 0, passed: 0, n: 0, injection_task_runs: 0 } }));
    const kind = runKind(r);
    e.p.runs++;
    if (kind === "attacked") e.attacked = true;
    else if (kind === "injection_task") e.p.injection_task_runs++;
    else if (typeof r.reference?.utility === "boolean") {
      e.p.n++;
      if (r.reference.utility) e.p.passed++;
    }
  }
  return [...per.values()].filter((e) => !e.attacked).map((e) => e.p).sort((a, b) => a.model.localeCompare(b.model) || a.condition.localeCompare(b.condition));
}

/** The warning for {@link unattackedOnlyPairs}' entries, one line per pair (`field`: the compared field). */
export function unattackedOnlyPairWarnings(pairs: readonly UnattackedOnlyPair[], field = "condition"): string[] {
  return pairs.map((p) => {
    const u = p.n > 0 ? `${((100 * p.passed) / p.n).toFixed(1)}% (${p.passed}/${p.n})` : `undefined (no utility verdict in its ${p.runs - p.injection_task_runs} unattacked runs)`;
    const inj = p.injection_task_runs > 0 ? ` (${p.injection_task_runs} injection-task runs left out)` : "";
    return (
      `${showControls(p.model)} under ${fieldNoun(field)} ${showControls(p.condition)}: ${p.runs} runs, none attacked: no row there (compare sets attack figures side by side), ` +
      `so its lines count its other ${fieldNoun(field, 2)} only and the reversals leave it out of every pair with ${showControls(p.condition)}; its utility without attack there: ${u}${inj}`
    );
  });
}

/**
 * Why a given `--baseline` is not among the compared conditions when the run holds it (only unattacked runs, or
 * attacked runs without a label or of models not compared), or `undefined` when the run does not hold it at all.
 */
export function baselineAbsentReason(index: Iterable<TrajectoryIndexRow>, field: string, baseline: string): string | undefined {
  let unattacked = 0;
  let attacked = 0;
  for (const r of index) {
    if ((conditionValue(r, field) ?? "(none)") !== baseline) continue;
    if (runKind(r) === "attacked") attacked++;
    else unattacked++;
  }
  if (unattacked + attacked === 0) return undefined;
  return `the run holds ${unattacked + attacked} runs under it (${unattacked} unattacked, ${attacked} attacked), none an attacked trajectory with a label compared here: compare needs attacked trajectories under the baseline`;
}
