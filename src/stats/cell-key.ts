/**
 * The like-for-like cell of a trajectory: its (suite, user task, injection task, attack), the unit `compare` pairs
 * conditions on (`../compare/cells.ts`), `estimate --table --like-for-like` builds each model's rows over
 * (`../estimate/table-population.ts`) and the NOT LIKE FOR LIKE check compares (`./like-for-like.ts`). One key for all
 * three, below the stages that use it (estimate may not import compare: test/architecture.test.ts).
 */
import { NO_VALUE } from "./no-value.js";

/** The fields of a cell, in key order. */
export const CELL_FIELDS = ["suite", "user_task_id", "injection_task_id", "attack"] as const;

/** {@link cellFields} per condition field, computed once (the key is built once per trajectory: 1M at the bar). */
const FIELDS_BY_CONDITION = new Map<string, readonly string[]>();

/**
 * The cell fields for a condition field: all of {@link CELL_FIELDS} but the condition field itself; with `surface`,
 * also without `attack` (where the injection enters is set by the attack: VIGIL's `tool_attack` is the schema
 * surface, `important_instructions` the data surface, so two surfaces never share an attack).
 */
export function cellFields(conditionField: string): string[] {
  return CELL_FIELDS.filter((f) => f !== conditionField && !(conditionField === "surface" && f === "attack"));
}

/**
 * The cell key of a trajectory (suite, user_task, injection_task, attack joined by NUL, minus the condition field), or
 * undefined when it has no user task or injection task id (its cell is unknown). A missing suite or attack reads
 * `(none)` ({@link NO_VALUE}).
 * @param conditionField the field whose values are compared (`condition` by default in `compare`; `estimate --table`'s).
 */
export function cellKey(
  r: { suite?: string; user_task_id?: string; injection_task_id?: string; attack?: string },
  conditionField: string,
): string | undefined {
  if (r.user_task_id === undefined || r.injection_task_id === undefined) return undefined;
  let fields = FIELDS_BY_CONDITION.get(conditionField);
  if (!fields) FIELDS_BY_CONDITION.set(conditionField, (fields = cellFields(conditionField)));
  return fields
    .map((f) => (r as Record<string, string | undefined>)[f] ?? NO_VALUE)
    .join("\u0000"); // never "/": suite "s/t" with task "u" was the cell of suite "s" with task "t/u" (red team 36 M2)
}

/** A cell key as the outputs show it: its fields joined with `/` (the key itself joins them with NUL). */
export function cellText(key: string): string {
  return key.split("\u0000").join("/");
}
