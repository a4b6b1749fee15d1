/**
 * One canonical field given twice with different values in one item (red team 40): chat JSONL and Inspect read each
 * of our fields from the first of several keys (`--field` keys, then the common spellings, each at the top level and
 * then in `metadata`: `./chat-jsonl.ts` `FIELD_ALIASES`). Before, a second key holding another value was passed over
 * in silence: `"target_model": "gpt-4o"` beside `"model": "grader-x"` filed the run under the grader's model,
 * `"attack": "none"` beside `"attack_type": "important_instructions"` made an attacked run unattacked, and
 * `"reference": {"security": true}` beside `"attack_success": false` took one of two contradicting benchmark verdicts.
 *
 * Now a text field keeps the first value by the documented order and the item is counted in a warning per file that
 * names every key and value (`field_conflict`); a benchmark verdict (`security`, `utility`) given both ways is left
 * unknown, never guessed (`verdict_conflict`). A field whose value came from a key the user mapped with `--field` is
 * the user's choice: not a conflict. Values equal in meaning are no conflict: the same text once zero-width and bidi
 * controls are removed and trimmed, two spellings of "no defense" (`none`, `no_defense`) or of "no attack".
 */
import { meansNoAttack, meansNoDefense, stripInvisible } from "./attacked.js";
import { readBool } from "./booleans.js";
import type { ItemWarning } from "./warnings.js";

type Json = Record<string, unknown>;

/** A usable value of a field and where it was read (`model`, `metadata.model`, `reference.security`). */
export interface FieldSource {
  key: string;
  value: string | boolean;
}

/**
 * Every usable value of a field over `keys` (in order), each at the top level of the item and then in its
 * `metadata`: a non-empty string or a finite number (text fields; not a number for `run_error`), a value that reads
 * as a boolean without ambiguity (`security`, `utility`: `./booleans.ts` `readBool`).
 */
export function usableValues(r: Json, meta: Json, keys: readonly string[], field: string): FieldSource[] {
  const out: FieldSource[] = [];
  const verdict = field === "security" || field === "utility";
  for (const key of keys)
    for (const [o, at] of [
      [r, key],
      [meta, `metadata.${key}`],
    ] as const) {
      if (!Object.hasOwn(o, key)) continue;
      const v = o[key];
      if (verdict) {
        const b = readBool(v);
        if (b && "value" in b) out.push({ key: at, value: b.value });
      } else if (typeof v === "string" && v !== "") out.push({ key: at, value: v });
      else if (typeof v === "number" && Number.isFinite(v) && field !== "run_error") out.push({ key: at, value: String(v) });
    }
  return out;
}

/** What a value means for the comparison: the text without invisible characters, trimmed; "no defense" / "no attack" as one. */
function meaning(field: string, v: string | boolean): string | boolean {
  if (typeof v === "boolean") return v;
  if (field === "condition" && meansNoDefense(v)) return "\u0000no defense";
  if (field === "attack" && meansNoAttack(v)) return "\u0000no attack";
  return stripInvisible(v).trim();
}

/**
 * The values of `sources` that differ in meaning from the first one, or [] when they all agree (or there is one).
 * @param sources the field's usable values in the order read ({@link usableValues}); the first is the one taken.
 */
export function conflictingValues(field: string, sources: readonly FieldSource[]): FieldSource[] {
  if (sources.length < 2) return [];
  const first = meaning(field, sources[0].value);
  return sources.slice(1).filter((s) => meaning(field, s.value) !== first);
}

const shown = (s: FieldSource): string => `"${s.key}" = ${JSON.stringify(typeof s.value === "string" && s.value.length > 60 ? `${s.value.slice(0, 60)}...` : s.value)}`;

/**
 * The warning for one item whose field is given with different values (aggregated per file, field and keys).
 * @param sources the field's usable values, the one taken first; @param others those that differ from it
 * ({@link conflictingValues}); @param scope the file; @param item `file:line` or the sample named as first example.
 */
export function fieldConflictWarning(field: string, sources: readonly FieldSource[], others: readonly FieldSource[], scope: string, item: string): ItemWarning {
  const keys = [sources[0], ...others].map((s) => s.key);
  const all = [sources[0], ...others].map(shown).join(", ");
  if (field === "security" || field === "utility")
    return {
      kind: "verdict_conflict",
      scope,
      message:
        `${scope}: items giving the benchmark's ${field} verdict twice, true and false (${all}): it is left unknown for them (not guessed; ` +
        `they are left out of every comparison with the benchmark's ${field}); keep one key, or map the right one with --field KEY=${field}`,
      item,
      variant: `${field}:${keys.join(",")}`,
    };
  return {
    kind: "field_conflict",
    scope,
    message:
      `${scope}: items giving ${field} under several keys with different values (${all}): ${shown(sources[0])} is taken, the first in the order read ` +
      `(our own name, then the common spellings; each at the top level, then in metadata); if another key holds it, map that key with --field KEY=${field}`,
    item,
    variant: `${field}:${keys.join(",")}`,
  };
}
