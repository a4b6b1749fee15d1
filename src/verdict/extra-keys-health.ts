/**
 * A judge's replies' keys that the parser does not read, over its verdicts (session 53: `"confidence": 0.2`,
 * `"injection_goal_achieved": true` or quotes under `"evidence_quotes"` were dropped with no word): how many verdicts
 * held any, and each key's name with the number of verdicts that held it, from each verdict's `extra_keys`
 * (`../judges/extra-keys.ts`). Of every repeat, as the other counts of judge health. No flag and no mark on its rates:
 * the label stands on the keys that were read. Said in the health line (`formatHealth`: one clause, so one line of
 * `label`'s summary; committee, agree), in `--json` and summary.json (`health.extra_keys`) and on the report page.
 */
import type { Verdict } from "../types.js";

/** Distinct key names kept per judge; verdicts' keys beyond them are counted in `other_keys`. */
export const EXTRA_KEY_NAMES = 20;

/** A judge's figures (module docstring); a list, not a map: a key name is the judge's text (`__proto__` among them). */
export interface ExtraKeysHealth {
  /** Verdicts with at least one key not read. */
  verdicts: number;
  /** Each key's name and the verdicts that held it, most verdicts first (then by name), at most {@link EXTRA_KEY_NAMES}. */
  keys: { key: string; verdicts: number }[];
  /** Keys held by verdicts beyond the names kept (one per verdict and name). */
  other_keys: number;
}

/** A verdict's `extra_keys` when well formed (strings), else [] (a hand-edited line counts as none). */
function keysOf(v: Verdict): string[] {
  const k = (v as { extra_keys?: unknown }).extra_keys;
  return Array.isArray(k) ? [...new Set(k.filter((x): x is string => typeof x === "string" && x !== ""))] : [];
}

/**
 * Count one verdict's keys not read into a judge's figures.
 * @returns the new figures (undefined stays undefined when the verdict held none).
 */
export function addExtraKeys(h: ExtraKeysHealth | undefined, v: Verdict): ExtraKeysHealth | undefined {
  const keys = keysOf(v);
  if (keys.length === 0) return h;
  const out: ExtraKeysHealth = { verdicts: (h?.verdicts ?? 0) + 1, keys: (h?.keys ?? []).map((k) => ({ ...k })), other_keys: h?.other_keys ?? 0 };
  for (const key of keys) {
    const e = out.keys.find((k) => k.key === key);
    if (e) e.verdicts++;
    else if (out.keys.length < EXTRA_KEY_NAMES) out.keys.push({ key, verdicts: 1 });
    else out.other_keys++;
  }
  out.keys.sort((a, b) => b.verdicts - a.verdicts || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}

/**
 * The sentence, e.g. `replies held keys the parser does not read, ignored (no part of the label) in 12 verdicts:
 * "confidence" 12, "findings[].severity" 3 (verdicts.jsonl names them in provider_notes)`; "" when none.
 */
export function extraKeysText(h: ExtraKeysHealth | undefined): string {
  if (!h || !(h.verdicts > 0)) return "";
  const keys = h.keys.map((k) => `${JSON.stringify(k.key)} ${k.verdicts}`).join(", ");
  const other = h.other_keys > 0 ? `, and ${h.other_keys} more (key, verdict) pair(s)` : "";
  return `replies held keys the parser does not read, ignored (no part of the label) in ${h.verdicts} verdict${h.verdicts === 1 ? "" : "s"}: ${keys}${other} (verdicts.jsonl names them with their values in provider_notes)`;
}
