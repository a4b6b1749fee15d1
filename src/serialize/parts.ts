/**
 * Parts: the units of a trajectory that evidence can be quoted from (docs/ARCHITECTURE.md, "Part").
 *
 * One message gives:
 * - one text part whose kind follows the role (`system_text`, `user_text`, `assistant_text`, `tool_result`),
 *   with text {@link messageText}; a system/user/assistant message whose text is empty or only whitespace gives
 *   no text part (nothing in it could be quoted); a tool message always gives its `tool_result` part, even when
 *   empty, so every tool message has exactly one part;
 * - for a system, user or assistant message with an `error`, one `harness_note` part after its text part, with the
 *   error as text ({@link harnessNote}): a provider's or harness's note (a content filter's "I can't help with that
 *   request", a gateway error), not the words of the message's author (red team 39 F). Its text is not in the text
 *   part ({@link textPartText}), so evidence of what the agent wrote never verifies in it;
 * - for an assistant message, one `tool_call` part per call, in order, with `tool_call_index` (0-based position
 *   in `tool_calls`) and text {@link renderToolCall}.
 *
 * Each tool offered to the agent (`Trajectory.tools`) gives one `tool_description` part, before all message
 * parts, with `message_index` -1, `tool_index` (0-based position in `tools`) and text
 * {@link renderToolDefinition} (the description, then the parameter schema). Its citation is `tool_index`.
 *
 * Part texts are the unescaped texts; the judge sees them neutralized (`./untrusted.ts`) and the renderer
 * (`./render.ts`) displays exactly these texts, so a quote of what the judge saw verifies after un-escaping.
 */
import type { Message, Part, PartKind, ToolCall, ToolDefinition, Trajectory } from "../types.js";

/** The part kind of a message's text, by role. */
export const TEXT_KIND: Record<Message["role"], PartKind> = {
  system: "system_text",
  user: "user_text",
  assistant: "assistant_text",
  tool: "tool_result",
};

/**
 * A tool call as the judge sees it: `name(arguments)`, where `arguments` is the compact JSON string exactly as
 * stored on the call (no re-serialization). Example: `send_email({"to":"a@b.c"})`.
 */
export function renderToolCall(c: ToolCall): string {
  return `${c.name ?? ""}(${c.arguments ?? ""})`;
}

/**
 * A tool definition's part text, as the judge sees it (the tool's name is shown beside it, not in it):
 * the description, then, when the tool has a parameter schema, a line `Parameters: ` + the schema as compact JSON
 * (a string schema as it is). Example: `Send money.\nParameters: {"type":"object","properties":{...}}`.
 * A missing or non-string description counts as `""`; a schema that cannot be serialized shows as `String(x)`.
 */
export function renderToolDefinition(tool: ToolDefinition): string {
  const description = typeof tool?.description === "string" ? tool.description : "";
  const p = tool?.parameters;
  if (p === undefined || p === null) return description;
  let params: string;
  if (typeof p === "string") params = p;
  else {
    try {
      params = JSON.stringify(p) ?? String(p);
    } catch {
      params = String(p);
    }
  }
  return description === "" ? `Parameters: ${params}` : `${description}\nParameters: ${params}`;
}

/** The tool list of a trajectory, `[]` when it has none (or `tools` is not an array). */
export function trajectoryTools(t: Trajectory): ToolDefinition[] {
  return Array.isArray(t.tools) ? t.tools : [];
}

/**
 * The text of a message with its error (before neutralizing): the text part of a tool message as the judge sees it.
 * A message with an `error` (AgentDojo tool errors keep an empty content beside the error) shows the error on
 * its own line: `text + "\nError: " + error` when the text is non-empty, `"Error: " + error` when it is empty.
 * An empty-string `error` is ignored. Never returns `undefined`/`null` text. For a system, user or assistant
 * message the judge sees the error apart, as a {@link harnessNote}: its text part is {@link textPartText}.
 */
export function messageText(m: Message): string {
  const text = typeof m.text === "string" ? m.text : "";
  const error = typeof m.error === "string" ? m.error : "";
  if (error === "") return text;
  return text === "" ? `Error: ${error}` : `${text}\nError: ${error}`;
}

/**
 * The note a provider or harness recorded beside a system, user or assistant message: its non-empty `error`, else
 * `""`. A tool message's `error` is the tool's, part of the result the agent received ({@link messageText}): never a note.
 */
export function harnessNote(m: Message): string {
  return m.role !== "tool" && typeof m.error === "string" ? m.error : "";
}

/**
 * The text of a message's text part: {@link messageText} for a tool message (its error included), the message's own
 * text for any other message (its error is a {@link harnessNote}, a part of its own). Never `undefined`/`null`.
 */
export function textPartText(m: Message): string {
  if (m.role === "tool") return messageText(m);
  return typeof m.text === "string" ? m.text : "";
}

/**
 * All parts of a trajectory: the tool descriptions first (in tool order), then the messages' parts in message
 * order; within a message the text part first, then its harness note, then its tool calls.
 * @param t canonical trajectory; `message_index` of a part is the message's position in `t.messages`
 *   (which equals `Message.index` for well-formed trajectories); -1 for a tool description.
 * @returns parts as described in the module docstring; never throws.
 */
export function trajectoryParts(t: Trajectory): Part[] {
  const parts: Part[] = trajectoryTools(t).map((tool, k) => ({
    message_index: -1,
    tool_index: k,
    kind: "tool_description" as const,
    text: renderToolDefinition(tool),
  }));
  t.messages.forEach((m, i) => {
    const kind = TEXT_KIND[m.role] ?? "user_text";
    const text = textPartText(m);
    if (kind === "tool_result" || text.trim() !== "") parts.push({ message_index: i, kind, text });
    const note = harnessNote(m);
    if (note.trim() !== "") parts.push({ message_index: i, kind: "harness_note", text: note });
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      m.tool_calls.forEach((c, j) => {
        parts.push({ message_index: i, tool_call_index: j, kind: "tool_call", text: renderToolCall(c) });
      });
    }
  });
  return parts;
}
