/**
 * The body of a chat completions request, as an object (`chatRequestBody`) or already serialized for another
 * thread (`encodeRequest`), and the token estimate used for tpm pacing. Kept apart from `./transport.ts` (which
 * loads the `openai` client) so the main thread's side of the transport worker stays light at start-up.
 */
import type { ChatRequest } from "./send.js";

/**
 * The JSON body of one chat completions request (the same for `sendChat` and the Batch API request file):
 * `model`, `messages`, `temperature` when set, the token limit under `tokenParam` when set, `response_format`
 * when set, then `extra_body` merged last.
 */
export function chatRequestBody(
  req: ChatRequest,
  maxTokens: number | undefined = req.max_tokens,
  tokenParam: "max_tokens" | "max_completion_tokens" = "max_tokens",
): Record<string, unknown> {
  const body: Record<string, unknown> = { model: req.model, messages: req.messages };
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (maxTokens !== undefined) body[tokenParam] = maxTokens;
  if (req.response_format) body.response_format = req.response_format;
  Object.assign(body, req.extra_body ?? {});
  return body;
}

/** Rough token estimate of a request: characters / 4 of the messages plus the completion allowance. */
export function estimateTokens(req: ChatRequest): number {
  const chars = req.messages.reduce((a, m) => a + m.content.length, 0);
  return Math.ceil(chars / 4) + (req.max_tokens ?? 1024);
}

/**
 * A chat request already serialized: the UTF-8 JSON of `chatRequestBody(req, maxTokens, tokenParam)`, made by the
 * thread that rendered it and handed to the transport worker without a copy (its buffer is transferred). The
 * worker sends the bytes as they are (`client.post` with a raw body) instead of receiving the request as an
 * object and serializing it again. A resend under other token settings (a truncated reply, a server asking for
 * `max_completion_tokens`) re-reads the JSON and changes the token field.
 */
export interface EncodedRequest {
  encoded: Uint8Array;
  /** The token settings the bytes were made with. */
  maxTokens?: number;
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** `estimateTokens` of the request (for tpm pacing). */
  estimate: number;
  /** The request's `max_tokens` before any raise (what `estimateTokens` counted). */
  baseMaxTokens?: number;
}

/** Serialize a request for {@link sendChat} in another thread (see {@link EncodedRequest}). */
export function encodeRequest(req: ChatRequest, tokenParam: "max_tokens" | "max_completion_tokens"): EncodedRequest {
  return {
    encoded: new TextEncoder().encode(JSON.stringify(chatRequestBody(req, req.max_tokens, tokenParam))),
    maxTokens: req.max_tokens,
    tokenParam,
    estimate: estimateTokens(req),
    baseMaxTokens: req.max_tokens,
  };
}

/** The body of an encoded request under other token settings (the token field replaced). */
export function reencode(e: EncodedRequest, maxTokens: number | undefined, tokenParam: "max_tokens" | "max_completion_tokens"): Record<string, unknown> {
  const body = JSON.parse(new TextDecoder().decode(e.encoded)) as Record<string, unknown>;
  delete body.max_tokens;
  delete body.max_completion_tokens;
  if (maxTokens !== undefined) body[tokenParam] = maxTokens;
  return body;
}

