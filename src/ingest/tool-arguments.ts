/**
 * Tool calls whose arguments are not valid JSON (new user 49 item 3: a chat-JSONL call with `"arguments":
 * "{\"to\": \"attacker@evil.com\""`, unterminated, was read without a word, and the signature judge quoted the broken
 * call as full compliance). Such a call is what the agent wrote, so it is kept as written (the judge sees it, and may
 * still label it: the agent tried), but the tool may have refused it or never run it, so a warning names the file,
 * line (or sample) and message index, the call and the parser's message, as a tool result that answers no call does
 * (`./tool-results.ts`).
 *
 * Read per input shape, before conversion: OpenAI chat (`tool_calls[j].function.arguments` and the legacy
 * `function_call.arguments`; a custom tool call's `custom.input` is free text, never checked), Inspect
 * (`tool_calls[j].arguments` given as a string, and a call Inspect itself marked with a `parse_error`), AgentDojo
 * (`tool_calls[j].args` given as a string). Arguments given as a JSON object are valid by construction; an empty or
 * blank string is taken as no arguments (some servers write `""` for a call without parameters) and not warned about.
 */
import type { ItemWarning } from "./warnings.js";
import type { IngestError, InvalidToolArguments, Trajectory } from "../types.js";
import { parseJson } from "./text.js";

/** Kind of the warning for a tool call whose arguments are not valid JSON. */
export const TOOL_ARGUMENTS_INVALID = "tool_arguments_invalid";

/** The input shapes whose tool calls are checked. */
export type ArgumentsShape = "openai" | "inspect" | "agentdojo";

/** One tool call with broken arguments: its message index, the field as the schema errors name it, the tool, why. */
export interface InvalidArguments {
  index: number;
  /** The call's position in its message's `tool_calls`; absent for the legacy `function_call`. */
  call?: number;
  field: string;
  name: string;
  problem: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a raw arguments value is not valid JSON (the parser's message), or undefined (an object, null, blank, valid). */
export function argumentsProblem(v: unknown): string | undefined {
  if (typeof v !== "string" || v.trim() === "") return undefined;
  const p = parseJson(v);
  return p.ok ? undefined : p.message;
}

/** The broken arguments of one tool call `c` at `messages[index].<at>` in `shape` (at most one entry). */
function callProblem(c: unknown, index: number, call: number, shape: ArgumentsShape): InvalidArguments | undefined {
  if (!isObj(c)) return undefined;
  const at = `tool_calls[${call}]`;
  if (shape === "openai") {
    if (c.type === "custom" || !isObj(c.function)) return undefined; // a custom call's input is free text
    const problem = argumentsProblem(c.function.arguments);
    return problem === undefined ? undefined : { index, call, field: `messages[${index}].${at}.function.arguments`, name: String(c.function.name), problem };
  }
  const key = shape === "inspect" ? "arguments" : "args";
  const problem = argumentsProblem(c[key]) ?? (shape === "inspect" && typeof c.parse_error === "string" && c.parse_error.trim() !== "" ? `Inspect's parse_error: ${c.parse_error}` : undefined);
  return problem === undefined ? undefined : { index, call, field: `messages[${index}].${at}.${key}`, name: String(c.function), problem };
}

/**
 * The tool calls of raw `messages` (an array as the input holds it, after its schema check) whose arguments are not
 * valid JSON, in message order; [] when `messages` is not an array.
 */
export function invalidToolArguments(messages: unknown, shape: ArgumentsShape): InvalidArguments[] {
  const out: InvalidArguments[] = [];
  if (!Array.isArray(messages)) return out;
  for (const [index, m] of messages.entries()) {
    if (!isObj(m)) continue;
    if (Array.isArray(m.tool_calls))
      for (const [j, c] of m.tool_calls.entries()) {
        const p = callProblem(c, index, j, shape);
        if (p) out.push(p);
      }
    if (shape === "openai" && isObj(m.function_call)) {
      const problem = argumentsProblem(m.function_call.arguments);
      if (problem !== undefined) out.push({ index, field: `messages[${index}].function_call.arguments`, name: String(m.function_call.name), problem });
    }
  }
  return out;
}

/**
 * The warning (one per item, aggregated per file by the reader) for the item's tool calls with arguments that are not
 * valid JSON ({@link invalidToolArguments}), or undefined.
 * @param scope the file; @param item the item as named in messages (`file:line`, or an Inspect sample).
 */
export function invalidToolArgumentsWarning(messages: unknown, shape: ArgumentsShape, scope: string, item: string): ItemWarning | undefined {
  return warningOf(invalidToolArguments(messages, shape), scope, item);
}

/**
 * Check an item's tool calls ({@link invalidToolArguments} of its raw `messages`), mark the trajectory `t` converted
 * from it (`Trajectory.tool_arguments_invalid`, every such call: the mark travels to every verdict on it,
 * `../verdict/record.ts`) and return the warning ({@link invalidToolArgumentsWarning}), or undefined when every call's
 * arguments are valid (then `t` is left as it is).
 * Each call is placed on `t`'s messages: at the raw message and call index when the converted call there has the same
 * tool name (the readers keep one message per raw message), else the first converted call of that name whose
 * arguments do not parse either; else the raw message index alone (the call not told).
 */
export function markToolArguments(t: Trajectory, messages: unknown, shape: ArgumentsShape, scope: string, item: string): ItemWarning | undefined {
  const found = invalidToolArguments(messages, shape);
  if (found.length === 0) return undefined;
  t.tool_arguments_invalid = found.map((f) => placed(t, f));
  return warningOf(found, scope, item);
}

/** One broken call placed on the converted trajectory's messages ({@link markToolArguments}). */
function placed(t: Trajectory, f: InvalidArguments): InvalidToolArguments {
  const out: InvalidToolArguments = { message_index: f.index, name: f.name, field: f.field, problem: f.problem };
  const at = t.messages[f.index]?.tool_calls;
  const j = f.call ?? 0;
  if (at?.[j]?.name === f.name) return { ...out, tool_call_index: j };
  for (const m of t.messages)
    for (const [i, c] of (m.tool_calls ?? []).entries())
      if (c.name === f.name && argumentsProblem(c.arguments) !== undefined) return { ...out, message_index: m.index, tool_call_index: i };
  return out;
}

/** The warning of an item's broken calls `found` (non-empty), naming the first and how many more. */
function warningOf(found: InvalidArguments[], scope: string, item: string): ItemWarning | undefined {
  if (found.length === 0) return undefined;
  const first = found[0];
  const more = found.length > 1 ? ` (and ${found.length - 1} more call(s) of this item, messages ${[...new Set(found.slice(1, 6).map((f) => f.index))].join(", ")})` : "";
  return {
    kind: TOOL_ARGUMENTS_INVALID,
    scope,
    message:
      `${item}: ${first.field} of the call to ${JSON.stringify(first.name)} is not valid JSON (${first.problem})${more}: ` +
      "kept as the agent wrote it and judged as such (its verdicts marked tool_arguments_invalid; errors.jsonl of the run lists every item), but the tool may have rejected the call or never run it; check the input (or the agent's tool-call parsing)",
    item: `${item} message ${first.index}`,
  };
}

/**
 * The `errors.jsonl` record (kind {@link TOOL_ARGUMENTS_INVALID}) listing one trajectory's calls whose arguments are not
 * valid JSON (`Trajectory.tool_arguments_invalid`), or undefined when it has none. The ingest warning aggregates per
 * file and names one item; this record is written for every such trajectory, so the run lists them all. Not an input
 * error: the trajectory is read and labelled (the run's summary leaves the kind out of its error counts).
 */
export function toolArgumentsRecord(t: Trajectory): IngestError | undefined {
  const bad = Array.isArray(t.tool_arguments_invalid) ? t.tool_arguments_invalid : [];
  if (bad.length === 0) return undefined;
  const first = bad[0];
  const more = bad.length > 1 ? `; and ${bad.length - 1} more: ${bad.slice(1, 6).map((b) => b.field).join(", ")}${bad.length > 6 ? ", ..." : ""}` : "";
  const e: IngestError = {
    path: t.source.path,
    kind: TOOL_ARGUMENTS_INVALID,
    message: `trajectory ${t.id}: ${first.field} of the call to ${JSON.stringify(first.name)} is not valid JSON (${first.problem})${more}: labelled as written, its verdicts marked tool_arguments_invalid`,
    trajectory_id: t.id,
    message_index: first.message_index,
  };
  if (t.source.line !== undefined) e.line = t.source.line;
  return e;
}
