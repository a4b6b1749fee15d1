import type { IngestError } from "../types.js";

/**
 * The error kinds the ingest stage reports (the `kind` of an {@link IngestError}):
 * - `read_error`: the file or directory could not be read (missing, permissions, I/O).
 * - `invalid_utf8`: the bytes are not valid UTF-8 (detected, never replaced).
 * - `invalid_json`: the text is not JSON (truncated, syntax error, nesting too deep for the parser).
 * - `schema`: JSON of the wrong shape; the message names the field, e.g. `messages[3].role: must be one of ...`.
 * - `no_messages`: a trajectory with an empty `messages` array.
 * - `duplicate_id`: a trajectory id already read earlier in the same read from another input (the first is kept; `label` exits non-zero);
 * - `duplicate_input`: the same file or line given twice, or a byte-identical copy of a run file (read once);
 * - `unknown_format`: a file that is not a trajectory file of any known format (e.g. a `manifest.jsonl`).
 * - `too_large`: an AgentDojo file or a chat-jsonl line over the per-item byte limit (`maxItemBytes`), or text too
 *   long for one JavaScript string; reported from the size, before the item is read whole.
 * - `empty_placeholder`: an AgentDojo-layout file with no messages and no verdict, written by a benchmark for a
 *   combination it never ran (VIGIL has 8,023); one kind, counted in the run summary.
 * - `unresolved_attachment`: an Inspect sample with an `attachment://` reference that its `attachments` do not
 *   hold: the text is unknown, so the sample is never judged (the message names the reference).
 * - `changed_during_read`: the file changed (size, mtime, or another file at its path; a ctime alone is metadata) while it was read, so the
 *   read may mix two versions of it (./changed.ts): a `.json` file gives no trajectory; a `.jsonl` file stops at the
 *   change, the lines read before it (all from one version) are kept and the message says how many; an Inspect `.eval`
 *   zip is compared at its end (its samples read are kept, the message says they may mix two versions); `label` exits
 *   non-zero.
 *
 * Recorded by `label` beside them (not by a reader): `prepare_failed`, a trajectory read but not prepared for judging
 * (a fault of ipi-judge's on it: `../run/prepare.ts`); it is passed over, the others judged, and `label` exits 1.
 */
export type IngestErrorKind =
  | "read_error"
  | "invalid_utf8"
  | "invalid_json"
  | "schema"
  | "no_messages"
  | "duplicate_id"
  | "duplicate_input"
  | "unknown_format"
  | "too_large"
  | "empty_placeholder"
  | "unresolved_attachment"
  | "changed_during_read";

/**
 * What went wrong in a conversion step, for an error message: a `RangeError` from the call stack is "nested too
 * deep to convert", one from string building ("Invalid string length") is "too long to convert"; anything else
 * is its own message. Never throws.
 */
export function failureText(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError && /call stack/i.test(msg)) return `nested too deep to convert (${msg})`;
  if (e instanceof RangeError && /string length|too long/i.test(msg)) return `too long to convert (${msg})`;
  return msg;
}

/**
 * Thrown by the message converters (`convertOpenAIMessages`, `convertAgentDojoMessages`) when one message cannot
 * be converted (a value nested too deep or too long for `JSON.stringify`, a role the schema would have refused).
 * The readers turn it into a `schema` error carrying `message_index`; `message` is `<field>: <what>`, e.g.
 * `messages[3].tool_calls[0].function.arguments: nested too deep to convert`.
 */
export class ConvertError extends Error {
  constructor(
    /** The field, as the schema errors name fields: `messages[3].tool_calls[0].function.arguments`. */
    public readonly field: string,
    /** 0-based index of the message, when the field is inside one. */
    public readonly message_index: number | undefined,
    what: string,
  ) {
    super(`${field}: ${what}`);
    this.name = "ConvertError";
  }
}

/**
 * Thrown by `readTrajectories(paths, {strict: true})` on the first error instead of yielding it.
 * `error` is the {@link IngestError} that would have been yielded; `message` is its text.
 */
export class IngestFatalError extends Error {
  constructor(public readonly error: IngestError) {
    super(error.message);
    this.name = "IngestFatalError";
  }
}

/**
 * Build an {@link IngestError} whose `message` names the place: `<path>[:<line>]: <what>`. The message index, when
 * known, is in the `message_index` field and, for errors inside a message, in `what`'s field path
 * (`messages[3].role: ...`).
 *
 * @param kind one of {@link IngestErrorKind}
 * @param path the file the item came from (as given or found by the directory walk)
 * @param what what is wrong, without the place
 * @param at optional line (1-based), message index (0-based), trajectory id
 */
export function ingestError(
  kind: IngestErrorKind,
  path: string,
  what: string,
  at: { line?: number; message_index?: number; trajectory_id?: string } = {},
): IngestError {
  let place = path;
  if (at.line !== undefined) place += `:${at.line}`;
  const err: IngestError = { path, kind, message: `${place}: ${what}` };
  if (at.line !== undefined) err.line = at.line;
  if (at.message_index !== undefined) err.message_index = at.message_index;
  if (at.trajectory_id !== undefined) err.trajectory_id = at.trajectory_id;
  return err;
}

/**
 * The `schema` error for a conversion failure: a {@link ConvertError} gives its field and `message_index`
 * (`<path>[:<line>]: messages[3].tool_calls[0].function.arguments: nested too deep to convert (...)`); anything
 * else gives `cannot convert: <what>` (see `failureText`).
 */
export function conversionError(
  e: unknown,
  path: string,
  at: { line?: number; trajectory_id?: string } = {},
): IngestError {
  if (e instanceof ConvertError) {
    const where: { line?: number; message_index?: number; trajectory_id?: string } = { ...at };
    if (e.message_index !== undefined) where.message_index = e.message_index;
    return ingestError("schema", path, e.message, where);
  }
  return ingestError("schema", path, `cannot convert: ${failureText(e)}`, at);
}

/** `67108864` -> `67,108,864 bytes (64.0 MiB)`. */
export function formatBytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const human = u < 0 ? "" : ` (${v.toFixed(1)} ${units[u]})`;
  return `${n.toLocaleString("en-US")} bytes${human}`;
}

/**
 * The `too_large` error of an item over the per-item limit, naming its size and the limit:
 * `<path>[:<line>]: line is 70,000,000 bytes (66.8 MiB), over the limit of 67,108,864 bytes (64.0 MiB) per
 * item (the maxItemBytes read option)`.
 *
 * @param what `file` (an AgentDojo run) or `line` (a chat-jsonl line)
 * @param size the item's size in bytes; `limit` the limit in bytes
 */
export function tooLargeError(path: string, what: "file" | "line", size: number, limit: number, at: { line?: number } = {}): IngestError {
  const text = `${what} is ${formatBytes(size)}, over the limit of ${formatBytes(limit)} per item (raise it with --max-item-mb, or the maxItemBytes read option)`;
  return ingestError("too_large", path, text, at);
}
