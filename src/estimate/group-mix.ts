/**
 * Groups that `estimate --by` prints side by side, each pooled over the agent models (or suites) its `--by` fields do
 * not split, compared on which models (suites) each pools. `--by condition` on AgentDyn's defenses put DRIFT, run on
 * gpt-4o only, beside no_defense pooled over five models: "9.0% -> 0.8%" read as DRIFT's effect, while on gpt-4o
 * alone it was 18.3% -> 0.8% (new user 33). The per-model and per-condition check (`likeForLikeWarnings`) cannot see
 * this: with `agent_model` not in `--by` every group is one pooled "model".
 *
 * Every printed group (the `--by` values joined with " / ", as the rows are named) is compared with every other; the
 * warning names each group's set (groups with the same set listed together) and how to narrow to what all share.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { GROUP_MIX_MARK } from "../stats/like-for-like.js";

/** At most this many names of one list are written; the rest are counted. */
const LIST_MAX = 8;

function cut(names: readonly string[]): string {
  return names.length <= LIST_MAX ? names.join(", ") : `${names.slice(0, LIST_MAX).join(", ")}, ... (${names.length - LIST_MAX} more)`;
}

/** The field as the words say it: plural, singular. */
const WORDS = { agent_model: ["agent models", "agent model"], suite: ["suites", "suite"] } as const;

/**
 * The warning when the groups of `--by` pool different sets of `field` values, else null.
 * @param rows the attacked trajectories the groups are over.
 * @param by the `--by` fields (non-empty; `field` not among them, nor its alias).
 * @param groupValue the value of a field on a row as the groups are keyed (`(none)` when missing).
 * @param field what is compared: `agent_model` or `suite`.
 * @returns null with fewer than two groups or when every group holds the same set; else one warning holding
 *   {@link GROUP_MIX_MARK} that names each group's set ("gpt-4o only: drift, progent; 5 agent models (...): no_defense")
 *   and the `--where` that keeps what every group shares (or says none is shared), and `--by` to split them.
 */
export function groupSetMix(
  rows: readonly TrajectoryIndexRow[],
  by: readonly string[],
  groupValue: (r: TrajectoryIndexRow, f: string) => string,
  field: "agent_model" | "suite",
): string | null {
  const sets = new Map<string, Set<string>>();
  for (const r of rows) {
    const g = by.map((f) => groupValue(r, f)).join(" / ");
    let s = sets.get(g);
    if (!s) sets.set(g, (s = new Set()));
    s.add(groupValue(r, field));
  }
  if (sets.size < 2) return null;
  const bySet = new Map<string, { values: string[]; groups: string[] }>();
  for (const [g, s] of [...sets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const values = [...s].sort();
    const k = values.join("\u0000");
    const e = bySet.get(k);
    if (e) e.groups.push(g);
    else bySet.set(k, { values, groups: [g] });
  }
  if (bySet.size < 2) return null;
  const [plural, singular] = WORDS[field];
  const all = [...sets.values()];
  const shared = [...all[0]].filter((v) => all.every((s) => s.has(v))).sort();
  const listed = [...bySet.values()]
    .sort((a, b) => a.values.length - b.values.length || (a.groups[0] < b.groups[0] ? -1 : 1))
    .map((e) => `${e.values.length === 1 ? `${e.values[0]} only` : `${e.values.length} ${plural} (${cut(e.values)})`}: ${cut(e.groups)}`);
  const byText = by.join(",");
  return (
    `the --by ${byText} groups pool different ${plural}, each its own (${listed.join("; ")}), so their ${GROUP_MIX_MARK}: ` +
    `a difference between them may be the ${plural}', not the ${byText}'s; ` +
    (shared.length
      ? `narrow with --where ${field}=${shared.join(",")} (the ${shared.length === 1 ? `${singular} every group holds` : `${plural} every group holds`})`
      : `no ${singular} is held by every group`) +
    `, or add ${field} to --by for one figure per ${singular}`
  );
}
