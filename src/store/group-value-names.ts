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

/** Forget the spellings met (tests; a long-lived library caller between commands). */
export function clearNormalizedGroupValues(): void {
  seen.clear();
}
