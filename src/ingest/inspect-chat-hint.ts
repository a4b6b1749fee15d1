/**
 * An Inspect sample whose messages are written in OpenAI's chat shape (a tool call as `{id, type: "function",
 * function: {name, arguments: "<JSON text>"}}`, an assistant's `content: null`) fails Inspect's schema
 * (`tool_calls[0].function: must be string (got object)`): Inspect's ChatMessageAssistant names the function by a
 * string and gives the arguments as an object. New user 48: the error was precise but did not say which shape the
 * messages were in, as the hint for a chat trajectory saved as `.json` does (./chat-shape.ts).
 */

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The clause appended to an Inspect sample's schema error when one of its messages holds an OpenAI chat-shaped tool
 * call (`function` an object with a string `name`), else "".
 * @param sample the parsed sample (`samples[i]` of a `.json` log, or a `.eval` zip's sample entry).
 */
export function inspectChatShapeHint(sample: unknown): string {
  const messages = isObj(sample) && Array.isArray(sample.messages) ? sample.messages : [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const calls = isObj(m) && Array.isArray(m.tool_calls) ? m.tool_calls : [];
    for (let k = 0; k < calls.length; k++) {
      const c = calls[k];
      if (isObj(c) && isObj(c.function) && typeof c.function.name === "string") {
        return (
          `; messages[${i}].tool_calls[${k}] is in OpenAI's chat shape (function: {name, arguments: "<JSON text>"}), not Inspect's: ` +
          `an Inspect log's tool call is {id, function: "name", arguments: {...}} (arguments an object) and an assistant's content a string or a list, never null; ` +
          `write the messages as Inspect does, or write each trajectory as a line of chat JSONL (--format chat-jsonl), which reads OpenAI's shape`
        );
      }
    }
  }
  return "";
}
