/**
 * The name rule of ingest (`../ingest/group-names.ts`: zero-width, bidi controls, other default-ignorable code points
 * and NUL removed, a `name_normalized` warning naming the field and both spellings) applied to a `metadata.<key>`
 * value used as a group key (`compare --by`, `estimate --by`, the report: `./row-field.ts`). Ingest normalizes the
 * named group fields (model, suite, condition, attack, tasks) but keeps metadata as read, so `--by metadata.defense`
 * split `spotlight\u200b` from `spotlight`: two groups that print alike. Now they are one group, said once per field
 * through the journal warnings (`./skipped-lines.ts`: stderr, and the `--json` warnings of the commands that add them).
 */
import { showInvisibleExactly } from "../format/invisible.js";
import { noteRunLevel } from "./skipped-lines.js";

/** Spellings shown per field before "...". */
const SHOWN = 3;

/** Per field: each spelling read -> the name it was grouped as. */
const seen = new Map<string, Map<string, string>>();

const shown = (v: string) => JSON.stringify(showInvisibleExactly(v));

/**
 * Record that a group value of `field` was read as `raw` and grouped as `clean`; the field's `name_normalized`
 * warning (one per field, naming its first spellings) is said once, again only when a new spelling is met.
 */
export function noteNormalizedGroupValue(field: string, raw: string, clean: string): void {
  let m = seen.get(field);
  if (!m) seen.set(field, (m = new Map()));
  if (m.has(raw)) return;
  m.set(raw, clean);
  const list = [...m].slice(0, SHOWN).map(([r, c]) => `${shown(r)} read as ${shown(c)}`);
  noteRunLevel(
    `name_normalized\u0000${field}`,
    `name_normalized: ${field} ${m.size === 1 ? "value" : `values (${m.size})`} ${list.join(", ")}${m.size > SHOWN ? ", ..." : ""}: ` +
      `invisible or control characters (zero-width, bidi controls, NUL) removed, as ingest does for model, suite, condition and attack names, ` +
      `so ${m.size === 1 ? "it groups" : "they group"} with the same name written without them, not as another group that prints alike (the stored rows are not rewritten)`,
  );
}

/** The fields said to hold an object or array. */
const nonScalar = new Set<string>();

/**
 * Record that a `metadata.<key>` group field holds an object or array on a trajectory (break45: `--by metadata.k`
 * put such trajectories in the `(none)` group of estimate, and compare left them out as having "no value of --by
 * metadata.k", with those that have none, in silence). Said once per field and kind (`group_value_not_scalar`); the
 * trajectory still has no value of the field (no group can be named after an object). The value is not shown: a
 * column read keeps only its kind (./row-projection.ts), and both reads say the same.
 */
export function noteNonScalarGroupValue(field: string, value: object): void {
  const kind = Array.isArray(value) ? "an array" : "an object";
  if (nonScalar.has(`${field}\u0000${kind}`)) return;
  nonScalar.add(`${field}\u0000${kind}`);
  noteRunLevel(
    `group_value_not_scalar\u0000${field}\u0000${kind}`,
    `group_value_not_scalar: ${field} holds ${kind} on some trajectories, not a string or number: ` +
      `such a trajectory counts as having no value of ${field} (estimate --by: the (none) group, beside those without the field; compare --by: left out as without a value), ` +
      `not as a group of its own; to group by a part of it, name that part (--by ${field}.KEY) or map it to a string at ingest (--field)`,
  );
}

/** Forget the spellings met (tests; a long-lived library caller between commands). */
export function clearNormalizedGroupValues(): void {
  seen.clear();
  nonScalar.clear();
}
