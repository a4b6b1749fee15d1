/**
 * A `.json` file that is a chat trajectory (OpenAI-style messages, chat JSONL's line shape), read as an AgentDojo run
 * because of its extension, fails AgentDojo's schema (`tool_calls[0].function: must be string (got object)`: AgentDojo
 * names the function by a string). New user 35, L2: the error said nothing of why. When the file holds what a chat
 * JSONL line holds, the error says so and how to read it.
 */
import { checkSchema } from "./schema.js";
import type { ConvertResult } from "./warnings.js";

/**
 * The clause appended to an AgentDojo read error when the parsed file is a chat trajectory, else "".
 * @param value the parsed file; @param text its text (one line or several: the advice differs).
 */
export function chatShapeHint(value: unknown, text: string): string {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Array.isArray((value as { messages?: unknown }).messages) || (value as { messages: unknown[] }).messages.length === 0) return "";
  if (!checkSchema("chat-jsonl", value).ok) return "";
  const oneLine = !text.trim().includes("\n");
  return (
    "; the file is a chat trajectory (OpenAI-style messages, the shape of a chat JSONL line), not an AgentDojo run, which a .json file is read as: " +
    (oneLine
      ? "read it with --format chat-jsonl, or save it with a .jsonl extension"
      : "write it as one line of a .jsonl file (e.g. jq -c . in.json > in.jsonl), then label that (or pass --format chat-jsonl once it is one line)")
  );
}

/**
 * An AgentDojo conversion's result, its `schema` error carrying {@link chatShapeHint} when the file is a chat
 * trajectory (every path that reads a `.json` file as AgentDojo goes through it).
 */
export function withChatShapeHint(r: ConvertResult, value: unknown, text: string): ConvertResult {
  if (r.ok || r.error.kind !== "schema") return r;
  const hint = chatShapeHint(value, text);
  return hint === "" ? r : { ok: false, error: { ...r.error, message: r.error.message + hint } };
}
