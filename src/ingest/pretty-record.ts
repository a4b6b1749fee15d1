/**
 * The trajectory reader's side of ../io/pretty-spans.ts: a chat-jsonl line as a {@link SpanLine}, and the one
 * `invalid_json` error for a trajectory written over several lines (session 46: one pretty-printed trajectory in a
 * `.jsonl` file gave 59 errors, one per line).
 */
import type { IngestError } from "../types.js";
import type { ConvertResult } from "./warnings.js";
import { ingestError } from "./errors.js";
import { spanText, type SpanLine, type SpanOut } from "../io/pretty-spans.js";

/**
 * One non-blank chat-jsonl line for {@link PrettySpans}: `parsed` unless its error says it is not JSON (or not
 * UTF-8); a `record` when it converted, when it is over the string limit (never held), or when it parsed and its
 * bytes begin `{"` (an object with a key, whatever the conversion said of it).
 * @param line 1-based; @param bytes the line's bytes; @param r what parseChatLineBytes made of it.
 */
export function chatSpanLine(line: number, bytes: Buffer, r: ConvertResult): SpanLine<ConvertResult> {
  const parsed = parsesAlone(r);
  const record = r.ok || (!r.ok && r.error.kind === "too_large") || (parsed && opensKeyedObject(bytes));
  return { line, text: () => bytes.toString("utf8"), parsed, record, item: r };
}

/** Whether a chat-jsonl line parsed as JSON: converted, or an error other than `invalid_json` / `invalid_utf8`. */
export function parsesAlone(r: ConvertResult): boolean {
  return r.ok || (r.error.kind !== "invalid_json" && r.error.kind !== "invalid_utf8");
}

/** Whether bytes begin (after a BOM and blanks) with `{` then (after blanks) `"`. */
function opensKeyedObject(b: Buffer): boolean {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  const blank = (c: number | undefined) => c === 32 || c === 9 || c === 13 || c === 10;
  while (blank(b[i])) i++;
  if (b[i] !== 123) return false;
  i++;
  while (blank(b[i])) i++;
  return b[i] === 34;
}

/**
 * The one error for a trajectory written over lines `s.first`-`s.last` of `file`: kind `invalid_json`, `line` its
 * first line, the message naming the span, what it parses as (with `messages`: a trajectory) and the fix.
 */
export function prettyRecordError(file: string, s: Extract<SpanOut<unknown>, { kind: "span" }>): IngestError {
  const v = s.value as { messages?: unknown } | undefined;
  const chat = typeof v === "object" && v !== null && !Array.isArray(v) && Array.isArray(v.messages) ? " (it has messages: a trajectory)" : "";
  const text = spanText(s, "trajectory");
  return ingestError("invalid_json", file, chat ? text.replace(/ lines:/, ` lines${chat}:`) : text, { line: s.first });
}
