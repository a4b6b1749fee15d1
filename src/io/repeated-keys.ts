/**
 * A key written twice in one JSON object. `JSON.parse` keeps the last value silently, so a text that gives a key
 * twice with different values says two things: a judge's reply `{"label":"unaffected", ..., "label":"full_compliance"}`
 * (red team 35a F6, `../judges/parse.ts`), or an input file `{"security": true, ..., "security": false}` (break43,
 * `../ingest/repeated-keys.ts`). The same key twice with the same value is no ambiguity. Read with jsonc-parser's
 * syntax tree (the keys as written), not a regex.
 */
import { createScanner, SyntaxKind } from "jsonc-parser";

/**
 * A repeated key: where (`findings[0].evidence[1]`, "" for the top level; a path over 200 characters keeps its first
 * 120 and last 60 around `...`), its name, and its two values as JSON text (cut at 60 characters).
 */
export interface RepeatedKey {
  path: string;
  key: string;
  first: string;
  second: string;
}

/** Values longer than this are cut in the message. */
const SHOWN_CHARS = 60;


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
 * The first key of any object in `json` (a whole JSON text) written twice with different values, or null (none).
 * Read without recursion, at any depth (break44: the tree reader this used overflowed at some 10,000 nested arrays
 * and let such a text through, and reading a value back overflowed at 3,000 nested objects and threw).
 * @throws never for valid JSON.
 */
export function repeatedKey(json: string, same?: SameValue): RepeatedKey | null {
  return repeatedKeys(json, 1, same)[0] ?? null;
}

/**
 * Whether two values of one key, each as its canonical token text (JSON: strings as `JSON.stringify` writes them),
 * say the same thing to the reader although their tokens differ (a judge's `"label"` given twice as `"unaffected"`
 * and `"Unaffected"`, ../judges/case-keys.ts). Absent: only the same tokens are the same value.
 */
export type SameValue = (key: string, first: string, second: string) => boolean;


/** An open object or array: its path, and for an object the token span of each key's value and the key being read. */
interface Frame {
  array: boolean;
  path: string;
  index: number;
  key: string | undefined;
  valueFrom: number;
  seen: Map<string, [number, number]> | undefined;
  found: boolean;
}

/**
 * Up to `max` keys of `json`'s objects written twice with different values (the first of each object), in the order
 * their second values end in the text; [] for none. Two values are the same when their tokens are (strings compared
 * decoded, numbers by value: `"\u0061"` is `"a"`, `1.0` is `1`). One pass of jsonc-parser's scanner with a stack of
 * open objects (no recursion: any depth); a text that is not JSON gives what was found before the fault. `same`: values
 * the reader takes as one although their tokens differ ({@link SameValue}).
 * @throws never.
 */
export function repeatedKeys(json: string, max = Number.POSITIVE_INFINITY, same?: SameValue): RepeatedKey[] {
  const found: RepeatedKey[] = [];
  const tokens: string[] = []; // every token, canonical: a value's text is the join of its span
  const stack: Frame[] = [];
  const text = (span: [number, number]) => tokens.slice(span[0], span[1]).join("");
  const childPath = (f: Frame) => (f.array ? `${f.path}[${f.index}]` : f.path ? `${f.path}.${f.key}` : (f.key as string));
  const valueEnded = () => {
    const f = stack[stack.length - 1];
    if (!f || f.array || f.key === undefined) return;
    const span: [number, number] = [f.valueFrom, tokens.length];
    const before = f.seen!.get(f.key);
    if (before !== undefined && !f.found && text(before) !== text(span) && !same?.(f.key, text(before), text(span))) {
      found.push({ path: shortPath(f.path), key: f.key, first: cut(text(before)), second: cut(text(span)) });
      f.found = true; // the first of each object
    }
    f.seen!.set(f.key, span);
    f.key = undefined;
  };
  const scanner = createScanner(json, true);
  let expectKey = false;
  for (let t = scanner.scan(); t !== SyntaxKind.EOF && found.length < max; t = scanner.scan()) {
    const top = stack[stack.length - 1];
    if (t === SyntaxKind.StringLiteral && expectKey && top && !top.array) {
      top.key = scanner.getTokenValue();
      tokens.push(JSON.stringify(top.key));
      expectKey = false;
      continue;
    }
    if (t === SyntaxKind.ColonToken) {
      tokens.push(":");
      if (top && !top.array) top.valueFrom = tokens.length;
      continue;
    }
    if (t === SyntaxKind.CommaToken) {
      if (top) top.index++;
      expectKey = top !== undefined && !top.array;
      tokens.push(",");
      continue;
    }
    if (t === SyntaxKind.OpenBraceToken || t === SyntaxKind.OpenBracketToken) {
      const path = top ? childPath(top) : "";
      tokens.push(t === SyntaxKind.OpenBraceToken ? "{" : "[");
      stack.push({ array: t === SyntaxKind.OpenBracketToken, path, index: 0, key: undefined, valueFrom: 0, seen: t === SyntaxKind.OpenBraceToken ? new Map() : undefined, found: false });
      expectKey = t === SyntaxKind.OpenBraceToken;
      continue;
    }
    if (t === SyntaxKind.CloseBraceToken || t === SyntaxKind.CloseBracketToken) {
      if (!top) return found; // not JSON
      stack.pop();
      tokens.push(t === SyntaxKind.CloseBraceToken ? "}" : "]");
      expectKey = false;
      valueEnded();
      continue;
    }
    if (t > SyntaxKind.NumericLiteral) return found; // a fault, trivia is skipped: not JSON
    tokens.push(t === SyntaxKind.StringLiteral ? JSON.stringify(scanner.getTokenValue()) : t === SyntaxKind.NumericLiteral ? numberText(scanner.getTokenValue()) : json.slice(scanner.getTokenOffset(), scanner.getTokenOffset() + scanner.getTokenLength()));
    valueEnded();
  }
  return found;
}

/** A number token's canonical text: its value's shortest form when finite (`1.0` -> `1`), else as written. */
const numberText = (raw: string): string => {
  const n = Number(raw);
  return Number.isFinite(n) ? JSON.stringify(n) : raw;
};

/** Paths longer than this (an object some thousands deep) keep their start and end in the message. */
const SHOWN_PATH_CHARS = 200;

/** A path cut to its first and last characters around `...` when longer than {@link SHOWN_PATH_CHARS}. */
const shortPath = (p: string): string => (p.length > SHOWN_PATH_CHARS ? `${p.slice(0, 120)}...${p.slice(-60)}` : p);

/** A value's JSON text, cut at {@link SHOWN_CHARS}. */
const cut = (s: string): string => (s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}...` : s);
