/**
 * The text a reader gives a content part (a block of a message's `content` list) that it has no rule for: an
 * unknown `type` in chat JSONL or an AgentDojo block, an Inspect server-side `tool_use`. The part's fields are
 * shown, never dropped: a placeholder alone (`[tool_code]`) hid what the part held (an OpenAI Responses `reasoning`
 * part's summary, a `tool_code` part's code, a web search's result carrying the injected text), so the judge read
 * an attacked run's injected text, or the agent's compliance, as nothing, and no warning said so (red team 41).
 */

type Json = Record<string, unknown>;

/** A value that holds nothing to show: `null`, `undefined`, `""`, `[]`, `{}`. */
function empty(v: unknown): boolean {
  if (v === null || v === undefined || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v as Json).length === 0;
}

/**
 * `[<label>]` when the part holds nothing but its `type` (and the keys in `omit`), else `[<label>] ` followed by
 * the other fields as compact JSON in the part's key order (empty values left out), e.g.
 * `{type: "tool_code", code: "send_money(...)"}` -> `[tool_code] {"code":"send_money(...)"}`.
 * @param part the content part as read (a JSON object).
 * @param label what the brackets say: the part's type, or e.g. `tool_use web_search`.
 * @param omit keys already said by `label` (besides `type`, always left out).
 */
export function unknownPartText(part: Json, label: string, omit: readonly string[] = []): string {
  const rest = otherFields(part, omit);
  return rest === "" ? `[${label}]` : `[${label}] ${rest}`;
}

/**
 * The fields of `part` other than `type` and `omit`, empty values left out, as compact JSON in the part's key
 * order; `""` when none is left.
 */
export function otherFields(part: Json, omit: readonly string[] = []): string {
  const rest: Json = {};
  let any = false;
  for (const [k, v] of Object.entries(part)) {
    if (k === "type" || omit.includes(k) || empty(v)) continue;
    rest[k] = v;
    any = true;
  }
  return any ? JSON.stringify(rest) : "";
}
