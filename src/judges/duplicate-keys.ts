/**
 * A key written twice with different values in one JSON object of a judge's reply (red team 35a F6:
 * `{"label":"unaffected", ..., "label":"full_compliance"}` was read by `JSON.parse` as its last value, silently). Such a
 * reply says two things, like two different verdict objects do, so the parser refuses it as `ambiguous` (`./parse.ts`).
 * The same key twice with the same value is no ambiguity. Read with jsonc-parser's syntax tree (the keys as written),
 * not a regex.
 */
import { getNodeValue, parseTree, type Node } from "jsonc-parser";
import { REPEATED_KEY_MESSAGE } from "../store/repeated-key-kind.js";

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

/** Every JSON string of a text, in order (in valid JSON each `"` opens or closes one), with whether a `:` follows it. */
const STRING_TOKEN = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/** Own keys of every object in a parsed value, counted without recursion. */
function keysIn(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    const vals = Object.values(v);
    n += vals.length;
    for (const x of vals) stack.push(x);
  }
  return n;
}

/**
 * Can `json` (valid JSON, parsed as `parsed`) repeat a key? Only when it writes more keys than its parsed objects hold
 * (`JSON.parse` keeps one of each). A pass of the engine's regex and a walk of the value: the tree of
 * {@link repeatedKey} is read only then (it costs some 15 times a `JSON.parse`).
 */
export function mayRepeatKey(json: string, parsed: unknown): boolean {
  let written = 0;
  STRING_TOKEN.lastIndex = 0;
  for (let m = STRING_TOKEN.exec(json); m !== null; m = STRING_TOKEN.exec(json)) if (m[1] !== undefined) written++;
  return written !== keysIn(parsed);
}

/**
 * The first key of any object in `json` (a whole JSON text) written twice with different values, or null (none, or
 * the text is not JSON the tree reader can take). Walked without recursion (a deep reply cannot overflow the stack here).
 * @throws never (a stack overflow inside the tree reader is caught: null).
 */
export function repeatedKey(json: string): RepeatedKey | null {
  let root: Node | undefined;
  try {
    root = parseTree(json, [], { allowTrailingComma: true, disallowComments: true });
  } catch {
    return null;
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
      if (before !== undefined && before !== value) return { path, key: k.value, first: shown(JSON.parse(before)), second: shown(JSON.parse(value)) };
      seen.set(k.value, value);
      if (val) stack.push({ node: val, path: path ? `${path}.${k.value}` : k.value });
    }
  }
  return null;
}

/** The feedback message of a repeated key: names it, where, and both values. */
export function repeatedKeyMessage(r: RepeatedKey): string {
  return `${REPEATED_KEY_MESSAGE}"${r.key}"${r.path ? ` of ${r.path}` : ""} twice with different values (${r.first}, then ${r.second}); give each key once`;
}
