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
import { groupNames } from "./groups.js";

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
 * @returns null with fewer than two groups or when every group holds the same set in shares less than
 *   {@link SHARE_TVD_MAX} apart; else one warning holding
 *   {@link GROUP_MIX_MARK} that names each group's set ("gpt-4o only: drift, progent; 5 agent models (...): no_defense")
 *   and the `--where` that keeps what every group shares (or says none is shared), and `--by` to split them.
 */
export function groupSetMix(
  rows: readonly TrajectoryIndexRow[],
  by: readonly string[],
  groupValue: (r: TrajectoryIndexRow, f: string) => string,
  field: "agent_model" | "suite",
): string | null {
  let counts = new Map<string, Map<string, number>>();
  for (const r of rows) {
    // keyed by the values (JSON), not the printed " / " name two groups can share (fix50b); named below
    const g = JSON.stringify(by.map((f) => groupValue(r, f)));
    let s = counts.get(g);
    if (!s) counts.set(g, (s = new Map()));
    const v = groupValue(r, field);
    s.set(v, (s.get(v) ?? 0) + 1);
  }
  if (counts.size < 2) return null;
  // each group under its printed name, unique as estimate's rows name them (`groupNames`)
  const keyed = [...counts].map(([k, c]) => ({ fields: Object.fromEntries(by.map((f, i) => [f, (JSON.parse(k) as string[])[i]])), c }));
  counts = new Map(groupNames(keyed, by).map(([name, g]) => [name, g.c]));
  const bySet = new Map<string, { values: string[]; groups: string[] }>();
  for (const [g, s] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const values = [...s.keys()].sort();
    const k = values.join("\u0000");
    const e = bySet.get(k);
    if (e) e.groups.push(g);
    else bySet.set(k, { values, groups: [g] });
  }
  if (bySet.size < 2) return shareMix(counts, by, field);
  const [plural, singular] = WORDS[field];
  const all = [...counts.values()];
  const shared = [...all[0].keys()].filter((v) => all.every((s) => s.has(v))).sort();
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

/**
 * Two groups whose pooled shares of `field` values differ by at least this total variation distance (half the sum of
 * the absolute differences of the shares) are not like for like: a pooled rate is the share-weighted mean of the
 * values' rates, so shares 10 points apart move it by up to 10% of the spread between the values' rates.
 */
export const SHARE_TVD_MAX = 0.1;

/** A share as the warning writes it: `gpt-4o 80%`. */
const pct = (v: string, n: number, of: number) => `${v} ${((100 * n) / of).toFixed(0)}%`;

/**
 * When every group pools the same set of values (`groupSetMix`'s first check passed), whether two of them pool them
 * in shares at least {@link SHARE_TVD_MAX} apart (the audit: no_defense over five models 1,000 runs each beside a
 * defense run 4,000 times on one of them and 250 on the others held the same set, and nothing was said). Names the
 * pair furthest apart, with their shares; null when none is.
 */
function shareMix(counts: ReadonlyMap<string, ReadonlyMap<string, number>>, by: readonly string[], field: "agent_model" | "suite"): string | null {
  const groups = [...counts.keys()].sort();
  const totals = new Map(groups.map((g) => [g, [...counts.get(g)!.values()].reduce((a, b) => a + b, 0)]));
  const values = [...counts.get(groups[0])!.keys()].sort();
  if (values.length < 2) return null;
  let worst: { a: string; b: string; tvd: number } | null = null;
  for (let i = 0; i < groups.length; i++) {
    for (let j = i + 1; j < groups.length; j++) {
      const [a, b] = [groups[i], groups[j]];
      let d = 0;
      for (const v of values) d += Math.abs(counts.get(a)!.get(v)! / totals.get(a)! - counts.get(b)!.get(v)! / totals.get(b)!);
      if (d / 2 >= SHARE_TVD_MAX && (!worst || d / 2 > worst.tvd)) worst = { a, b, tvd: d / 2 };
    }
  }
  if (!worst) return null;
  const [plural] = WORDS[field];
  const shares = (g: string) => cut(values.map((v) => pct(v, counts.get(g)!.get(v)!, totals.get(g)!)));
  const byText = by.join(",");
  return (
    `the --by ${byText} groups pool the same ${plural} in different shares (${worst.a}: ${shares(worst.a)}; ${worst.b}: ${shares(worst.b)}; ` +
    `${(100 * worst.tvd).toFixed(0)} points of the mix differ), so their ${GROUP_MIX_MARK}: a difference between them may be the ${plural}' shares, not the ${byText}'s; ` +
    `add ${field} to --by for one figure per ${WORDS[field][1]}`
  );
}
