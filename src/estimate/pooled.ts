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
 * others on one: that row's rate is a mix of models, its neighbours' are not.
 */
export function pooledModels(by: readonly string[], rows: readonly TrajectoryIndexRow[]): string | null {
  if (!by.length || by.includes("agent_model") || by.includes("model")) return null;
  const models = [...new Set(rows.map((r) => r.agent_model).filter((m): m is string => typeof m === "string"))].sort();
  return models.length > 1 ? `pooled over ${models.length} agent models (${models.join(", ")}): add agent_model to --by for one figure per model` : null;
}
