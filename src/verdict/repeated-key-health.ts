/**
 * Judge health's count of replies that gave a JSON key twice with different values (`../judges/duplicate-keys.ts`:
 * the reply says two things, so the parser refuses it as ambiguous and a feedback turn asks again). A conversation
 * whose last reply still repeats a key ends as a `judge_error` of kind {@link REPEATED_KEY}, or, when an earlier
 * reply of it was decided, as that decision with the fault kept (`retry_repeated_key`). Counted apart from the
 * other unparseable replies, with the first items, as `compliance_evidence` is (`./compliance-evidence-health.ts`).
 * A verdict stored before the kind existed (kind `unparseable`, the message naming the repeated key) counts too. A read
 * key beside a spelling of it that differs only by case, with another value (`"label"` and `"Label"`), is the same
 * ambiguity and counts here too (`caseKeyMessage` of ../judges/duplicate-keys.ts, fixb54).
 */
import type { Verdict } from "../types.js";
import { errorKindOf, REPEATED_KEY } from "../store/repeated-key-kind.js";

export { errorKindOf, REPEATED_KEY, REPEATED_KEY_MESSAGE } from "../store/repeated-key-kind.js";

/** Trajectory ids kept (the first met, each once). */
export const REPEATED_KEY_ITEMS = 5;

/** The figures: judge errors and fall-backs to an earlier decided reply, and the first trajectory ids of either. */
export interface RepeatedKeyHealth {
  /** `judge_error` verdicts (no label) whose last reply repeated a key. */
  judge_errors: number;
  /** Labelled verdicts whose last reply repeated a key: the label is the conversation's earlier decided reply. */
  fell_back: number;
  first_items: string[];
}

/** Zero figures. */
export function emptyRepeatedKey(): RepeatedKeyHealth {
  return { judge_errors: 0, fell_back: 0, first_items: [] };
}

/**
 * Count one verdict (in place) when its last reply repeated a key.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addRepeatedKey(h: RepeatedKeyHealth, v: Verdict, trajectoryId?: string): void {
  const kind = errorKindOf(v.error);
  if (kind === REPEATED_KEY && v.status === "judge_error") h.judge_errors++;
  else if (kind === `retry_${REPEATED_KEY}` && v.status === "ok") h.fell_back++;
  else return;
  const id = typeof v.trajectory_id === "string" && v.trajectory_id !== "" ? v.trajectory_id : trajectoryId || undefined;
  if (id !== undefined && h.first_items.length < REPEATED_KEY_ITEMS && !h.first_items.includes(id)) h.first_items.push(id);
}

/** The health line's part ("" when none): the counts and the first items. */
export function formatRepeatedKey(h: RepeatedKeyHealth | undefined): string {
  if (!h || h.judge_errors + h.fell_back === 0) return "";
  const n = h.judge_errors + h.fell_back;
  const parts = [`${h.judge_errors} judge error(s)`, ...(h.fell_back ? [`${h.fell_back} labelled from an earlier reply of the conversation`] : [])];
  const items = h.first_items.length ? `e.g. ${h.first_items.join(", ")}${n > h.first_items.length ? ", ..." : ""}` : "verdicts.jsonl names them";
  return `; ${n} last repl${n === 1 ? "y" : "ies"} gave a JSON key twice with different values (${REPEATED_KEY}: ${parts.join(", ")}; ${items})`;
}
