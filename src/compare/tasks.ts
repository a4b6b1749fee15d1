/**
 * The baseline condition of `compare` and the optional restriction to the tasks every agent model ran
 * (`--common-tasks`).
 */
import { totalWeight, weightOf, type Observation, type UnlabelledItem } from "./data.js";
import { showControls } from "../format/shown.js";
import { readsUndefended } from "./baseline-undefended.js";
import { fieldNoun } from "./cells.js";

/** How the baseline condition was chosen (`undefended_name`: a condition whose name reads as no defense, e.g. `none`). */
export type BaselineChoice = "option" | "no_defense" | "undefended_name" | "tool_output" | "most_models";

/**
 * The baseline condition: the given one; else `no_defense` when it is observed (AgentDojo defense runs); else, by
 * condition, another observed condition whose name reads as undefended (`none`, `baseline`: ./baseline-undefended.ts;
 * the first by name); else, grouping by surface (`field` = `surface`), `tool_output` (the data surface) when it is observed;
 * else the condition observed for the most models (ties: the most trajectories, then the first by name; said in `tie`).
 * @throws Error when a given baseline is not among the observed conditions, or there is no observation.
 */
export function chooseBaseline(obs: readonly Observation[], given?: string, field?: string): { baseline: string; chosen_by: BaselineChoice; tie?: BaselineTie } {
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
    // named by the compared field: with --by attack the values are attacks, not conditions
    const f = field ?? "condition";
    if (!conds.has(given)) throw new Error(`baseline "${given}" is not an observed ${fieldNoun(f)} (${fieldNoun(f, 2)}: ${[...conds.keys()].sort().map(showControls).join(", ")})`);
    return { baseline: given, chosen_by: "option" };
  }
  if (conds.has("no_defense")) return { baseline: "no_defense", chosen_by: "no_defense" };
  const undefended = (field === undefined || field === "condition") && [...conds.keys()].filter(readsUndefended).sort()[0];
  if (undefended) return { baseline: undefended, chosen_by: "undefended_name" };
  if (field === "surface" && conds.has("tool_output")) return { baseline: "tool_output", chosen_by: "tool_output" };
  const ranked = [...conds.entries()].sort(([a, x], [b, y]) => y.models.size - x.models.size || y.n - x.n || a.localeCompare(b));
  const best = ranked[0][0];
  // a tie on the rule (new user 37: three defenses each run by one model) is said with how it was broken, never unsaid
  const tied = ranked.filter(([, c]) => c.models.size === ranked[0][1].models.size);
  if (tied.length < 2) return { baseline: best, chosen_by: "most_models" };
  const byName = tied.filter(([, c]) => c.n === ranked[0][1].n).length > 1;
  const tie: BaselineTie = { conditions: tied.map(([c]) => c), models: ranked[0][1].models.size, trajectories: Object.fromEntries(tied.map(([c, x]) => [c, x.n])), broken_by: byName ? "name" : "trajectories" };
  return { baseline: best, chosen_by: "most_models", tie };
}

/**
 * A default baseline (`most_models`) tied with other conditions on the number of models: the tied conditions (the
 * chosen one first), that number, each one's labelled attacked trajectories, and what broke the tie (`trajectories`:
 * the most of them; `name`: equal there too, the first by name).
 */
export interface BaselineTie {
  conditions: string[];
  models: number;
  trajectories: Record<string, number>;
  broken_by: "trajectories" | "name";
}

/** The words for a {@link BaselineTie}: the tie, how it was broken, and that `--baseline` chooses (`one`: "condition", "attack", ...). */
export function baselineTieText(t: BaselineTie, one = "condition"): string {
  const list = t.conditions.map((c) => `${showControls(c)} ${t.trajectories[c]}`).join(", ");
  return (
    `the default baseline rule (the ${one} observed for the most models) is tied: ${t.conditions.length} ${one}s observed for ${t.models} model${t.models === 1 ? "" : "s"} each; ` +
    `broken by ${t.broken_by === "name" ? "name (equal labelled attacked trajectories too)" : "the most labelled attacked trajectories"} (${list}), so ${showControls(t.conditions[0])} is an arbitrary baseline: every underestimate below is relative to it; --baseline chooses one`
  );
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
