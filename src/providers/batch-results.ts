/**
 * Batch API result lines, read and classified by the same rules as an online reply (issue 23, "one classifier"):
 * a line with a 200 goes through `classifyCompletion` (`./classify.ts`), a line with another status through the one
 * status table (`HTTP_FAULTS`, `./faults.ts`) as the `APIError` the client would have thrown online. The result
 * files are not taken on trust: a `custom_id` twice with different content is a named conflict (never "the last
 * line wins"), and a `custom_id` no request of the chunk had is counted and said.
 */
import { chosenChoice } from "./choice.js";
import { readJsonl } from "../io/jsonl.js";
import { batchLineError, classifyCompletion, type ReplyClass, type ReplyContext } from "./classify.js";
import { classifyError, type Fault, type FaultState } from "./faults.js";

/** A result line, kept slim: the status, the body (first choice, usage, error) and the line's own error. */
export interface BatchResultLine {
  status: number;
  body?: {
    choices?: Array<{ finish_reason?: string | null; message?: { content?: unknown; refusal?: string | null; reasoning_content?: unknown; reasoning?: unknown } | null; error?: unknown }>;
    usage?: Record<string, unknown>;
    error?: unknown;
    [k: string]: unknown;
  };
  error?: { code?: string; message?: string } | null;
  /** Lines with this `custom_id` that disagreed with this one (the result is ambiguous: no label from it). */
  conflicting?: number;
  /** Set when those lines' usage differs from this one's (then which was billed is unknown). */
  usageDiffers?: true;
}

/** What reading result files found besides the lines. */
export interface BatchReadReport {
  /** `custom_id`s given on two or more lines that differ (each such conversation gets an error, not a label). */
  conflicts: string[];
  /** Lines repeated identically (harmless, counted). */
  repeated: number;
  /** Lines without a string `custom_id`. */
  withoutId: number;
}

/**
 * Read a downloaded output or error file into `into`: `custom_id` -> the line's status, error and slim body.
 * @param report counts what is not a plain line (see {@link BatchReadReport}); pass the same object for both files.
 * @param onBad called with each line that is not a JSON object (1-based line number, its text): never skipped in silence.
 */
export async function readBatchResults(file: string, into: Map<string, BatchResultLine>, report?: BatchReadReport, onBad?: (line: number, text: string) => void): Promise<void> {
  for await (const l of readJsonl<{ custom_id?: string; response?: { status_code?: number; body?: BatchResultLine["body"] } | null; error?: BatchResultLine["error"] }>(file, onBad)) {
    if (typeof l.custom_id !== "string") {
      if (report) report.withoutId++;
      continue;
    }
    const status = l.response?.status_code ?? 0;
    const body = l.response?.body;
    const slim: BatchResultLine = { status, error: l.error ?? null };
    if (body && typeof body === "object") {
      slim.body = {
        // the choice read (index 0) and how many there were, for the note (./choice.ts): the others are not kept
        ...(Array.isArray(body.choices) ? { choices: body.choices.length > 1 ? ([chosenChoice(body).choice, ...body.choices.slice(1).map(() => ({}))] as typeof body.choices) : body.choices.slice(0, 1) } : {}),
        ...(body.usage !== undefined ? { usage: body.usage } : {}),
        ...(body.error !== undefined ? { error: body.error } : {}),
        ...(body.object !== undefined ? { object: body.object } : {}),
        ...(typeof body.model === "string" ? { model: body.model } : {}),
        ...(typeof body.message === "string" ? { message: body.message } : {}),
        ...(body.detail !== undefined ? { detail: body.detail } : {}),
      };
    }
    const prior = into.get(l.custom_id);
    if (prior) {
      const { conflicting: _c, usageDiffers: _u, ...p } = prior;
      if (JSON.stringify(p) === JSON.stringify(slim)) {
        if (report) report.repeated++;
        continue;
      }
      prior.conflicting = (prior.conflicting ?? 0) + 1;
      if (JSON.stringify(p.body?.usage) !== JSON.stringify(slim.body?.usage)) prior.usageDiffers = true;
      if (report && !report.conflicts.includes(l.custom_id)) report.conflicts.push(l.custom_id);
      continue;
    }
    into.set(l.custom_id, slim);
  }
}

/** What one result line is. */
export type LineClass =
  /** The batch did not run it (expired, cancelled): resend, no attempt made. */
  | { kind: "not_run"; message: string }
  /** Several different lines for one request: an error, never a label. */
  | { kind: "conflict"; message: string }
  /** A line-level error without a response. */
  | { kind: "line_error"; errorKind: string; message: string }
  /** A failed request: the fault of the one status table. */
  | { kind: "fault"; fault: Fault }
  /** A 200: the one reply classifier's answer. */
  | { kind: "completion"; reply: ReplyClass };

/**
 * Classify one result line.
 * @param r the line (undefined is not handled here: the caller knows whether the batch failed).
 * @param state what the status table's rows read (the request sent, judge id); `timedOut`, `aborted` are false.
 * @param ctx the reply classifier's context (`isComplete`, `promptChars`).
 */
export function classifyBatchLine(r: BatchResultLine, state: FaultState, ctx: ReplyContext): LineClass {
  if (r.conflicting)
    return { kind: "conflict", message: `the batch output holds ${r.conflicting + 1} different result lines for this request: none is taken (ambiguous)` };
  if (r.error?.code === "batch_expired" || r.error?.code === "batch_cancelled") return { kind: "not_run", message: r.error.message ?? r.error.code };
  if (r.status !== 200) {
    if (!r.status) return { kind: "line_error", errorKind: r.error?.code ?? "batch_error", message: r.error?.message ?? "the result line has no response" };
    return { kind: "fault", fault: classifyError(batchLineError(r.status, r.body ?? (r.error ? { error: r.error } : undefined)), state) };
  }
  if (r.error) return { kind: "line_error", errorKind: r.error.code ?? "batch_error", message: r.error.message ?? "error" };
  return { kind: "completion", reply: classifyCompletion(r.body, ctx) };
}
