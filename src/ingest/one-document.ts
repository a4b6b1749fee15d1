/**
 * A `.jsonl` file that holds one JSON document (a pretty-printed array or object) instead of one trajectory per line.
 * New user 35, L3: a pretty-printed array of 3 trajectories gave 124 `invalid_json` errors, one per line, and none said
 * why. When the first line of a JSON Lines file is not JSON, the whole file is tried as one document; if it is one,
 * the file is one error saying so and how to turn it into JSON Lines, and its lines are not read one by one.
 */
import type { IngestError } from "../types.js";
import { ingestError } from "./errors.js";
import { readJsonBytes } from "./read-file.js";
import { decodeUtf8Strict, parseJson } from "./text.js";

/**
 * The one error for a JSON Lines file that is one JSON document (module docstring), or undefined when it is not
 * (the whole text does not parse, is not an array or object, or is over `max` bytes: its lines are read as usual).
 * @param file the file; @param max the per-item byte limit (the whole file is read only up to it).
 */
export function oneDocumentError(file: string, max: number): IngestError | undefined {
  const read = readJsonBytes(file, max);
  if ("error" in read) return undefined;
  const decoded = decodeUtf8Strict(read.bytes);
  if (!decoded.ok) return undefined;
  const parsed = parseJson(decoded.text);
  const lines = decoded.text.trimEnd().split("\n").length;
  const isChat = (x: unknown) => typeof x === "object" && x !== null && Array.isArray((x as { messages?: unknown }).messages);
  if (!parsed.ok) {
    // several pretty-printed documents one after another (`jq .` of each object; verifier 35 L5): said once too
    const many = concatenatedValues(decoded.text);
    if (!many || many.length < 2) return undefined;
    return ingestError(
      "invalid_json",
      file,
      `the file holds ${many.length} JSON documents one after another${many.some(isChat) ? ` (${many.filter(isChat).length} with messages: trajectories)` : ""}, written over ${lines} lines, ` +
        `not JSON Lines (one trajectory per line): nothing of it is read; write one per line (e.g. jq -c . ${shellWord(file)} > out.jsonl) and label that`,
    );
  }
  if (typeof parsed.value !== "object" || parsed.value === null) return undefined;
  const v = parsed.value;
  const what = Array.isArray(v)
    ? `an array of ${v.length} item(s)${v.some(isChat) ? ` (${v.filter(isChat).length} with messages: trajectories)` : ""}`
    : `one object${isChat(v) ? " with messages (a trajectory)" : ""}`;
  const fix = Array.isArray(v) ? `jq -c '.[]' ${shellWord(file)} > out.jsonl` : `jq -c . ${shellWord(file)} > out.jsonl`;
  return ingestError(
    "invalid_json",
    file,
    `the file is one JSON document, ${what} written over ${lines} lines, not JSON Lines (one trajectory per line): ` +
      `nothing of it is read; write one trajectory per line (e.g. ${fix}) and label that`,
  );
}

/** A path as one shell word (quoted when it holds anything but safe characters). */
function shellWord(p: string): string {
  return /^[\w./+-]+$/.test(p) ? p : `'${p.replace(/'/g, "'\\''")}'`;
}

/**
 * The JSON values of a text that is objects or arrays written one after another (each possibly over many lines),
 * or undefined when it is not that: a value that does not parse, text between values, or every value on a line of
 * its own (JSON Lines). Strings are skipped with
 * their escapes, so a brace inside one does not count.
 */
export function concatenatedValues(text: string): unknown[] | undefined {
  const out: unknown[] = [];
  let spans = false; // a value over several lines: else it is JSON Lines, read line by line
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 0) {
      if (c === "{" || c === "[") {
        start = i;
        depth = 1;
      } else if (!/\s/.test(c) && c !== "\ufeff") return undefined;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) {
        const slice = text.slice(start, i + 1);
        const one = parseJson(slice);
        if (!one.ok) return undefined;
        if (slice.includes("\n")) spans = true;
        out.push(one.value);
      }
    }
  }
  return depth === 0 && !inString && spans ? out : undefined;
}
