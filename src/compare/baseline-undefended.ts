/**
 * Whether `compare`'s baseline condition is an undefended one. Its underestimate (worst condition − baseline) reads as
 * "how much measuring without a defense underestimates the risk" only when the baseline is no defense. On the AgentDojo
 * defense runs no condition with attacked runs is undefended (claude's no_defense runs are unattacked only), so the
 * default baseline was the condition most models ran, repeat_user_prompt, a defense, and "underestimate 0.0 pp" read as
 * if the defenses changed nothing against no defense (new user 33).
 */
import { showControls } from "../format/shown.js";
import { meansNoDefense, runKind } from "../ingest/attacked.js";
import { conditionValue } from "../store/row-field.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";

/**
 * True when a condition's name reads as undefended: the ingest's one rule (`meansNoDefense`, src/ingest/attacked.ts:
 * `no_defense`, `none`, `no-defense`, `nodefense`, `undefended`, ... any case), which makes them `no_defense` when a run
 * is labelled; a run stored before that rule may still hold `none`. `(none)` (no condition recorded) is not.
 */
export function readsUndefended(condition: string): boolean {
  return condition !== "(none)" && condition !== "" && meansNoDefense(condition);
}

/** Names that may mean undefended but are kept as conditions of their own at ingest (docs/input-formats.md "No defense"). */
const AMBIGUOUS = /^(baseline|n\/?a|no|false|off)$/i;

const cut = (a: string[]) => (a.length <= 3 ? a.join(", ") : `${a.slice(0, 3).join(", ")}, ... (${a.length} agent models)`);

/**
 * The note on a default baseline that is not undefended, else null.
 * @param baseline the baseline condition; @param defaulted whether it was chosen by default (not `--baseline`).
 * @param field the compared field (`compare --by`): only `condition` names defenses.
 * @param index the run's index rows, when known: the undefended-named conditions it holds that are not compared
 *   (unattacked runs only, or attacked runs with no usable label) are named.
 * @param compared the compared conditions: one whose name may mean undefended (`baseline`, `off`, ...) is named.
 * @returns null when `--baseline` chose it, the field is not `condition`, or its name reads as undefended; else the
 *   words for the baseline line and `--json`'s `baseline_note`.
 */
export function baselineNote(baseline: string, defaulted: boolean, field: string, index?: Iterable<TrajectoryIndexRow>, compared: readonly string[] = []): string | null {
  if (!defaulted || field !== "condition" || readsUndefended(baseline)) return null;
  const held = new Map<string, { runs: number; attacked: number; models: Set<string> }>();
  for (const r of index ?? []) {
    const c = conditionValue(r, field);
    if (c === undefined || !readsUndefended(c)) continue;
    const e = held.get(c) ?? held.set(c, { runs: 0, attacked: 0, models: new Set() }).get(c)!;
    e.runs++;
    e.models.add(r.agent_model ?? "(none)");
    if (runKind(r) === "attacked") e.attacked++;
  }
  const inRun = [...held]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([c, e]) => `${showControls(c)}: ${e.runs} runs (${cut([...e.models].sort().map(showControls))}), ${e.attacked === 0 ? "none attacked" : `${e.attacked} attacked, none with a usable label here`}`);
  const maybe = compared.filter((c) => AMBIGUOUS.test(c.trim())).map(showControls);
  return (
    `NOT an undefended condition: no compared condition reads as one (no_defense, none, undefended or the like)` +
    (inRun.length ? `; the run's ${inRun.join("; ")}` : "") +
    (maybe.length ? `; ${maybe.join(", ")} may mean undefended (--baseline ${maybe[0]} if so)` : "") +
    `, so the baseline is the defense ${showControls(baseline)} and the underestimate is relative to it, not to no defense; --baseline chooses another`
  );
}

/**
 * The result's baseline fields beside `baseline_chosen_by`: by condition, `baseline_undefended` (whether the
 * baseline's name reads as undefended), and `baseline_note` ({@link baselineNote}) when the default one does not.
 */
export function baselineFields(
  baseline: string,
  chosenBy: string,
  field: string,
  index?: Iterable<TrajectoryIndexRow>,
  compared: readonly string[] = [],
): { baseline_undefended?: boolean; baseline_note?: string } {
  if (field !== "condition") return {};
  const note = baselineNote(baseline, chosenBy !== "option", field, index, compared);
  return { baseline_undefended: readsUndefended(baseline), ...(note ? { baseline_note: note } : {}) };
}
