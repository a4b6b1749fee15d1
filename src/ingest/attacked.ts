/**
 * The one definition of "attacked" (issue 22, item 9). Every input format (AgentDojo and its variants, chat
 * JSONL, Inspect logs, shell trajectories) goes through {@link normalizeAttack} in `readTrajectories`, so an attack
 * value that means "no attack" (`benign`, `none`, `""`, `null`, ...) means it in every format, and every later
 * stage (verdict `attacked`, the run index, exposure, surfaces, the signature judge) asks {@link isAttacked}.
 * Before this, four copies disagreed: `attack: "benign"` was unattacked in chat JSONL and attacked in an Inspect
 * log, so a denominator depended on the input format.
 */
import type { Trajectory } from "../types.js";
import { NO_DEFENSE } from "./attribution.js";
import type { ItemWarning } from "./warnings.js";

// the one normalization of names (zero-width, bidi controls, other default-ignorable code points, NUL), kept in
// ../format/invisible.ts so the store's readers apply it too (a `--by metadata.<key>` value: ../store/row-field.ts)
export { stripInvisible, ZERO_WIDTH } from "../format/invisible.js";
import { stripInvisible } from "../format/invisible.js";

/**
 * Attack-field values that mean "not attacked", matched on the trimmed value, case-insensitively: the empty
 * string, `none` (AgentDojo's folder name of unattacked runs), Python's `None` and `null`/`nil`, `n/a`/`na`,
 * `no`/`false`, `no_attack` (`no-attack`, `no attack`, `noattack`), `benign`, `clean`, `baseline`.
 */
export const NO_ATTACK_RE = /^(|none|null|nil|n\/?a|no|false|no[_ -]?attack|benign|clean|baseline)$/i;

/** True when an attack value means "no attack": undefined, null, or a string matching {@link NO_ATTACK_RE}. */
export function meansNoAttack(attack: unknown): boolean {
  if (attack === undefined || attack === null) return true;
  return typeof attack === "string" && NO_ATTACK_RE.test(stripInvisible(attack).trim());
}

/**
 * Whether a trajectory is attacked: it records injected content (a non-empty `injections`), or it names an attack
 * (`attack` a string that does not mean "no attack", {@link meansNoAttack}). The one definition, for verdicts
 * (`attacked`), the run index, the exposure floor, surfaces and the signature judge; it gives the same answer on
 * a trajectory before and after {@link normalizeAttack}.
 */
export function isAttacked(t: Partial<Pick<Trajectory, "injections" | "attack">>): boolean {
  if (Object.keys(t.injections ?? {}).length > 0) return true;
  return typeof t.attack === "string" && !meansNoAttack(t.attack);
}

/**
 * Normalize a trajectory's `attack` at ingest, in place: a value that means "no attack" ({@link meansNoAttack}) is
 * removed, so an unattacked run has no `attack` in every format (DESIGN section 3, docs/ARCHITECTURE.md "Trajectory
 * fields from ingest"); a non-empty original value is kept as `metadata.original_attack`. Zero-width and bidi
 * control characters ({@link stripInvisible}) are removed first (the value read kept as `metadata.original_attack`). A non-string `attack` (a
 * library user's record) is left alone. Idempotent.
 */
export function normalizeAttack(t: Trajectory): void {
  if (t.attack === undefined) return;
  const a: unknown = t.attack;
  if (a !== null && typeof a !== "string") return;
  if (typeof a === "string" && stripInvisible(a) !== a && !meansNoAttack(a)) {
    // zero-width / bidi controls removed (red team 2, finding 4); the value read kept
    if (t.metadata?.original_attack === undefined) t.metadata = { ...(t.metadata ?? {}), original_attack: a };
    t.attack = stripInvisible(a);
    return;
  }
  if (!meansNoAttack(a)) return;
  // the value as read is kept: one stripped of invisible characters first (./group-names.ts) keeps its first spelling
  if (typeof a === "string" && a.trim() !== "" && t.metadata?.original_attack === undefined) t.metadata = { ...(t.metadata ?? {}), original_attack: a };
  delete t.attack;
}

/**
 * The one rule for an input that contradicts itself (finding 7): an attack field saying "no attack"
 * ({@link meansNoAttack}: `benign`, `none`, ...) beside recorded injected text (a non-empty `injections`). The run
 * counts as attacked ({@link isAttacked}: recorded injected text decides, in every format), and the contradiction
 * is said by name: warning kind `attack_contradiction`, naming the file, the item (line or sample) and both fields.
 * Reads the attack value before or after {@link normalizeAttack} (`metadata.original_attack`).
 * @param at where the warning points: `scope` (the file it is aggregated under), `item` (`file:line`, a sample),
 *   the input's field names of the attack value and of the injected text.
 * @returns the warning, or undefined when the input does not contradict itself.
 */
export function attackContradiction(
  t: Pick<Trajectory, "injections" | "attack" | "metadata">,
  at: { scope: string; item: string; attackField: string; injectionsField: string },
): ItemWarning | undefined {
  if (Object.keys(t.injections ?? {}).length === 0) return undefined;
  const said: unknown = t.attack !== undefined ? t.attack : t.metadata?.original_attack;
  if (typeof said !== "string" || !meansNoAttack(said)) return undefined;
  return {
    kind: "attack_contradiction",
    scope: at.scope,
    item: at.item,
    message:
      `${at.scope}: "${at.attackField}" says ${JSON.stringify(said)} (no attack) but "${at.injectionsField}" records injected text: the input contradicts itself. ` +
      `These runs are counted as ATTACKED (recorded injected text decides, in every format); if they are control runs, remove the injected text, else give the attack's name`,
  };
}

/**
 * Condition (defense) values that mean "no defense", matched on the trimmed value, case-insensitively: the empty
 * string, `none` (Python's `None` too), `null`/`nil`, `no_defense` (`no-defense`, `no defense`, `nodefense`,
 * `defence` likewise), `undefended`. Only unambiguous spellings: `baseline` (in some papers a baseline *defense*),
 * `n/a`, `no`, `false` and `off` are left as they are (a condition of their own, never guessed as undefended).
 */
export const NO_DEFENSE_RE = /^(|none|null|nil|no[_ -]?defen[cs]e|undefended)$/i;

/** True when a condition value means "no defense" ({@link NO_DEFENSE_RE}); undefined/null (absent) is not. */
export function meansNoDefense(condition: unknown): boolean {
  return typeof condition === "string" && NO_DEFENSE_RE.test(stripInvisible(condition).trim());
}

/**
 * Normalize a trajectory's `condition` at ingest, in place (finding 6): a value that means "no defense"
 * ({@link meansNoDefense}) becomes `no_defense` ({@link NO_DEFENSE}, what AgentDojo's reader names undefended runs),
 * so `"defense": "none"` in chat JSONL or an Inspect log pools with AgentDojo's `no_defense` instead of being a
 * condition of its own; the original value is kept as `metadata.original_condition` (unless an override already
 * recorded the input's value there). Zero-width and bidi control characters ({@link stripInvisible}) are removed
 * first, the value read kept the same way. Every format goes through it in `readTrajectories`. Idempotent.
 */
export function normalizeCondition(t: Trajectory): void {
  const c: unknown = t.condition;
  if (typeof c === "string" && stripInvisible(c) !== c && !meansNoDefense(c)) {
    // zero-width / bidi controls removed (red team 2, finding 4); the value read kept
    if (t.metadata?.original_condition === undefined) t.metadata = { ...(t.metadata ?? {}), original_condition: c };
    t.condition = stripInvisible(c);
    return;
  }
  if (!meansNoDefense(c) || c === NO_DEFENSE) return;
  if (t.metadata?.original_condition === undefined) t.metadata = { ...(t.metadata ?? {}), original_condition: c };
  t.condition = NO_DEFENSE;
}

/** AgentDojo's name of an injection task run as the user's task (`<suite>/injection_task_N/none/none.json`). */
const INJECTION_TASK_ID_RE = /^injection_task_\d+$/;

/**
 * The kind of a run: `attacked` ({@link isAttacked}); `injection_task`, an unattacked run whose user task is one of
 * the benchmark's injection tasks (AgentDojo and AgentDyn's `<suite>/injection_task_N/none/none.json`: the attacker's
 * goal run as the user's own task, to check that it can be done at all); else `user_task` (the user's own task,
 * unattacked). Utility "without attack" counts `user_task` runs only (issue 22, item 4). A run index row, which
 * holds no `injections`, is read by its stored `attacked` flag (computed by {@link isAttacked} when labelled).
 */
export function runKind(
  t: Partial<Pick<Trajectory, "injections" | "attack" | "user_task_id">> & { attacked?: boolean },
): "attacked" | "user_task" | "injection_task" {
  if (typeof t.attacked === "boolean" ? t.attacked : isAttacked(t)) return "attacked";
  return typeof t.user_task_id === "string" && INJECTION_TASK_ID_RE.test(t.user_task_id) ? "injection_task" : "user_task";
}
