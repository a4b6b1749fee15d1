/**
 * Inspect assistant messages whose text is a provider's content filter speaking, not the agent (red team 39 F).
 *
 * When a provider's filter stops a generation, Inspect still records an assistant message, with `stop_reason`
 * `"content_filter"` on the model output that produced it, and its `content` is what the provider returned: for
 * OpenAI the 400 error's message (`handle_bad_request`: "The response was filtered due to the prompt triggering Azure
 * OpenAI's content management policy..."), for Google the prompt feedback; for others a cut-off text. The log does
 * not say which, and a judge reading that text as the agent's refusal would have verified evidence for a refusal the
 * agent never wrote. So such a message's text is kept as the provider's note beside it (`Message.error`, a
 * `harness_note` part: `../serialize/parts.ts`), shown to the judge as such, evidence for no bucket; its tool calls
 * stay the agent's.
 *
 * The message is found by its `id`: the `output.choices[0].message.id` of a model event (nested events included)
 * whose output's `stop_reason` (or its first choice's) is `content_filter`, and of the sample's own `output`. Logs
 * whose messages carry no ids (Inspect before message ids) cannot be matched: their text stays the agent's.
 */

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The id of the message a model output produced, when that output was stopped by a content filter. */
function filteredId(output: unknown): string | undefined {
  if (!isObj(output)) return undefined;
  const choice = Array.isArray(output.choices) && isObj(output.choices[0]) ? output.choices[0] : undefined;
  if (output.stop_reason !== "content_filter" && choice?.stop_reason !== "content_filter") return undefined;
  const id = isObj(choice?.message) ? choice.message.id : undefined;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function collect(events: unknown, out: Set<string>, depth: number): void {
  if (!Array.isArray(events) || depth > 32) return;
  for (const e of events) {
    if (!isObj(e)) continue;
    if (e.event === "model") {
      const id = filteredId(e.output);
      if (id !== undefined) out.add(id);
    }
    if (Array.isArray(e.events)) collect(e.events, out, depth + 1);
  }
}

/**
 * The ids of the assistant messages of an Inspect sample that a content filter produced (module docstring).
 * @param sample the parsed `EvalSample`; anything else gives an empty set. Never throws.
 */
export function contentFilteredIds(sample: unknown): Set<string> {
  const out = new Set<string>();
  if (!isObj(sample)) return out;
  collect(sample.events, out, 0);
  const own = filteredId(sample.output);
  if (own !== undefined) out.add(own);
  return out;
}
