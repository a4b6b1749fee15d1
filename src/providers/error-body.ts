/**
 * Error bodies as servers write them, put in OpenAI's envelope so the `openai` client keeps the reason (issue 23):
 * the client reads only `body.error`, and a body without it became "400 status code (no body)". Used by the
 * client's fetch (`./fetch.ts`) for every chat completion error, and for Batch result lines (`./classify.ts`).
 */

/**
 * An error body in OpenAI's envelope `{error: {message, type, code, ...}}`: an envelope as is; vLLM's
 * `{"object": "error", "message", "type", "code"}` (Mistral's too, with `message` an object), FastAPI's `{"detail": ...}`,
 * a bare `{"message": ...}` wrapped;
 * a string error (`{"error": "model not found"}`, Ollama) as `{error: {message}}`.
 * @returns the envelope, or the body unchanged when it is not an object.
 */
export function errorEnvelope(body: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const o = body as Record<string, unknown>;
  if (typeof o.error === "string") return { ...o, error: { message: o.error } };
  if (o.error && typeof o.error === "object") return body;
  const detail = o.detail;
  const message =
    typeof o.message === "string"
      ? o.message
      : o.message !== undefined && o.message !== null
        ? JSON.stringify(o.message)
        : typeof detail === "string"
        ? detail
        : detail !== undefined
          ? JSON.stringify(detail)
          : undefined;
  if (message === undefined) return body;
  const { object: _object, ...rest } = o;
  return { error: { ...rest, message } };
}
