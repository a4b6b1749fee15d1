/**
 * One chat completions request: its shape (`ChatRequest`, what the judge controls), its body (`chatRequestBody`,
 * shared by `sendChat` and the Batch API request file) and the token estimate used for tpm pacing.
 */
/** One message of a chat request. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** The fields of one chat completions request that the judge controls. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  response_format?: Record<string, unknown>;
  /** Merged into the request body last (provider-specific fields). */
  extra_body?: Record<string, unknown>;
}

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
