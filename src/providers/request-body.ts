/**
 * One chat completions request: its shape (`ChatRequest`, what the judge controls), its body (`chatRequestBody`,
 * shared by `sendChat` and the Batch API request file) and the token estimate used for tpm pacing.
 */
/** One message of a chat request. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
  /** An assistant turn's reasoning (DeepSeek `reasoning_content`): sent back only where the provider requires it. */
  reasoning_content?: string;
}

/**
 * What a judge learned about its server's requests and applies to every later one (online and Batch alike), each
 * learned once from a 400 (`./faults.ts`) instead of paid per item:
 */
export interface RequestAdaptations {
  /** The model refuses the system role (o1-mini, Gemma templates): the rubric goes at the top of the first user message. */
  systemAsUser?: boolean;
  /** The `response_format` the server accepts, in place of the judge's (a schema without `strict`, JSON mode; null: none). */
  responseFormat?: Record<string, unknown> | null;
  /** The largest completion budget the server accepts (`max_tokens` is clipped to it). */
  maxTokensCap?: number;
  /** The provider requires each assistant turn's `reasoning_content` on follow-up turns (DeepSeek thinking mode). */
  passReasoning?: boolean;
}

/** The adaptations a server's 400 can ask for (`./faults.ts`, `HTTP_FAULTS`). */
export type AdaptKind = "drop_temperature" | "max_completion_tokens" | "system_as_user" | "schema_fallback" | "lower_max_tokens" | "pass_reasoning";

/**
 * The next `response_format` after the server rejected `current`: a strict schema -> the same schema without
 * `strict`; a schema -> JSON mode (`{type: "json_object"}`); JSON mode -> none (the reply parser finds the object in
 * text). @returns undefined when nothing is left to drop.
 */
export function nextResponseFormat(current: Record<string, unknown> | null | undefined): Record<string, unknown> | null | undefined {
  if (!current) return undefined;
  if (current.type === "json_schema") {
    const js = current.json_schema as Record<string, unknown> | undefined;
    if (js && js.strict) {
      const { strict: _s, ...rest } = js;
      return { type: "json_schema", json_schema: rest };
    }
    return { type: "json_object" };
  }
  return null;
}

/**
 * Apply one adaptation to `a` in place (`value`: the completion cap for `lower_max_tokens`).
 * @returns a sentence saying what changed, or undefined when it was already in force (a resend would get the same 400).
 */
export function applyAdaptation(a: RequestAdaptations, kind: AdaptKind, req: Pick<ChatRequest, "response_format">, value?: number): string | undefined {
  switch (kind) {
    case "system_as_user":
      if (a.systemAsUser) return undefined;
      a.systemAsUser = true;
      return "the model refuses the system role: the rubric is sent at the top of the first user message";
    case "schema_fallback": {
      const cur = a.responseFormat !== undefined ? a.responseFormat : (req.response_format ?? null);
      const next = nextResponseFormat(cur);
      if (next === undefined) return undefined;
      a.responseFormat = next;
      return `the server rejected response_format ${describeFormat(cur)}: sends ${describeFormat(next)}`;
    }
    case "lower_max_tokens":
      if (value === undefined || (a.maxTokensCap !== undefined && a.maxTokensCap <= value)) return undefined;
      a.maxTokensCap = value;
      return `the server accepts at most ${value} completion tokens: max_tokens is clipped to ${value}`;
    case "pass_reasoning":
      if (a.passReasoning) return undefined;
      a.passReasoning = true;
      return "the provider requires the assistant's reasoning_content on follow-up turns: sent back";
    default:
      return undefined;
  }
}

function describeFormat(f: Record<string, unknown> | null | undefined): string {
  if (!f) return "none";
  if (f.type === "json_schema") return (f.json_schema as { strict?: unknown } | undefined)?.strict ? "json_schema (strict)" : "json_schema";
  return String(f.type);
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
  /** What the judge learned about its server (applied by {@link chatRequestBody}). */
  adapt?: RequestAdaptations;
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
  adapt: RequestAdaptations | undefined = req.adapt,
): Record<string, unknown> {
  const a = adapt ?? {};
  let messages = req.messages.map((m) =>
    m.reasoning_content !== undefined && !(a.passReasoning && m.role === "assistant") ? { role: m.role, content: m.content } : m,
  );
  if (a.systemAsUser) {
    const sys = messages.filter((m) => m.role === "system").map((m) => m.content);
    messages = messages.filter((m) => m.role !== "system");
    const first = messages.findIndex((m) => m.role === "user");
    if (sys.length && first >= 0) messages[first] = { ...messages[first], content: `${sys.join("\n\n")}\n\n${messages[first].content}` };
  }
  const body: Record<string, unknown> = { model: req.model, messages };
  if (req.temperature !== undefined) body.temperature = req.temperature;
  const mt = maxTokens !== undefined && a.maxTokensCap !== undefined ? Math.min(maxTokens, a.maxTokensCap) : maxTokens;
  if (mt !== undefined) body[tokenParam] = mt;
  const rf = a.responseFormat !== undefined ? a.responseFormat : req.response_format;
  if (rf) body.response_format = rf;
  Object.assign(body, req.extra_body ?? {});
  return body;
}

/** Rough token estimate of a request: characters / 4 of the messages plus the completion allowance. */
export function estimateTokens(req: ChatRequest): number {
  const chars = req.messages.reduce((a, m) => a + m.content.length + (m.reasoning_content?.length ?? 0), 0);
  return Math.ceil(chars / 4) + (req.max_tokens ?? 1024);
}
