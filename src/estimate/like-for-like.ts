/**
 * Like for like for `estimate --by` (without `--table`): the groups it prints side by side are compared with the one
 * check `label`, `report` and `estimate --table` use (`likeForLikeWarnings`, src/stats/like-for-like.ts), so the
 * same unlike comparison gets the same words wherever its rates are shown.
 *
 * Which groups are compared follows `--by`:
 * - `agent_model` (or `model`) and `condition`: models under each condition and each model's conditions, as the table;
 * - `agent_model` alone: the models, each pooled over its conditions (as printed); when their conditions differ
 *   that is said first (one model's figure mixes defenses the other never ran);
 * - `condition` alone: the conditions, each pooled over the agent models (as printed), named "all agent models";
 * - `metadata.<key>` counts as a condition (break52 3: `--by metadata.defense` is how a corpus names its defense,
 *   and its groups were compared only within each defense, so no defense-free row pooling 15 attacks beside a
 *   one-attack defense was warned): the condition compared is the values of `condition` and every metadata key given;
 * - any other `--by` field (suite, attack, surface) splits the comparison: models and conditions are compared within
 *   each of its values (groups that differ in that field differ by design), the warning prefixed with the value.
 *
 * Then, whatever `--by` holds, the printed groups are compared on what they pool and `--by` does not split
 * (./group-mix.ts): the agent models when `--by` has no `agent_model` (a defense run on one model beside one pooled
 * over five: new user 33), and the suites when `--by` has none of `agent_model`, `condition` and `suite` (the checks
 * above compare suites when it has `agent_model` or `condition`).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { groupSetMix } from "./group-mix.js";
import { isConditionField } from "./group-cells.js";
import { ALL_MODELS, MODEL_MIX_MARK, conditionMixOf, likeForLikeWarnings, type LikeForLikeItem } from "../stats/like-for-like.js";

/**
 * The like-for-like warnings of the groups `estimate --by` prints side by side (module docstring).
 * @param rows the attacked trajectories of the estimate's domain (after `--where`).
 * @param by the `--by` fields as given.
 * @param groupValue the value of a `--by` field on a row, as the groups are keyed (`(none)` when missing).
 * @returns the warnings: the groups' model (suite) mix first, then by split value in `likeForLikeWarnings`' order;
 *   empty when the groups were measured on the same cells and models (or `--by` is empty).
 */
export function estimateLikeForLike(rows: readonly TrajectoryIndexRow[], by: readonly string[], groupValue: (r: TrajectoryIndexRow, f: string) => string): string[] {
  const byModel = by.some((f) => f === "agent_model" || f === "model");
  // the fields compared as the condition: `condition` and any metadata key (module docstring)
  const conditionFields = by.filter(isConditionField);
  const byCondition = conditionFields.length > 0;
  const mixes = by.length === 0 ? [] : [
    ...(byModel ? [] : [groupSetMix(rows, by, groupValue, "agent_model")]),
    ...(byModel || byCondition || by.includes("suite") ? [] : [groupSetMix(rows, by, groupValue, "suite")]),
  ].filter((w): w is string => w !== null);
  if (!byModel && !byCondition) return mixes;
  const other = by.filter((f) => f !== "agent_model" && f !== "model" && !isConditionField(f));
  const parts = new Map<string, TrajectoryIndexRow[]>();
  for (const r of rows) {
    // keyed by the values (JSON), not the printed `f=v, f=v` text two parts could share (fix50b)
    const k = JSON.stringify(other.map((f) => groupValue(r, f)));
    const p = parts.get(k);
    if (p) p.push(r);
    else parts.set(k, [r]);
  }
  const out: string[] = [];
  for (const k of [...parts.keys()].sort()) {
    const part = parts.get(k)!;
    const vs = JSON.parse(k) as string[];
    const prefix = other.length ? `within ${other.map((f, i) => `${f}=${/[,="]/.test(vs[i]) ? JSON.stringify(vs[i]) : vs[i]}`).join(", ")}: ` : "";
    if (byModel && !byCondition) {
      const w = conditionMix(part, groupValue);
      if (w) out.push(prefix + w);
    }
    // made one at a time as the check reads them (no list of a million items: issue 26)
    const items = function* (): Generator<LikeForLikeItem> {
      for (const r of part) {
        yield {
          model: byModel ? groupValue(r, "agent_model") : ALL_MODELS,
          // pooled over conditions as printed: the models are compared over everything each ran
          condition: byCondition ? conditionFields.map((f) => groupValue(r, f)).join(" / ") : undefined,
          attack: r.attack,
          suite: r.suite,
          user_task_id: r.user_task_id,
          injection_task_id: r.injection_task_id,
        };
      }
    };
    for (const w of likeForLikeWarnings(items())) out.push(prefix + w);
  }
  return [...mixes, ...out];
}


/** Models printed each pooled over its conditions that ran different sets of conditions: the warning, else null. */
function conditionMix(rows: readonly TrajectoryIndexRow[], groupValue: (r: TrajectoryIndexRow, f: string) => string): string | null {
  const conds = new Map<string, Set<string>>();
  for (const r of rows) {
    const m = groupValue(r, "agent_model");
    let s = conds.get(m);
    if (!s) conds.set(m, (s = new Set()));
    s.add(groupValue(r, "condition"));
  }
  const mix = conditionMixOf(conds);
  if (!mix) return null;
  return (
    `agent models ran different conditions (${mix.sets}), each figure pooled over its own, so their ${MODEL_MIX_MARK}; ` +
    `add condition to --by for one figure per model and condition`
  );
}
