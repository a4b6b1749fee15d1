/**
 * The keys of a judge's reply that the parser does not read (`./parse.ts`, `toWireShape`): anything but `label`,
 * `rationale`, `findings` (and a top-level `evidence` read as one finding), in a finding anything but `bucket` (or
 * `label` for it), `evidence`, `explanation`, in a quote anything but `message_index`, `tool_call_index`, `tool_index`,
 * `quote`. Such a key is ignored (it is no part of the label), but never silently (session 53): a judge answering
 * `{"label": "unaffected", "injection_goal_achieved": true}` or a provider that writes quotes under `evidence_quotes`
 * says something the label does not carry. The verdict names them in its notes (`provider_notes`, `judge reply: ...`)
 * and records their names (`Verdict.extra_keys`); judge health counts them (`../verdict/extra-keys-health.ts`).
 */
import { sameReading } from "./case-keys.js";

/** One key not read: where it was (`findings[0].evidence[1]`, "" for the top level), its name, and its value shown short. */
export interface ExtraKey {
  path: string;
  key: string;
  value: string;
  /**
   * The read key this one differs from only by case (`"Label"` beside `"label"`), when the two hold different values:
   * which one did the model mean? The parser refuses the reply as ambiguous, as a key given twice (`./duplicate-keys.ts`,
   * `caseKeyMessage`); `readValue` is the read key's value shown short. Absent otherwise (the same value: no ambiguity).
   */
  caseOf?: string;
  readValue?: string;
}

/** A key name longer than this is cut (a reply can hold any key). */
const NAME_CHARS = 60;
/** A value longer than this is cut in the note. */
const VALUE_CHARS = 40;
/** Keys named in one note; the rest are counted. */
const NOTE_KEYS = 10;
/** Names kept on one verdict (`Verdict.extra_keys`); the rest are counted in the note only. */
export const VERDICT_KEYS = 20;

/** The start of the note of {@link extraKeysNote}. */
export const EXTRA_KEYS_NOTE = "keys not read, ignored (no part of the label): ";

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}...` : s);

/**
 * Add to `out` the keys of `obj` not in `read`, found at `path`.
 * @param path where `obj` lies in the reply ("" for the top level, `findings[0]`, `findings[0].evidence[1]`).
 */
export function collectExtraKeys(obj: Record<string, unknown>, read: readonly string[], path: string, out: ExtraKey[]): void {
  for (const key of Object.keys(obj)) {
    if (read.includes(key)) continue;
    const e: ExtraKey = { path, key, value: preview(obj[key], VALUE_CHARS) };
    // a read key spelled otherwise (case only) beside it, with another value as read (a label canonicalized: rev2b #7):
    // two answers to one question (fixb54)
    const lower = key.toLowerCase();
    const r = read.find((k) => k.toLowerCase() === lower && Object.hasOwn(obj, k));
    if (r !== undefined && !sameReading(r, obj[r], obj[key])) Object.assign(e, { caseOf: r, readValue: preview(obj[r], VALUE_CHARS) });
    out.push(e);
  }
}

/**
 * A parsed JSON value as JSON text, cut after `max` characters (`...`). Written without recursion and only as far as
 * shown: a value 100,000 arrays deep (which `JSON.stringify` overflows the stack on) costs `max` steps.
 */
export function preview(value: unknown, max: number): string {
  let out = "";
  const stack: ({ t: string } | { v: unknown })[] = [{ v: value }];
  while (stack.length > 0 && out.length <= max) {
    const x = stack.pop()!;
    if ("t" in x) {
      out += x.t;
      continue;
    }
    const v = x.v;
    if (Array.isArray(v)) {
      // each item shows at least one character: never more than `max` of them are reached
      out += "[";
      stack.push({ t: v.length > max ? ",...]" : "]" });
      for (let i = Math.min(v.length, max) - 1; i >= 0; i--) {
        stack.push({ v: v[i] });
        if (i > 0) stack.push({ t: "," });
      }
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      out += "{";
      stack.push({ t: keys.length > max ? ",...}" : "}" });
      for (let i = Math.min(keys.length, max) - 1; i >= 0; i--) {
        stack.push({ v: (v as Record<string, unknown>)[keys[i]] });
        stack.push({ t: `${JSON.stringify(keys[i])}:` });
        if (i > 0) stack.push({ t: "," });
      }
    } else out += JSON.stringify(v) ?? String(v);
  }
  return out.length > max || stack.length > 0 ? `${out.slice(0, max)}...` : out;
}

/** A key's name without its indexes, the same for every finding and quote: `confidence`, `findings[].evidence[].source`. */
export function extraKeyName(e: Pick<ExtraKey, "path" | "key">): string {
  const path = e.path.replace(/\[\d+\]/g, "[]");
  const key = cut(e.key, NAME_CHARS);
  return path ? `${path}.${key}` : key;
}

/** The distinct names of {@link extraKeyName}, sorted, at most {@link VERDICT_KEYS}. */
export function extraKeyNames(found: readonly ExtraKey[]): string[] {
  return [...new Set(found.map(extraKeyName))].sort().slice(0, VERDICT_KEYS);
}

/**
 * The parse note naming every key not read, with where and its value (at most {@link NOTE_KEYS}, the rest counted), e.g.
 * `keys not read, ignored (no part of the label): "confidence" = 0.2, findings[0]."severity" = "high"`; "" when none.
 */
export function extraKeysNote(found: readonly ExtraKey[]): string {
  if (found.length === 0) return "";
  const shown = found.slice(0, NOTE_KEYS).map((e) => `${e.path ? `${e.path}.` : ""}${JSON.stringify(cut(e.key, NAME_CHARS))} = ${e.value}`);
  const more = found.length > NOTE_KEYS ? ` and ${found.length - NOTE_KEYS} more` : "";
  return `${EXTRA_KEYS_NOTE}${shown.join(", ")}${more}`;
}

/** Keys named by {@link keysGiven}. */
const GIVEN_KEYS = 10;

/**
 * ` (its keys: "verdict", "rationale"; keys are case-sensitive)`: the top-level keys of a reply that has no `label`, for
 * its parse failure and so its feedback turn (at most {@link GIVEN_KEYS}, each cut); "it is an empty object" for one with no key.
 */
export function keysGiven(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  if (keys.length === 0) return " (it is an empty object)";
  const shown = keys.slice(0, GIVEN_KEYS).map((k) => JSON.stringify(cut(k, NAME_CHARS)));
  return ` (its keys: ${shown.join(", ")}${keys.length > GIVEN_KEYS ? `, and ${keys.length - GIVEN_KEYS} more` : ""}; keys are case-sensitive)`;
}
