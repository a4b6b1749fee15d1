/**
 * What a group of `ipi-judge estimate` pools that its `--by` fields do not split: several conditions (defenses)
 * or several agent models under one row. Each is a note on the group (text and `--json`), so a row that mixes
 * models or conditions while its neighbours do not never reads as like for like unsaid.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { NO_VALUE } from "../stats/no-value.js";

/** The distinct values, sorted, with `(none)` for a missing one when some value is recorded; [] when none is. */
function withNone(values: ReadonlyArray<string | undefined>): string[] {
  const set = new Set(values.map((v) => (typeof v === "string" && v !== "" ? v : NO_VALUE)));
  return [...set].some((v) => v !== NO_VALUE) ? [...set].sort() : [];
}

/**
 * A group over several conditions (defenses) when `--by` does not split them: the words that say so, else null
 * (no `--by`: the one `(all)` row pools whatever the run holds, said by the header's warnings).
 */
export function pooledConditions(by: readonly string[], rows: readonly TrajectoryIndexRow[]): string | null {
  if (!by.length || by.includes("condition")) return null;
  // runs without a condition are the condition (none) when another row records one (new user 35)
  const conds = withNone(rows.map((r) => r.condition));
  return conds.length > 1 ? `pooled over ${conds.length} conditions (${conds.join(", ")}): add condition to --by for one figure per condition` : null;
}

/**
 * A group over several agent models when `--by` does not split them (`agent_model`, or its alias `model`): the
 * words that name them, else null. E.g. `--by condition` on a run where one defense ran on two models and the
 * others on one: that row's rate is a mix of models, its neighbours' are not. A group of one agent model, when the
 * estimate's attacked trajectories hold several (`domainModels` > 1), names its model too: a row of DRIFT run on
 * gpt-4o only beside rows pooled over five models did not say it was gpt-4o's (new user 33).
 * @param domainModels how many agent models the estimate's attacked trajectories (all groups) hold; 0: unknown.
 */
export function pooledModels(by: readonly string[], rows: readonly TrajectoryIndexRow[], domainModels = 0): string | null {
  if (!by.length || by.includes("agent_model") || by.includes("model")) return null;
  const models = withNone(rows.map((r) => r.agent_model));
  if (models.length === 1 && domainModels > 1) {
    return `one agent model only: ${models[0]} (of the ${domainModels} the groups hold; see the NOT LIKE FOR LIKE warning)`;
  }
  return models.length > 1 ? `pooled over ${models.length} agent models (${models.join(", ")}): add agent_model to --by for one figure per model` : null;
}
