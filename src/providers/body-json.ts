/**
 * The JSON text of a chat completions request body, byte-identical to `JSON.stringify(body)` (what the `openai`
 * client's default encoder sends), with the JSON of the system message's content kept from one request to the next.
 *
 * Why: every request of a judge sends the same rubric as its system message (~7 KB of text, about half of a
 * request's bytes), and the client re-encoded it for every request (`JSON.stringify` of the whole body: ~1.3% of
 * `label`'s CPU at 300 ms / 64, issue 26). Here only what changes (the user message, feedback turns) is encoded.
 */

/** Most distinct system message contents remembered (a run has one per judge and adaptation). */
const MAX_SYSTEM_TEXTS = 8;

/**
 * A serializer of request bodies for one judge (`./sender.ts`): call it with a body as `chatRequestBody`
 * (`./request-body.ts`) builds it.
 * @returns `(body) => string`, equal to `JSON.stringify(body)` for every plain JSON object: keys in the order
 *   `JSON.stringify` takes them (`Object.keys`), `undefined` and function values left out, every leaf encoded by
 *   `JSON.stringify` itself; only a system message's `content` string is looked up in the memo (by value).
 */
export function bodyJsonEncoder(): (body: Record<string, unknown>) => string {
  const systemJson = new Map<string, string>();
  const contentJson = (role: unknown, content: string): string => {
    if (role !== "system") return JSON.stringify(content);
    let j = systemJson.get(content);
    if (j === undefined) {
      j = JSON.stringify(content);
      if (systemJson.size >= MAX_SYSTEM_TEXTS) systemJson.clear();
      systemJson.set(content, j);
    }
    return j;
  };
  const message = (m: unknown): string | undefined => {
    if (m === null || typeof m !== "object" || Array.isArray(m) || typeof (m as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(m);
    const o = m as Record<string, unknown>;
    return object(o, (k, v) => (k === "content" && typeof v === "string" ? contentJson(o.role, v) : JSON.stringify(v)));
  };
  return (body) =>
    object(body, (k, v) => {
      if (k !== "messages" || !Array.isArray(v)) return JSON.stringify(v);
      const parts: string[] = [];
      // JSON.stringify writes null for an array element that has no JSON (undefined, a function)
      for (const m of v) parts.push(message(m) ?? "null");
      return `[${parts.join(",")}]`;
    });
}

/** `{"key":value,...}` of a plain object's own enumerable keys in order, values by `value` (undefined: left out). */
function object(o: Record<string, unknown>, value: (k: string, v: unknown) => string | undefined): string {
  let out = "{";
  for (const k of Object.keys(o)) {
    const j = value(k, o[k]);
    if (j === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(k)}:${j}`;
  }
  return `${out}}`;
}
