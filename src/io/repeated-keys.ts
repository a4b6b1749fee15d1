/**
 * A key written twice in one JSON object. `JSON.parse` keeps the last value silently, so a text that gives a key
 * twice with different values says two things: a judge's reply `{"label":"unaffected", ..., "label":"full_compliance"}`
 * (red team 35a F6, `../judges/parse.ts`), or an input file `{"security": true, ..., "security": false}` (break43,
 * `../ingest/repeated-keys.ts`). The same key twice with the same value is no ambiguity. Read with jsonc-parser's
 * syntax tree (the keys as written), not a regex.
 */
import { getNodeValue, parseTree, type Node } from "jsonc-parser";

/** A repeated key: where (`findings[0].evidence[1]`, "" for the top level), its name, and its two values as JSON text. */
export interface RepeatedKey {
  path: string;
  key: string;
  first: string;
  second: string;
}

/** Values longer than this are cut in the message. */
const SHOWN_CHARS = 60;

const shown = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}...` : s;
};

const QUOTE = 34; // "
const BACKSLASH = 92;
const COLON = 58;

/**
 * How many keys a valid JSON text writes: the strings followed (after white space) by a `:`. In valid JSON each `"`
 * that is not escaped opens or closes one string, so the scan hops from quote to quote with `indexOf`; linear in the
 * text, no regex (the earlier pattern `/"(?:[^"\\]|\\.)*"/` overflowed the stack on a string of some millions of
 * characters, break43).
 */
function keysWritten(json: string): number {
  let n = 0;
  let i = json.indexOf('"');
  while (i !== -1) {
    let end = json.indexOf('"', i + 1);
    for (;;) {
      if (end === -1) return n; // not valid JSON: the caller parsed it, so never here
      let slashes = 0;
      for (let j = end - 1; json.charCodeAt(j) === BACKSLASH; j--) slashes++;
      if (slashes % 2 === 0) break;
      end = json.indexOf('"', end + 1);
    }
    let k = end + 1;
    for (let c = json.charCodeAt(k); c === 32 || c === 9 || c === 10 || c === 13; c = json.charCodeAt(++k));
    if (json.charCodeAt(k) === COLON) n++;
    i = json.indexOf('"', k);
  }
  return n;
}

/** Own keys of every object in a parsed value, counted without recursion. */
function keysIn(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === "object" && x !== null) stack.push(x);
      continue;
    }
    for (const k in v) {
      n++;
      const x = (v as Record<string, unknown>)[k];
      if (typeof x === "object" && x !== null) stack.push(x);
    }
  }
  return n;
}

/**
 * Can `json` (valid JSON, parsed as `parsed`) repeat a key? Only when it writes more keys than its parsed objects hold
 * (`JSON.parse` keeps one of each). A linear scan of the text and a walk of the value (together some half a
 * `JSON.parse`): the tree of {@link repeatedKey} is read only then (it costs some 15 times a `JSON.parse`).
 * @throws never for valid JSON.
 */
export function mayRepeatKey(json: string, parsed: unknown): boolean {
  return keysWritten(json) !== keysIn(parsed);
}

/**
 * The first key of any object in `json` (a whole JSON text) written twice with different values, or null (none, or
 * the text is not JSON the tree reader can take). Walked without recursion (a deep text cannot overflow the stack here).
 * @throws never (a stack overflow inside the tree reader is caught: null).
 */
export function repeatedKey(json: string): RepeatedKey | null {
  return repeatedKeys(json, 1)[0] ?? null;
}

/**
 * Up to `max` keys of `json`'s objects written twice with different values (the first of each object), in the
 * order {@link repeatedKey} finds them; [] for none or a text the tree reader cannot take.
 * @throws never.
 */
export function repeatedKeys(json: string, max = Number.POSITIVE_INFINITY): RepeatedKey[] {
  const found: RepeatedKey[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(json, [], { allowTrailingComma: true, disallowComments: true });
  } catch {
    return found;
  }
  const stack: Array<{ node: Node; path: string }> = root ? [{ node: root, path: "" }] : [];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node.type === "array") {
      (node.children ?? []).forEach((c, i) => stack.push({ node: c, path: `${path}[${i}]` }));
      continue;
    }
    if (node.type !== "object") continue;
    const seen = new Map<string, string>();
    for (const prop of node.children ?? []) {
      const [k, val] = prop.children ?? [];
      if (!k || typeof k.value !== "string") continue;
      const value = val ? JSON.stringify(getNodeValue(val)) ?? "null" : "null";
      const before = seen.get(k.value);
      if (before !== undefined && before !== value) {
        found.push({ path, key: k.value, first: shown(JSON.parse(before)), second: shown(JSON.parse(value)) });
        if (found.length >= max) return found;
        break; // the first of each object: its other keys are not looked at, nor what they hold
      }
      seen.set(k.value, value);
      if (val) stack.push({ node: val, path: path ? `${path}.${k.value}` : k.value });
    }
  }
  return found;
}
