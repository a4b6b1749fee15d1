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
import { parseJson } from "./text.js";

/** Kind of the warning for a tool call whose arguments are not valid JSON. */
export const TOOL_ARGUMENTS_INVALID = "tool_arguments_invalid";

/** The input shapes whose tool calls are checked. */
export type ArgumentsShape = "openai" | "inspect" | "agentdojo";

/** One tool call with broken arguments: its message index, the field as the schema errors name it, the tool, why. */
export interface InvalidArguments {
  index: number;
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
function callProblem(c: unknown, index: number, at: string, shape: ArgumentsShape): InvalidArguments | undefined {
  if (!isObj(c)) return undefined;
  if (shape === "openai") {
    if (c.type === "custom" || !isObj(c.function)) return undefined; // a custom call's input is free text
    const problem = argumentsProblem(c.function.arguments);
    return problem === undefined ? undefined : { index, field: `messages[${index}].${at}.function.arguments`, name: String(c.function.name), problem };
  }
  const key = shape === "inspect" ? "arguments" : "args";
  const problem = argumentsProblem(c[key]) ?? (shape === "inspect" && typeof c.parse_error === "string" && c.parse_error.trim() !== "" ? `Inspect's parse_error: ${c.parse_error}` : undefined);
  return problem === undefined ? undefined : { index, field: `messages[${index}].${at}.${key}`, name: String(c.function), problem };
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
        const p = callProblem(c, index, `tool_calls[${j}]`, shape);
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
  const found = invalidToolArguments(messages, shape);
  if (found.length === 0) return undefined;
  const first = found[0];
  const more = found.length > 1 ? ` (and ${found.length - 1} more call(s) of this item, messages ${[...new Set(found.slice(1, 6).map((f) => f.index))].join(", ")})` : "";
  return {
    kind: TOOL_ARGUMENTS_INVALID,
    scope,
    message:
      `${item}: ${first.field} of the call to ${JSON.stringify(first.name)} is not valid JSON (${first.problem})${more}: ` +
      "kept as the agent wrote it and judged as such, but the tool may have rejected the call or never run it; check the input (or the agent's tool-call parsing)",
    item: `${item} message ${first.index}`,
  };
}
