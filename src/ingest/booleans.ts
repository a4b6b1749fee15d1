/**
 * Benchmark verdicts (`security`, `utility`) written as strings or numbers instead of booleans (`"false"`, `"yes"`,
 * `1`): read where the meaning is unambiguous, and said (an `ItemWarning` per file) in every case, so that no run is
 * dropped or loses its reference without a word (issue 23).
 */
import { givenValue } from "./schema.js";
import type { ItemWarning } from "./warnings.js";

const TRUE = /^(true|yes|y|t|1|1\.0)$/i;
const FALSE = /^(false|no|n|f|0|0\.0)$/i;

/**
 * A boolean from a verdict field's value.
 * @returns `{value}` for a boolean, 0/1, or a string reading unambiguously as one (`true/false`, `yes/no`, `y/n`,
 *   `t/f`, `1/0`, any case, spaces trimmed); `{ambiguous: text, shown}` for any other string or number (`text` its
 *   string form, cut to 60 characters; `shown` how a message names it: `"maybe"`, `the number 0.5`, or for `1e400`
 *   `a number too large to represent ...`, never as if the input held a string: `./schema.ts` `givenValue`);
 *   `undefined` for null/undefined (absent) and other types.
 */
export function readBool(v: unknown): { value: boolean; coerced: boolean } | { ambiguous: string; shown: string } | undefined {
  if (typeof v === "boolean") return { value: v, coerced: false };
  if (typeof v === "number") return v === 1 ? { value: true, coerced: true } : v === 0 ? { value: false, coerced: true } : { ambiguous: String(v), shown: givenValue(v) };
  if (typeof v === "string") {
    const s = v.trim();
    if (TRUE.test(s)) return { value: true, coerced: true };
    if (FALSE.test(s)) return { value: false, coerced: true };
    return { ambiguous: v.length > 60 ? `${v.slice(0, 60)}...` : v, shown: givenValue(v) };
  }
  return undefined;
}

/**
 * Read `fields` of a record as booleans, in place on a copy: a string or number that reads unambiguously becomes the
 * boolean (warning `boolean_string`), an ambiguous one is removed (warning `boolean_ambiguous`: the verdict is
 * unknown, not guessed).
 * @param scope the file the warning is aggregated under.
 * @returns the (possibly) changed copy and the warnings; the input itself when nothing changed.
 */
export function coerceBooleans<T extends Record<string, unknown>>(r: T, fields: readonly string[], scope: string, item?: string): { record: T; warnings: ItemWarning[] } {
  let out: T = r;
  const warnings: ItemWarning[] = [];
  for (const f of fields) {
    if (!Object.hasOwn(r, f)) continue;
    const b = readBool(r[f]);
    if (b === undefined || ("coerced" in b && !b.coerced)) continue;
    if (out === r) out = { ...r };
    if ("value" in b) {
      (out as Record<string, unknown>)[f] = b.value;
      warnings.push({
        kind: "boolean_string",
        scope,
        message: `${scope}: "${f}" given as ${JSON.stringify(r[f])} (not a boolean): read as ${b.value}`,
        item,
        // each distinct spelling is named ("false", "False" and "0.0" are three warnings), never only the first
        variant: `${f}=${JSON.stringify(r[f])}`,
      });
    } else {
      delete (out as Record<string, unknown>)[f];
      warnings.push({
        kind: "boolean_ambiguous",
        scope,
        message: `${scope}: "${f}" given as ${b.shown}, which does not read as true or false: the benchmark's ${f} verdict is left unknown (not guessed)`,
        item,
        variant: `${f}=${b.shown}`,
      });
    }
  }
  return { record: out, warnings };
}
