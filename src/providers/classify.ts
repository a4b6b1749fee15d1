/**
 * The one classifier of a chat completion into an outcome, shared by the online path (`./send.ts`) and the Batch
 * API path (`./batch-results.ts`, driven by `../run/batch.ts`): both read the same reply the same way (issue 23,
 * "one classifier"). Failed requests (an HTTP status, with its error body) go through the one status table of
 * `./faults.ts` (`HTTP_FAULTS`) on both paths too: a batch result line's error is made into the same `APIError` the
 * client throws online ({@link batchLineError}).
 *
 * | reply (HTTP 200) | outcome |
 * |---|---|
 * | a top-level `error`, or a first choice with `finish_reason: "error"` / an `error` of its own | `transient` (`provider_error`; a 429 there cuts concurrency) |
 * | not JSON, no `choices[0].message` | `invalid` (`invalid_response`) |
 * | `message.refusal` set, or `finish_reason: "content_filter"` | `refused` with the provider's reason |
 * | `content` a list of chunks (Mistral Magistral: `thinking` and `text` chunks; `output_text` parts) | the `text` chunks joined in order are the reply; `thinking` chunks are reasoning (kept for audit, never parsed) |
 * | reported `prompt_tokens` (256 or more: a context window) below what was sent: under 0.8 x our own count for a model whose tokenizer we know (`./tokens.ts`, exact o200k / cl100k; prompts of 1,000 tokens or more), else under 0.7 x the o200k_base count or under characters / 6 (prompts of 8,000 characters or more); Ollama cuts a prompt to `num_ctx` and answers anyway | `final` error `prompt_truncated` (no label; the judge is flagged with the fix) |
 * | content empty, the text in `reasoning_content` / `reasoning`, not cut | `final` error `reasoning_only` |
 * | `finish_reason: "length"` with a reply the judge can use whole (`isComplete`: it parses into a verdict) | `reply`, the finish reason recorded (`notes`): mlx-lm and others say "length" on complete replies |
 * | `finish_reason: "length"` otherwise, or content empty/null | `cut` (resend once with a larger budget, then `truncated` / `empty_response`) |
 * | otherwise | `reply` |
 */
import OpenAI from "openai";
import { providerFault, reasoningText, type InBandFault } from "./faults.js";
import { errorEnvelope } from "./error-body.js";
import { countPromptTokens, tokenizerFor } from "./tokens.js";
export { errorEnvelope } from "./error-body.js";

/** What the caller knows that the reply alone does not say. */
export interface ReplyContext {
  /** Whether a content cut with `finish_reason: "length"` is nonetheless a complete reply (the judge's parse). */
  isComplete?: (content: string) => boolean;
  /** Characters of the prompt sent (all messages): the conservative bound for an unknown tokenizer is `characters / 6`. */
  promptChars?: number;
  /** Our own count of the prompt's tokens (all messages), when the model's tokenizer is known (`./tokens.ts`): exact. */
  promptTokens?: number;
  /**
   * When the model's tokenizer is unknown: the prompt's o200k_base count, a reference that other models' tokenizers
   * rarely undercut by much (see {@link REFERENCE_TRUNCATION_RATIO}).
   */
  promptTokensReference?: number;
  /**
   * Instead of `promptTokens` / `promptTokensReference`: the count, done only when the reply's reported prompt
   * tokens look short ({@link LazyPromptCount}, {@link lazyPromptSize}).
   */
  promptCount?: LazyPromptCount;
  /** The model the request asked for: a reply naming another is noted (`./served-model.ts`). */
  model?: string;
}

/**
 * A prompt's token count taken only when needed: `exact` says whether `count()` is the model's own tokenizer
 * (`promptTokens`) or the o200k_base reference (`promptTokensReference`). Counting a ~10k-character prompt costs
 * ~1 ms of CPU, as much as the rest of the request's own work (issue 26), and a reply whose reported count is
 * plausible (above ratio x characters / {@link DENSEST_CHARS_PER_TOKEN}) cannot be flagged by it.
 */
export interface LazyPromptCount {
  exact: boolean;
  count: () => number;
}

/** What one chat completion (HTTP 200) is. */
export type ReplyClass =
  | { kind: "reply"; content: string; finishReason: string | null; reasoning?: string; notes: string[] }
  | { kind: "refused"; message: string }
  /** A provider failure inside the 200: retry like a 5xx. */
  | { kind: "transient"; fault: InBandFault }
  /** Not a chat completion. */
  | { kind: "invalid"; message: string }
  /** A named error, no resend (the same would come back). */
  | { kind: "final"; errorKind: "reasoning_only" | "prompt_truncated"; message: string }
  /** Cut at the token limit or empty: one resend with a larger budget, then this error. */
  | { kind: "cut"; errorKind: "truncated" | "empty_response"; finishReason: string | null; toolCalls?: string[] };

/**
 * For a model whose tokenizer we do not know: tokens are at most this many characters each on the prompts we send
 * (English and JSON run at 3-4.5 characters per token in the tokenizers we meet; 6 is a conservative floor count).
 */
export const MAX_CHARS_PER_TOKEN = 6;
/**
 * For a model whose tokenizer we know (exact count of what we sent): reported prompt tokens below this share of our
 * count mean the server did not read the whole prompt. A server adds tokens (its chat template, the schema of
 * `response_format`), it never reads fewer than it was sent; 0.8 leaves room for a template that counts differently.
 */
export const PROMPT_TRUNCATION_RATIO = 0.8;
/**
 * For a model whose tokenizer we do not have: a reported count under this share of the prompt's o200k_base count is
 * a cut. o200k_base is among the most compact tokenizers for English and JSON; the open models' tokenizers (Llama 3,
 * Qwen, Mistral, Gemma, DeepSeek) count the same text at roughly 0.9x to 1.4x of it, so 0.7 leaves a margin while
 * catching an Ollama `num_ctx` of 2048 under a 3,000-token prompt, which `characters / 6` misses.
 */
export const REFERENCE_TRUNCATION_RATIO = 0.7;
/**
 * The fewest characters per o200k_base token the judge prompts we send are assumed to hold: the whole request
 * (rubric and rendered trajectory) measured 3.29 at the least and 4.0-4.2 at the median over ~1,400 prompts of
 * the shared corpora (AgentDojo, its defenses, AgentDyn, VIGIL; 2026-12-02). So our count is at most
 * characters / 3, and a report at or above ratio x characters / 3 cannot be a cut: the count is then skipped
 * ({@link LazyPromptCount}). A prompt denser than that (mostly hex or CJK text) is checked only when its report
 * is under that bound; the `characters / 6` floor still applies to it.
 */
export const DENSEST_CHARS_PER_TOKEN = 3;
/** Prompts shorter than this (characters) are not checked by the characters-based bound (a rubric alone is ~10k characters). */
export const PROMPT_TRUNCATION_MIN_CHARS = 8000;
/** Prompts of fewer tokens than this (our exact count) are not checked. */
export const PROMPT_TRUNCATION_MIN_TOKENS = 1000;
/**
 * Reports under this many prompt tokens are not read as a cut: no context window is that small (Ollama's default
 * is 2048 or more), so such a figure is a server that does not count tokens, not one that cut the prompt.
 */
export const PROMPT_TRUNCATION_MIN_REPORTED = 256;

/**
 * The text of a message's `content`: a string as is; a list of chunks (Mistral's `{type: "text", text}` and
 * `{type: "thinking", thinking: [...]}`, OpenAI-style `{type: "output_text" | "text", text}`) as the `text` chunks
 * joined in order, with the thinking chunks' text apart; anything else `null`.
 * @returns `{text, thinking}`; `text` null when there is no text at all.
 */
export function contentText(content: unknown): { text: string | null; thinking?: string } {
  if (typeof content === "string") return { text: content };
  if (!Array.isArray(content)) return { text: null };
  const text: string[] = [];
  const thinking: string[] = [];
  const flat = (x: unknown): string =>
    typeof x === "string" ? x : Array.isArray(x) ? x.map(flat).join("") : x && typeof x === "object" && typeof (x as { text?: unknown }).text === "string" ? (x as { text: string }).text : "";
  for (const c of content) {
    if (typeof c === "string") {
      text.push(c);
      continue;
    }
    if (!c || typeof c !== "object") continue;
    const o = c as { type?: unknown; text?: unknown; thinking?: unknown; reasoning?: unknown };
    if (o.type === "thinking" || o.type === "reasoning") thinking.push(flat(o.thinking ?? o.reasoning ?? o.text));
    else if ((o.type === "text" || o.type === "output_text" || o.type === undefined) && typeof o.text === "string") text.push(o.text);
  }
  const th = thinking.join("");
  return { text: text.length ? text.join("") : null, ...(th.trim() !== "" ? { thinking: th } : {}) };
}

import { chosenChoice } from "./choice.js";
import { servedModelNote } from "./served-model.js";

/** A body of server-sent events carrying chat completion chunks (`data: {"id":...,"object":"chat.completion.chunk"`). */
const STREAMED_RE = /^\s*(?::[^\n]*\n\s*)*data:\s*[{[]/;

/** Whether a 200's body (as the client hands on a body that is not JSON: a string) is server-sent events of chunks. */
export function isStreamedBody(completion: unknown): completion is string {
  return typeof completion === "string" && STREAMED_RE.test(completion);
}

/** What a streamed answer to a request that asked for none means, said in the `invalid_response` message. */
export const STREAMED_NOTE =
  "the server streamed its answer as server-sent events although the request did not ask for a stream (a proxy or server setting that forces streaming; the judge needs one JSON chat completion per request)";

/**
 * Classify one chat completion body (what a 200 carried; a string when it was not JSON).
 * @param completion the parsed body.
 * @param ctx what the caller knows (see {@link ReplyContext}).
 * @returns the {@link ReplyClass} (module table). Never throws.
 */
export function classifyCompletion(completion: unknown, ctx: ReplyContext = {}): ReplyClass {
  const inBand = providerFault(completion);
  if (inBand) return { kind: "transient", fault: inBand };
  // several choices: the one with index 0 is read, and the reply notes it (red team 31 L3c)
  const { choice, note: choiceNote } = chosenChoice(completion);
  const served = servedModelNote(ctx.model, completion);
  const withNote = (notes: string[]) => [...notes, ...(choiceNote ? [choiceNote] : []), ...(served ? [served] : [])];
  if (!choice || typeof choice !== "object" || !(choice as { message?: unknown }).message || typeof (choice as { message?: unknown }).message !== "object") {
    const text = typeof completion === "string" ? completion : JSON.stringify(completion ?? null);
    // red team 27 (L10b): a server that streams (server-sent events) though no stream was asked for
    const why = typeof completion !== "string" ? "no choices[0].message" : STREAMED_RE.test(text) ? `not JSON: ${STREAMED_NOTE}` : "not JSON";
    return { kind: "invalid", message: `HTTP 200 but the body is not a chat completion (${why}): ${text.slice(0, 500)}` };
  }
  const c = choice as { finish_reason?: unknown; message: { content?: unknown; refusal?: unknown } };
  const finishReason = typeof c.finish_reason === "string" ? c.finish_reason : null;
  if (typeof c.message.refusal === "string" && c.message.refusal.trim() !== "") return { kind: "refused", message: c.message.refusal };
  if (finishReason === "content_filter") return { kind: "refused", message: "the provider's content filter stopped the reply (finish_reason content_filter)" };
  const truncation = promptTruncation((completion as { usage?: unknown }).usage, ctx.promptChars, ctx.promptTokens, ctx.promptTokensReference, ctx.promptCount);
  if (truncation) return { kind: "final", errorKind: "prompt_truncated", message: truncation };
  const { text, thinking } = contentText(c.message.content);
  const reasoning = reasoningText(c.message) ?? thinking;
  const empty = text === null || text.trim() === "";
  const length = finishReason === "length";
  if (!length && empty && reasoning !== undefined)
    return {
      kind: "final",
      errorKind: "reasoning_only",
      message:
        `the reply's content is empty and its text (${reasoning.length} characters) is in the message's reasoning field: ` +
        `the model answered in its reasoning; ${reasoning.slice(0, 200)}`,
    };
  if (empty) {
    // an answer put in a function call (a server template that forces tool calling): named, not "empty" (red team 26)
    const calls = (c.message as { tool_calls?: unknown }).tool_calls;
    const toolCalls = Array.isArray(calls) ? calls.map((x) => String((x as { function?: { name?: unknown } })?.function?.name ?? "?")) : [];
    return { kind: "cut", errorKind: length ? "truncated" : "empty_response", finishReason, ...(toolCalls.length ? { toolCalls } : {}) };
  }
  if (length) {
    if (ctx.isComplete?.(text!))
      return { kind: "reply", content: text!, finishReason, ...(reasoning ? { reasoning } : {}), notes: withNote(['finish_reason "length" on a complete reply (it parses whole): taken as the reply']) };
    return { kind: "cut", errorKind: "truncated", finishReason };
  }
  return { kind: "reply", content: text!, finishReason, ...(reasoning ? { reasoning } : {}), notes: withNote([]) };
}

/**
 * Characters of text a chat completion's chosen choice holds (content, reasoning, refusal, tool call arguments;
 * whitespace at the ends not counted): a reply with any is at least one completion token (`readUsage`'s `replyChars`).
 */
export function replyChars(completion: unknown): number {
  const m = (chosenChoice(completion).choice as { message?: unknown } | undefined)?.message as
    | { content?: unknown; refusal?: unknown; tool_calls?: unknown }
    | undefined;
  if (!m || typeof m !== "object") return 0;
  const { text, thinking } = contentText(m.content);
  let n = (text ?? "").trim().length + (thinking ?? "").trim().length + (reasoningText(m)?.trim().length ?? 0);
  if (typeof m.refusal === "string") n += m.refusal.trim().length;
  if (Array.isArray(m.tool_calls)) for (const c of m.tool_calls) n += String((c as { function?: { arguments?: unknown } })?.function?.arguments ?? "").trim().length;
  return n;
}

/** The words {@link emptyReplyMessage} uses for a reply that called a tool: how the judge's stop message finds one. */
export const CALLED_A_TOOL = "called a tool instead";

/**
 * The `empty_response` message of a reply cut with no content (`cut` with errorKind `empty_response`), the same on the
 * online and the Batch path: it names the tool calls a reply made instead of answering (red team 26), else the
 * finish_reason.
 */
export function emptyReplyMessage(c: { finishReason: string | null; toolCalls?: string[] }): string {
  return c.toolCalls
    ? `the reply content was empty and it ${CALLED_A_TOOL} (tool_calls: ${c.toolCalls.slice(0, 3).join(", ")}): the verdict must be in the content; the judge offers no tools, so the server or its chat template forced a function call`
    : `the reply content was empty (finish_reason ${JSON.stringify(c.finishReason)})`;
}

/**
 * Whether the server read less of the prompt than was sent. The reported prompt tokens (plus cached ones, where a
 * provider counts them apart) are compared with our own count when the model's tokenizer is known (`promptTokens`:
 * cut when under {@link PROMPT_TRUNCATION_RATIO} of it, for prompts of {@link PROMPT_TRUNCATION_MIN_TOKENS} or
 * more), else with the conservative floor `promptChars / 6` ({@link MAX_CHARS_PER_TOKEN}, for prompts of
 * {@link PROMPT_TRUNCATION_MIN_CHARS} characters or more). Reports under {@link PROMPT_TRUNCATION_MIN_REPORTED}
 * are not read as a cut.
 * @param usage the reply's `usage` field.
 * @param promptChars characters of the messages sent.
 * @param promptTokens our exact count of the messages sent, when the model's tokenizer is known.
 * @param promptTokensReference when it is not: the o200k_base count of the messages sent; a report under
 *   {@link REFERENCE_TRUNCATION_RATIO} of it is a cut too (for prompts of {@link PROMPT_TRUNCATION_MIN_TOKENS} or more).
 * @param lazy instead of the two counts: the count to take when the report is under ratio x `promptChars` /
 *   {@link DENSEST_CHARS_PER_TOKEN} (else the count could not flag it and is skipped).
 * @returns the message of the `prompt_truncated` error, or undefined (also when usage or the size is unknown).
 */
export function promptTruncation(
  usage: unknown,
  promptChars: number | undefined,
  promptTokens?: number,
  promptTokensReference?: number,
  lazy?: LazyPromptCount,
): string | undefined {
  const u = usage as { prompt_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null; prompt_cache_hit_tokens?: unknown } | null;
  if (!u || typeof u !== "object" || typeof u.prompt_tokens !== "number" || !(u.prompt_tokens > 0)) return undefined;
  const cached = u.prompt_tokens_details?.cached_tokens;
  // cached tokens added: where a provider counts them apart the sum is what was read; where they are part of
  // prompt_tokens (OpenAI) the sum errs high, so the check errs toward "not cut"
  const reported = u.prompt_tokens + (typeof cached === "number" && cached > 0 ? cached : 0);
  if (reported < PROMPT_TRUNCATION_MIN_REPORTED) return undefined;
  if (lazy && promptTokens === undefined && promptTokensReference === undefined && promptChars !== undefined) {
    const ratio = lazy.exact ? PROMPT_TRUNCATION_RATIO : REFERENCE_TRUNCATION_RATIO;
    // counted only when the report is under what the densest prompt we send could need (DENSEST_CHARS_PER_TOKEN)
    if (reported < (ratio * promptChars) / DENSEST_CHARS_PER_TOKEN) {
      if (lazy.exact) promptTokens = lazy.count();
      else promptTokensReference = lazy.count();
    }
  }
  let sent: string;
  if (promptTokens !== undefined && Number.isFinite(promptTokens)) {
    if (promptTokens < PROMPT_TRUNCATION_MIN_TOKENS || reported >= PROMPT_TRUNCATION_RATIO * promptTokens) return undefined;
    sent = `${promptTokens} tokens by our count with the model's tokenizer`;
  } else if (
    promptTokensReference !== undefined &&
    Number.isFinite(promptTokensReference) &&
    promptTokensReference >= PROMPT_TRUNCATION_MIN_TOKENS &&
    reported < REFERENCE_TRUNCATION_RATIO * promptTokensReference
  ) {
    sent = `${promptTokensReference} tokens by the o200k_base count (the model's own tokenizer is not known here; it rarely counts under ${REFERENCE_TRUNCATION_RATIO}x of that)`;
  } else {
    if (promptChars === undefined || promptChars < PROMPT_TRUNCATION_MIN_CHARS) return undefined;
    const floor = Math.floor(promptChars / MAX_CHARS_PER_TOKEN);
    if (reported >= floor) return undefined;
    sent = `${promptChars} characters, at least ${floor} tokens`;
  }
  return (
    `the server reports ${reported} prompt tokens for a prompt of ${sent}: it cut the ` +
    `prompt to its context window and answered without reading the trajectory; not a label. Fix: raise the server's context ` +
    `(Ollama: num_ctx, i.e. OLLAMA_CONTEXT_LENGTH or PARAMETER num_ctx in a Modelfile; llama.cpp: --ctx-size; vLLM: --max-model-len) or set context_tokens`
  );
}

/**
 * The size of a chat request body's prompt, for {@link promptTruncation}: characters of its messages, and our exact
 * token count when the body's `model` has a known tokenizer (`./tokens.ts`; the system message, the same rubric in
 * every request, is counted once).
 * @param body the request body sent (`model`, `messages`).
 */
export function promptSize(body: Record<string, unknown>): { promptChars: number; promptTokens?: number; promptTokensReference?: number } {
  const msgs = ((body.messages as { role?: unknown; content?: unknown }[] | undefined) ?? []).filter((m) => m && typeof m === "object");
  const promptChars = msgs.reduce((a, m) => a + (typeof m.content === "string" ? m.content.length : 0), 0);
  const name = typeof body.model === "string" ? tokenizerFor(body.model) : "estimated";
  if (promptChars < PROMPT_TRUNCATION_MIN_TOKENS) return { promptChars };
  const texts = msgs.map((m) => ({ role: typeof m.role === "string" ? m.role : "user", content: typeof m.content === "string" ? m.content : "" }));
  // an unknown tokenizer: the o200k_base count as a reference (REFERENCE_TRUNCATION_RATIO), beside characters / 6
  if (name === "estimated") return { promptChars, promptTokensReference: countPromptTokens(texts, "o200k_base", systemCountsOf("o200k_base")) };
  return { promptChars, promptTokens: countPromptTokens(texts, name, systemCountsOf(name)) };
}

/**
 * {@link promptSize} with the count deferred: `promptChars` now, the count (the model's tokenizer, else the
 * o200k_base reference) as a {@link LazyPromptCount} that {@link promptTruncation} takes only when the reported
 * count looks short. Same results as `promptSize` whenever a cut can be flagged.
 * @param body the request body sent (`model`, `messages`).
 */
export function lazyPromptSize(body: Record<string, unknown>): { promptChars: number; promptCount?: LazyPromptCount } {
  const msgs = ((body.messages as { role?: unknown; content?: unknown }[] | undefined) ?? []).filter((m) => m && typeof m === "object");
  const promptChars = msgs.reduce((a, m) => a + (typeof m.content === "string" ? m.content.length : 0), 0);
  if (promptChars < PROMPT_TRUNCATION_MIN_TOKENS) return { promptChars };
  const name = typeof body.model === "string" ? tokenizerFor(body.model) : "estimated";
  const counted = name === "estimated" ? "o200k_base" : name;
  const count = (): number => {
    const texts = msgs.map((m) => ({ role: typeof m.role === "string" ? m.role : "user", content: typeof m.content === "string" ? m.content : "" }));
    return countPromptTokens(texts, counted, systemCountsOf(counted));
  };
  return { promptChars, promptCount: { exact: name !== "estimated", count } };
}

/** Per tokenizer, the token counts of system messages already counted (the same rubric in every request). */
const systemCounts = new Map<string, Map<string, number>>();
function systemCountsOf(name: string): Map<string, number> {
  let m = systemCounts.get(name);
  if (!m) systemCounts.set(name, (m = new Map()));
  if (m.size > 32) m.clear();
  return m;
}

/**
 * A Batch API result line's error response as the `APIError` the `openai` client throws online for the same
 * status and body, so that the one status table (`HTTP_FAULTS`, `./faults.ts`) classifies both paths.
 * @param status the line's `response.status_code`.
 * @param body the line's `response.body` (an error body, any dialect: `./error-body.ts` reshapes it).
 */
export function batchLineError(status: number, body: unknown): InstanceType<typeof OpenAI.APIError> {
  return OpenAI.APIError.generate(status, errorEnvelope(body) as object, undefined, new Headers());
}
