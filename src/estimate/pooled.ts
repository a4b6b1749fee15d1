/**
 * What a group of `ipi-judge estimate` pools that its `--by` fields do not split: several conditions (defenses)
 * or several agent models under one row. Each is a note on the group (text and `--json`), so a row that mixes
 * models or conditions while its neighbours do not never reads as like for like unsaid.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";

/**
 * A group over several conditions (defenses) when `--by` does not split them: the words that say so, else null
 * (no `--by`: the one `(all)` row pools whatever the run holds, said by the header's warnings).
 */
export function pooledConditions(by: readonly string[], rows: readonly TrajectoryIndexRow[]): string | null {
  if (!by.length || by.includes("condition")) return null;
  const conds = [...new Set(rows.map((r) => r.condition).filter((c): c is string => c !== undefined))].sort();
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
  const models = [...new Set(rows.map((r) => r.agent_model).filter((m): m is string => typeof m === "string"))].sort();
  if (models.length === 1 && domainModels > 1) {
    return `one agent model only: ${models[0]} (of the ${domainModels} the groups hold; see the NOT LIKE FOR LIKE warning)`;
  }
  return models.length > 1 ? `pooled over ${models.length} agent models (${models.join(", ")}): add agent_model to --by for one figure per model` : null;
}
