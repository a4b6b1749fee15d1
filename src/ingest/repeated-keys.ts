/**
 * An input item whose JSON gives one key twice with different values (break43: an AgentDojo file ending
 * `..., "security": true, ..., "security": false}` was read as `security: false`, silently, since `JSON.parse` keeps
 * the last value; a concatenated or hand-edited file can repeat `messages` the same way). Such an item says two
 * things, so it is refused as a `schema` error naming the key, where it is and both values; the others are read on.
 * The same key twice with the same value is no ambiguity. The scan is `../io/repeated-keys.ts`.
 */
import { mayRepeatKey, repeatedKey, repeatedKeys, type RepeatedKey } from "../io/repeated-keys.js";
import type { IngestError } from "../types.js";
import { ingestError } from "./errors.js";
import type { ConvertResult } from "./warnings.js";

/**
 * The `schema` error for a JSON text (already parsed as `value`) that gives a key twice with different values, or
 * undefined when it does not. Message: `<path>[:<line>]: <where>: key "<k>" given twice with different values
 * (<first>, then <second>) ...`, `<where>` being `messages[3]` or `(root)`.
 *
 * @param text the item's whole JSON text (a file, or one JSONL line)
 * @param value `JSON.parse(text)`
 * @param path the file, as the reader names it
 * @param at the line of a JSONL item
 * @returns an `IngestError` of kind `schema`, or undefined. Never throws for valid JSON.
 */
export function repeatedKeyError(text: string, value: unknown, path: string, at: { line?: number } = {}): IngestError | undefined {
  if (!mayRepeatKey(text, value)) return undefined;
  const r = repeatedKey(text);
  return r === null ? undefined : ingestError("schema", path, repeatedKeyText(r), at);
}

/**
 * What an error says of a repeated key: `<where>: key "<k>" given twice with different values (<first>, then
 * <second>); ...`, `<where>` being the key's object (`messages[3]`, `samples[2].scores`) or `(root)`.
 */
export function repeatedKeyText(r: RepeatedKey): string {
  return (
    `${r.path === "" ? "(root)" : r.path}: key "${r.key}" given twice with different values (${r.first}, then ${r.second}); ` +
    "a JSON reader keeps one of them silently, so the item says two things and is not read; give each key once"
  );
}

/**
 * The repeated keys of a `.json` Inspect log (`text`, parsed as `log`), by sample: `whole` when one is outside the
 * samples (the header, the top level: every sample is read under it), else the first of each sample by its index.
 * Nothing when no key repeats. Never throws for valid JSON.
 */
export function inspectLogRepeats(text: string, log: unknown): { whole?: RepeatedKey; bySample: Map<number, RepeatedKey> } {
  const bySample = new Map<number, RepeatedKey>();
  if (!mayRepeatKey(text, log)) return { bySample };
  for (const r of repeatedKeys(text)) {
    const m = /^samples\[(\d+)\]/.exec(r.path);
    if (m === null) return { whole: r, bySample };
    if (!bySample.has(Number(m[1]))) bySample.set(Number(m[1]), r);
  }
  return { bySample };
}

/**
 * `convert()` unless the item's JSON gives a key twice with different values ({@link repeatedKeyError}): then that
 * error, and `convert` is not called. For the readers that dispatch a parsed `.json` file by its shape.
 */
export function unlessRepeatedKey(text: string, value: unknown, path: string, convert: () => ConvertResult): ConvertResult {
  const error = repeatedKeyError(text, value, path);
  return error === undefined ? convert() : { ok: false, error };
}
