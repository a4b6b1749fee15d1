/**
 * The raw text of JSON values, for fields that must stay byte-faithful (tool-call arguments as the agent wrote
 * them: `1.0` stays `1.0`, `\u00e9` stays escaped, key order and duplicate keys are kept), using jsonc-parser's
 * scanner and visitor (a maintained JSON tokenizer) instead of re-serializing the parsed value.
 */
import { createScanner, SyntaxKind, visit, type JSONPath } from "jsonc-parser";

/**
 * The text of one JSON value with the whitespace between tokens removed; every token (string, number, literal,
 * punctuation) is kept byte for byte. `{ "a" : 1.0 }` -> `{"a":1.0}`.
 */
export function compactRaw(raw: string): string {
  const sc = createScanner(raw, true);
  let out = "";
  for (let k = sc.scan(); k !== SyntaxKind.EOF; k = sc.scan()) {
    out += raw.substring(sc.getTokenOffset(), sc.getTokenOffset() + sc.getTokenLength());
  }
  return out;
}

/**
 * Collect the compact raw text ({@link compactRaw}) of every object or array value whose path matches `want`,
 * keyed by the path joined with `/` (e.g. `messages/3/tool_calls/0/arguments`).
 *
 * @param text the whole JSON document
 * @param want a predicate on the value's path (keys and array indices from the root)
 */
export function rawValues(text: string, want: (p: JSONPath) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  const open: Array<{ key: string; start: number } | undefined> = [];
  const begin = (offset: number, pathOf: () => JSONPath) => {
    const p = pathOf();
    open.push(want(p) ? { key: p.join("/"), start: offset } : undefined);
  };
  const end = (offset: number, length: number) => {
    const o = open.pop();
    if (o) out.set(o.key, compactRaw(text.slice(o.start, offset + length)));
  };
  visit(
    text,
    {
      onObjectBegin: (offset, _l, _sl, _sc, pathSupplier) => begin(offset, pathSupplier),
      onObjectEnd: (offset, length) => end(offset, length),
      onArrayBegin: (offset, _l, _sl, _sc, pathSupplier) => begin(offset, pathSupplier),
      onArrayEnd: (offset, length) => end(offset, length),
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return out;
}
