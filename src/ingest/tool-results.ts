/**
 * Tool results that answer no call: a `role: "tool"` message whose `tool_call_id` names no tool call made before it
 * (new user 35, L1: `tool_call_id: "t9"` after a call `t1` was accepted silently, and the prompt showed the result
 * with no tool name). The item is kept (its text is still what the agent received) and a warning names the file,
 * line and message index, the id and the calls there were.
 */
import type { Message } from "../types.js";
import type { ItemWarning } from "./warnings.js";

/** Kind of the warning for a tool result whose `tool_call_id` matches no call. */
export const TOOL_CALL_ID_UNMATCHED = "tool_call_id_unmatched";

/** One tool result whose id matches no earlier call: its message index, its id, the call ids made before it. */
export interface UnmatchedToolResult {
  index: number;
  id: string;
  calls: string[];
}

/** The tool results of canonical messages whose `tool_call_id` matches no tool call made before them, in order. */
export function unmatchedToolResults(messages: readonly Message[]): UnmatchedToolResult[] {
  const calls: string[] = [];
  const out: UnmatchedToolResult[] = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) if (c.id !== undefined) calls.push(c.id);
    if (m.role === "tool" && m.tool_call_id !== undefined && !calls.includes(m.tool_call_id)) out.push({ index: m.index, id: m.tool_call_id, calls: [...calls] });
  }
  return out;
}

/**
 * The warning (one per item, aggregated per file by the reader) for its unmatched tool results, or undefined.
 * @param scope the file; @param item the item as named in messages (`file:line`, or an Inspect sample).
 */
export function unmatchedToolResultWarning(messages: readonly Message[], scope: string, item: string): ItemWarning | undefined {
  const found = unmatchedToolResults(messages);
  if (found.length === 0) return undefined;
  const first = found[0];
  const calls = first.calls.length ? `the calls before it: ${first.calls.slice(-5).map((c) => JSON.stringify(c)).join(", ")}` : "no call before it has an id";
  const more = found.length > 1 ? ` (and ${found.length - 1} more tool result(s) of this item, messages ${found.slice(1, 6).map((f) => f.index).join(", ")})` : "";
  return {
    kind: TOOL_CALL_ID_UNMATCHED,
    scope,
    message:
      `${item}: messages[${first.index}] is a tool result whose tool_call_id ${JSON.stringify(first.id)} matches no tool call (${calls})${more}: ` +
      "kept, but the judge sees it with no tool name and cannot tell which call it answers; fix the id in the input",
    item: `${item} message ${first.index}`,
  };
}
