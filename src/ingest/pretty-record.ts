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
 * UTF-8); a `record` (it ends an open search) when it converted or is over the string limit (never held). A keyed
 * object that parsed but did not convert is no record: inside a pretty-printed trajectory whose messages are written
 * one a line (`    {"role": "user", "content": "hi"}` as its last message) it is one of the span's lines, not a
 * record of its own (break47b: that line ended the search, and the one trajectory gave an error per line, one of them
 * `schema: messages: is required` for its message). Where no span holds, it is handed back with its own error, as
 * before; a torn line before good records is still settled by the first of them that converts.
 * @param line 1-based; @param bytes the line's bytes; @param r what parseChatLineBytes made of it.
 */
export function chatSpanLine(line: number, bytes: Buffer, r: ConvertResult): SpanLine<ConvertResult> {
  const parsed = parsesAlone(r);
  const record = r.ok || (!r.ok && r.error.kind === "too_large");
  return { line, text: () => bytes.toString("utf8"), parsed, record, item: r };
}

/** Whether a chat-jsonl line parsed as JSON: converted, or an error other than `invalid_json` / `invalid_utf8`. */
export function parsesAlone(r: ConvertResult): boolean {
  return r.ok || (r.error.kind !== "invalid_json" && r.error.kind !== "invalid_utf8");
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
