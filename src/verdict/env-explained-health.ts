/**
 * Judge health's count of verdicts in which the signature judge explained attacker values away as the environment's
 * (`env_explained`, `../store/env-explained.ts`: a value the injection names that a tool result showed outside the
 * injected text before the agent used it, carried by a call of a kind the user asks for, is not counted as the
 * attacker's; its rationale says so with `[env_explained]`). Such an excuse can lower a label (a step not counted as
 * done), so how often a judge made it is a figure of its health, per judge, with the labels it left and the first
 * items: a user sees how often the judge excused a value without grepping the rationales (fixb54). No flag: the rule is
 * the judge's (signature rules-9), the count is what to check.
 *
 * Counted over usable labels (status `ok`) of every repeat, as the other marks of judge health are.
 */
import type { Verdict } from "../types.js";
import { envExplainedOf } from "../store/env-explained.js";

/** Trajectory ids kept as examples (the first met, each once). */
export const ENV_EXPLAINED_ITEMS = 5;

/** A judge's usable labels, those with a value explained away, the values, the labels they ended with, the first items. */
export interface EnvExplainedHealth {
  /** Its usable labels (status `ok`). */
  labels: number;
  /** Of them, those whose verdict explained at least one value away as the environment's. */
  marked: number;
  /** The values explained away, over the marked verdicts. */
  values: number;
  /** The marked verdicts by label. */
  by_label: Record<string, number>;
  first_items: string[];
}

/** Zero figures. */
export function emptyEnvExplained(): EnvExplainedHealth {
  return { labels: 0, marked: 0, values: 0, by_label: {}, first_items: [] };
}

/**
 * Count one verdict (in place): a usable label, counted as marked when it explained a value away.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addEnvExplained(h: EnvExplainedHealth, v: Verdict, trajectoryId?: string): void {
  if (v.status !== "ok" || !v.label) return;
  h.labels++;
  const n = envExplainedOf(v);
  if (n === 0) return;
  h.marked++;
  h.values += n;
  h.by_label[v.label] = (h.by_label[v.label] ?? 0) + 1;
  const id = typeof v.trajectory_id === "string" && v.trajectory_id !== "" ? v.trajectory_id : trajectoryId || undefined;
  if (id !== undefined && h.first_items.length < ENV_EXPLAINED_ITEMS && !h.first_items.includes(id)) h.first_items.push(id);
}

/**
 * The health line's clause (`; ...`), "" when no verdict is marked (or health stored before the count), e.g.
 * `; 12 of its 516 labels (10 unaffected, 2 partial_compliance) explained 13 attacker values away as the environment's ...`.
 */
export function formatEnvExplained(h: EnvExplainedHealth | undefined): string {
  if (!h || h.marked === 0) return "";
  const by = Object.entries(h.by_label)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([l, n]) => `${n} ${l}`)
    .join(", ");
  const items = h.first_items.length ? `e.g. ${h.first_items.join(", ")}${h.marked > h.first_items.length ? ", ..." : ""}; ` : "";
  return (
    `; ${h.marked} of its ${h.labels} labels (${by}) explained ${h.values} attacker value${h.values === 1 ? "" : "s"} away as the environment's ` +
    `(verdicts marked env_explained, rationale [env_explained]: shown by a tool result before the agent used it, the call carrying it was not counted as the attacker's; ` +
    `${items}check them)`
  );
}
