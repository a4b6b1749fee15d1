/**
 * Sending one chat request to an OpenAI-compatible API with an exact fault policy (`test/data/cases/B13.json`,
 * `B15.json`). Every fault becomes a wait, a status, or a `JudgeFatalError`; never a label.
 *
 * | fault | action |
 * |---|---|
 * | 429 with `retry-after-ms` / `retry-after` (seconds or HTTP date) | wait at least that long plus jitter, retry |
 * | 429 without a header | exponential backoff with jitter, retry |
 * | 429 `insufficient_quota` | `JudgeFatalError` kind `insufficient_quota` |
 * | 429 with a `retry-after` over `maxRetryAfterMs` (default 300 s) | `JudgeFatalError` kind `rate_limited` ("the provider asks to wait N s; ... run again later to resume") |
 * | 401 / 403 | `JudgeFatalError` kind `auth` |
 * | 400 (and other 4xx except 408/409/429) | no retry: error `bad_request` (`http_<status>`) with the provider's message and request id |
 * | 501 (and 404 / 405, as above): a server that is not an OpenAI-compatible API (e.g. `python -m http.server`) | no retry: error `http_<status>` |
 * | connection refused, unknown host (`ENOTFOUND`, `EAI_AGAIN`), unreachable network, certificate error, a port fetch blocks — on a judge that has never had a successful response | `unreachableTries` requests (default 2, a short wait between), then `JudgeFatalError` kind `unreachable` naming the base URL's host and the system error |
 * | 408, 409, 5xx, timeout, connection reset (and every connection fault once the judge has had a success) | exponential backoff with jitter, retry; then error `server_error` / `timeout` / `connection` |
 * | no complete response within `timeoutMs` (headers and body: a slow-drip body counts) | a `timeout`, as above |
 * | the connection reset while the body is read (undici "terminated") | a connection reset, as above |
 * | a chat completion body larger than `maxResponseBytes` (decoded; `./fetch-limit.ts`) | no retry: error `response_too_large` |
 * | a 200 whose body is not a chat completion (not JSON, e.g. an HTML page, whatever its content type; or JSON without `choices[0].message`) | one retry, then error `invalid_response`; it is not a successful answer (see `health`). A judge that never had a valid completion stops at its `notCompatibleTries`-th such response (default 3): `JudgeFatalError` kind `not_openai_compatible` naming the base URL's host |
 * | `finish_reason: "length"`, or empty/null content | resend once with a larger `max_tokens` (double, or 4096 when unset); then error `truncated` / `empty_response` |
 * | `message.refusal` set, or `finish_reason: "content_filter"` | refused |
 * | 400 rejecting `temperature` (reasoning models) | resent once without it (`temperatureDropped`); the judge sends none from then on |
 * | 400 saying the prompt exceeds the model's context | no retry: error `context_length` (the judge elides the trajectory to fit, or the item is unjudgeable `too_long`) |
 * | content null or empty with the text in `reasoning_content` / `reasoning` (not cut at the limit) | no resend: error `reasoning_only` (a judge that keeps doing it is stopped) |
 * | a 200 carrying a provider failure: a top-level `error` (beside or instead of `choices`), a choice with `finish_reason: "error"` or its own `error` (a 429 there too) | backoff and retry like a 5xx (a 429 also cuts the AIMD limit), then error `provider_error` with the provider's code and message; never a label, never `not_openai_compatible` |
 *
 * Retries for these faults (at most `maxTransportRetries`, default 6, per call) never use the feedback budget
 * of the judge. Backoff: `min(maxBackoffMs, baseBackoffMs * 2^k)` scaled by a uniform factor in [0.5, 1]
 * ("equal jitter", AWS Architecture Blog, "Exponential Backoff and Jitter", 2015). All waits go through an
 * injectable `sleep` and are multiplied by `timeScale`, so tests stay fast. API keys are removed from every
 * message this module produces ({@link redact}), and the provider's own text in an error message is cut to
 * {@link MAX_PROVIDER_MESSAGE_CHARS} characters (a server that answers with an HTML page would otherwise put the
 * whole page into every verdict).
 */
import OpenAI from "openai";
import { ResponseDecodeError, ResponseTooLargeError } from "./fetch.js";
import { chatRequestBody, estimateTokens } from "./request-body.js";
export { chatRequestBody, estimateTokens } from "./request-body.js";
import { JudgeFatalError } from "../errors.js";
import type { Pacer, RequestGate, Slot } from "./pacing.js";

/** Tunables of the fault policy; every field has a default. */
export interface TransportOptions {
  /** Wait `ms` milliseconds (default: a timer that an abort signal cancels). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock of the rpm/tpm pacer in ms (default `Date.now`; tests pair it with `sleep` for virtual time). */
  now?: () => number;
  /** Multiplier applied to every wait (backoff, retry-after, rate gate); default 1. */
  timeScale?: number;
  /** Transport retries per call (429, 5xx, timeouts, connection faults together); default 6. */
  maxTransportRetries?: number;
  /** First backoff step in ms; default 1000. */
  baseBackoffMs?: number;
  /** Largest backoff step in ms; default 30000. */
  maxBackoffMs?: number;
  /** A `retry-after` longer than this (ms, before scaling) is not waited for: `JudgeFatalError` kind `rate_limited`; default 300000. */
  maxRetryAfterMs?: number;
  /**
   * Responses that are not chat completions (`invalid_response`) a judge that never had a valid completion
   * may get before it stops with `JudgeFatalError` kind `not_openai_compatible`; default 3.
   */
  notCompatibleTries?: number;
  /** Uniform [0,1) random source for jitter; default Math.random. */
  random?: () => number;
  /**
   * Requests sent before an unreachable server (see the module docstring) stops a judge that has never had a
   * successful response; default 2.
   */
  unreachableTries?: number;
  /**
   * Largest chat completion response body in decoded bytes (default `MAX_RESPONSE_BYTES` of `./fetch-limit.ts`,
   * 4 MiB); read by `createOpenAIJudge` when it builds the client's `fetch` (`limitedFetch`). A larger reply is
   * error kind `response_too_large`, not retried.
   */
  maxResponseBytes?: number;
}

/** The defaults of {@link TransportOptions}. */
export const TRANSPORT_DEFAULTS = {
  timeScale: 1,
  maxTransportRetries: 6,
  baseBackoffMs: 1000,
  maxBackoffMs: 30_000,
  maxRetryAfterMs: 300_000,
  unreachableTries: 2,
  notCompatibleTries: 3,
};

/** Longest provider text kept in an error message (characters); the rest is cut with a note of its length. */
export const MAX_PROVIDER_MESSAGE_CHARS = 500;

/** `s` cut to `max` characters with a note of how many were left out. */
export function clipMessage(s: string, max = MAX_PROVIDER_MESSAGE_CHARS): string {
  if (s.length <= max) return s;
  let cut = max;
  const c = s.charCodeAt(cut);
  if (c >= 0xdc00 && c <= 0xdfff) cut--;
  return `${s.slice(0, cut)}[... ${s.length - cut} more characters]`;
}

/** Whether a judge has had a successful response yet (shared by all its requests; `sendChat` sets it). */
export interface JudgeHealth {
  succeeded: boolean;
  /** Responses that were not chat completions while `succeeded` was false (`sendChat` counts them). */
  invalidResponses?: number;
}

/** max_tokens of the one resend after a truncated or empty reply when the judge set none. */
export const TRUNCATION_RETRY_MAX_TOKENS = 4096;

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
 * Token usage summed over the responses of a call or a verdict. `cached_tokens` (prompt tokens served from the
 * provider's prompt cache: `usage.prompt_tokens_details.cached_tokens`) and `reasoning_tokens` (part of
 * `completion_tokens`: `usage.completion_tokens_details.reasoning_tokens`) count 0 where a provider does not report
 * them. `missing` counts responses that carried no usable `usage` (no object, or no numeric prompt/completion
 * count): their tokens are unknown, so any cost over them is `null`, never 0.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  missing?: number;
}

/** What one call came to. */
export type SendOutcome =
  | { kind: "reply"; content: string; finishReason: string | null }
  | { kind: "refused"; message: string }
  | { kind: "error"; error: { kind: string; message: string } };

export interface SendResult {
  outcome: SendOutcome;
  /** HTTP requests sent (each counts as an attempt). */
  requests: number;
  /** Token usage summed over the responses received. */
  usage: Usage;
  /** The content of every response received, in order (a null content is recorded as the message's JSON). */
  raw: string[];
  /** Every wait taken, in ms after scaling (for tests and logs). */
  waitsMs: number[];
  /** `max_tokens` in force at the end (raised after a truncated reply); keep it for later turns. */
  maxTokens?: number;
  /** The token-limit parameter name the server accepted (`max_completion_tokens` after a server asked for it). */
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** The server rejected `temperature` (a reasoning model): this call was resent without it. */
  temperatureDropped?: boolean;
}

/** Per-call context. */
export interface SendContext {
  judgeId: string;
  /** Per-request timeout (ms). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Strings that must never appear in any message (the API key). */
  secrets: string[];
  /** Rate limits (rpm/tpm): a `RateGate` or an evenly spacing `RatePacer` (`./rate.ts`). */
  gate?: RequestGate & { settle?: (estimatedTokens: number, actualTokens: number) => void };
  /** Adaptive concurrency (AIMD on 429s, `./rate.ts`): a slot is held for each HTTP request. */
  pacer?: Pacer;
  tokenParam?: "max_tokens" | "max_completion_tokens";
  options?: TransportOptions;
  /**
   * The judge's success state. When given and not yet `succeeded`, a connection failure that means the server
   * cannot be reached stops the judge (`JudgeFatalError` kind `unreachable`) after `unreachableTries` requests;
   * a successful response sets `succeeded`, after which connection failures are retried like other faults.
   * Without it, every connection failure is retried.
   */
  health?: JudgeHealth;
  /** The API's base URL, named (without credentials, query or fragment) in `unreachable` errors. */
  baseURL?: string;
}

/** The system error behind a failed connection: the first `code` along the `cause` chain (and inside an
 * `AggregateError`'s `errors`), with its message; else the innermost message. */
export function connectionCause(err: unknown): { code?: string; message: string } {
  let innermost = "";
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): { code?: string; message: string } | undefined => {
    if (!e || typeof e !== "object" || seen.has(e) || depth > 8) return undefined;
    seen.add(e);
    const o = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    const message = typeof o.message === "string" ? o.message : "";
    if (message) innermost = message;
    if (typeof o.code === "string" && o.code !== "" && !o.code.startsWith("UND_ERR_SOCKET")) return { code: o.code, message };
    if (Array.isArray(o.errors)) for (const x of o.errors) {
      const r = visit(x, depth + 1);
      if (r) return r;
    }
    return visit(o.cause, depth + 1);
  };
  return visit(err, 0) ?? { message: innermost || String(err) };
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/**
 * Whether a connection failure means the server cannot be reached at this address at all: refused, unknown
 * host or failed DNS lookup, no route, a TLS certificate that does not verify (`CERT_*`, `*_SELF_SIGNED_*`,
 * `UNABLE_TO_*`, `ERR_TLS_CERT_ALTNAME_INVALID`), or a port that fetch refuses to use ("bad port", e.g. 9).
 * Resets and timeouts are not (they can pass).
 */
export function isUnreachable(cause: { code?: string; message: string }): boolean {
  const code = cause.code ?? "";
  if (UNREACHABLE_CODES.has(code)) return true;
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT/.test(code)) return true;
  return code === "" && /^bad port$/i.test(cause.message.trim());
}

/** A base URL without credentials, query or fragment (`https://api.example.com/v1`), or `fallback`. */
function safeBase(url: string | undefined, fallback: string): string {
  if (!url) return fallback;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`;
  } catch {
    return fallback;
  }
}

/**
 * Remove secrets from a text: every occurrence of a secret (4+ characters), and every run of 8+ key-like
 * characters (`[A-Za-z0-9_.-]`) that is a piece of a secret (providers echo keys partly masked: `sk-proj-****abcd`).
 * @returns the text with each such piece replaced by `[redacted]`.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 4) continue;
    out = out.split(s).join("[redacted]");
    out = redactPieces(out, s);
  }
  return out;
}

/** Whether a UTF-16 code unit is one of `[A-Za-z0-9_.-]`. */
function keyLike(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

/**
 * Every run of 8+ key-like characters of `text` that is a substring of `secret` replaced by `[redacted]`; a
 * linear scan (no regex: a regex replace over a run of ~10M key-like characters overflowed the stack), and a run
 * longer than the secret is never a piece of it, so it is not compared.
 */
function redactPieces(text: string, secret: string): string {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (!keyLike(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && keyLike(text.charCodeAt(j))) j++;
    const len = j - i;
    if (len >= 8 && len <= secret.length && secret.includes(text.slice(i, j))) {
      parts.push(text.slice(last, i), "[redacted]");
      last = j;
    }
    i = j;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join("");
}

/**
 * A token count from a reply's `usage` as a finite non-negative integer: a number >= 0 (floored), else 0
 * (strings such as "1e9", negatives, NaN, Infinity, null and missing fields all count 0).
 */
export function tokenCount(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? Math.floor(x) : 0;
}

/** Add `b` into `a` (every field of {@link Usage}; optional ones only when either side has them). */
export function addUsage(a: Usage, b: Usage): Usage {
  a.prompt_tokens += b.prompt_tokens;
  a.completion_tokens += b.completion_tokens;
  if (b.cached_tokens !== undefined) a.cached_tokens = (a.cached_tokens ?? 0) + b.cached_tokens;
  if (b.reasoning_tokens !== undefined) a.reasoning_tokens = (a.reasoning_tokens ?? 0) + b.reasoning_tokens;
  if (b.missing) a.missing = (a.missing ?? 0) + b.missing;
  return a;
}

/**
 * The {@link Usage} of one response's `usage` field. Providers send strings, negatives, floats: only finite
 * non-negative integers are counted. A response without a usage object or without numeric prompt/completion
 * counts is `missing: 1` (its tokens are unknown; never read as 0 tokens by a cost). So is one that reports 0 prompt
 * tokens: every request a judge sends has a non-empty prompt, so a 0 there is a server that does not count tokens
 * (some OpenAI-compatible servers send `{prompt_tokens: 0, completion_tokens: 0}`), not a free request.
 */
export function readUsage(raw: unknown): Usage {
  const u = raw as
    | {
        prompt_tokens?: unknown;
        completion_tokens?: unknown;
        prompt_tokens_details?: { cached_tokens?: unknown } | null;
        completion_tokens_details?: { reasoning_tokens?: unknown } | null;
      }
    | null
    | undefined;
  if (!u || typeof u !== "object" || !isCount(u.prompt_tokens) || !isCount(u.completion_tokens))
    return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  const pt = tokenCount(u.prompt_tokens);
  if (pt === 0) return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  return {
    prompt_tokens: pt,
    completion_tokens: tokenCount(u.completion_tokens),
    cached_tokens: Math.min(pt, tokenCount(u.prompt_tokens_details?.cached_tokens)),
    reasoning_tokens: tokenCount(u.completion_tokens_details?.reasoning_tokens),
  };
}

/**
 * Whether a 400's message says the model takes no `temperature` (OpenAI: "Unsupported parameter: 'temperature' is
 * not supported with this model." / "Unsupported value: 'temperature' does not support 0 with this model. Only the
 * default (1) value is supported."; other servers word it alike).
 */
export function rejectsTemperature(message: string): boolean {
  return /temperature/i.test(message) && /unsupported|not supported|does not support|only the default|not allowed/i.test(message);
}

/**
 * Whether a 400's message says the prompt is longer than the model's context (OpenAI `context_length_exceeded`
 * "This model's maximum context length is N tokens", vLLM, Ollama, llama.cpp, Anthropic/Gemini compatibility layers).
 */
export function isContextLength(message: string): boolean {
  return /context[_ ]length|maximum context|context window|exceeds? the (model'?s? )?(maximum|max)|prompt is too long|too many (input )?tokens|input is too long|reduce the length of the (messages|prompt)/i.test(
    message,
  );
}

/** The text of a message's reasoning field (`reasoning_content`: DeepSeek, vLLM, Qwen; `reasoning`: OpenRouter, Ollama), if non-empty. */
export function reasoningText(message: unknown): string | undefined {
  const m = message as { reasoning_content?: unknown; reasoning?: unknown } | null;
  for (const x of [m?.reasoning_content, m?.reasoning]) if (typeof x === "string" && x.trim() !== "") return x;
  return undefined;
}

/** Whether a `usage` field is a count a provider actually gave (a finite number >= 0). */
function isCount(x: unknown): boolean {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}

/** A provider failure carried inside an HTTP 200 (see {@link providerFault}). */
export interface InBandFault {
  /** `top-level error` or `choices[0] finish_reason "error"` / `choices[0].error`. */
  where: string;
  code?: string | number;
  message: string;
  /** The fault is a rate limit (code 429 or a rate-limit type): the AIMD limiter is told, as for an HTTP 429. */
  rateLimited: boolean;
  raw: unknown;
}

/**
 * The provider failure inside a 200 response, if any: a top-level `error` (an object or a string, beside or
 * instead of `choices`), or a first choice with `finish_reason: "error"` or an `error` of its own.
 * @returns the fault's place, code, message (the provider's, or a description when it gave none), or undefined.
 */
export function providerFault(completion: unknown): InBandFault | undefined {
  if (completion === null || typeof completion !== "object") return undefined;
  const c = completion as { error?: unknown; choices?: unknown };
  const read = (e: unknown, where: string): InBandFault => {
    const o = (e && typeof e === "object" ? e : {}) as { code?: unknown; message?: unknown; type?: unknown; status?: unknown };
    const code = typeof o.code === "string" || typeof o.code === "number" ? o.code : typeof o.status === "number" ? o.status : undefined;
    const message =
      typeof e === "string" ? e : typeof o.message === "string" && o.message !== "" ? o.message : e ? JSON.stringify(e) : "no error details given";
    const rateLimited = code === 429 || code === "429" || /rate[_ ]?limit|too many requests/i.test(`${String(o.type ?? "")} ${String(code ?? "")} ${message}`);
    return { where, code, message, rateLimited, raw: e ?? null };
  };
  if (c.error !== undefined && c.error !== null && c.error !== false) return read(c.error, "top-level error");
  const choice = Array.isArray(c.choices) ? (c.choices[0] as { finish_reason?: unknown; error?: unknown } | undefined) : undefined;
  if (choice && typeof choice === "object") {
    if (choice.error !== undefined && choice.error !== null) return read(choice.error, `choices[0].error, finish_reason ${JSON.stringify(choice.finish_reason ?? null)}`);
    if (choice.finish_reason === "error") return read(undefined, 'choices[0] finish_reason "error"');
  }
  return undefined;
}

/** Whether an error is a connection reset while the response body was read (undici `TypeError: terminated`,
 * `ECONNRESET`, `EPIPE` or an `UND_ERR_SOCKET` along the cause chain). */
export function isBodyReset(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = err, d = 0; e && typeof e === "object" && !seen.has(e) && d < 8; d++) {
    seen.add(e);
    const o = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (o.message === "terminated") return true;
    if (typeof o.code === "string" && (o.code === "ECONNRESET" || o.code === "EPIPE" || o.code.startsWith("UND_ERR_SOCKET")))
      return true;
    e = o.cause;
  }
  return false;
}

/**
 * The signal of one request: aborts when `parent` aborts (through {@link scopedSignal}, so no listener piles up
 * on the run's signal) or after `timeoutMs` (reason a `TimeoutError`). Unlike the client's own timeout, which
 * stops when the headers arrive, this one bounds the whole request, body included. `dispose()` clears the timer.
 */
export function requestSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  const scoped = scopedSignal(parent);
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, "TimeoutError"));
  }, Math.max(1, timeoutMs));
  const onParent = () => ac.abort(scoped.signal?.reason);
  if (scoped.signal?.aborted) onParent();
  else scoped.signal?.addEventListener("abort", onParent, { once: true });
  return {
    signal: ac.signal,
    timedOut: () => timedOut && !parent?.aborted,
    dispose: () => {
      clearTimeout(timer);
      scoped.signal?.removeEventListener("abort", onParent);
      scoped.dispose();
    },
  };
}

/** A timer that rejects when the signal aborts. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The wait a 429 asks for, in ms: `retry-after-ms` (milliseconds) wins, else `retry-after` as seconds
 * (fractions allowed) or as an HTTP date (RFC 9110 section 10.2.3).
 * @returns ms >= 0, or `undefined` when neither header is present or readable.
 */
export function retryAfterMs(headers: Headers | Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (k: string): string | null | undefined =>
    headers instanceof Headers ? headers.get(k) : (headers as Record<string, string>)[k];
  const ms = get("retry-after-ms");
  if (ms != null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = get("retry-after");
  if (ra == null || ra.trim() === "") return undefined;
  if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra) * 1000);
  const d = Date.parse(ra);
  return Number.isNaN(d) ? undefined : Math.max(0, d - now);
}

/**
 * A per-judge requests-per-minute and tokens-per-minute gate over a sliding 60 s window. Callers `acquire`
 * before each request; calls are served in order. Unset limits are unlimited. A single request larger than
 * `tpm` is let through alone once the window is empty.
 */
export class RateGate {
  private events: { t: number; tokens: number }[] = [];
  private chain: Promise<void> = Promise.resolve();
  constructor(
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = defaultSleep,
    private readonly now: () => number = Date.now,
  ) {}

  /** Wait until a request of `tokens` estimated tokens may start, then record it. Rejects when `signal` aborts. */
  acquire(tokens: number, signal?: AbortSignal): Promise<void> {
    const run = async () => {
      for (;;) {
        const now = this.now();
        this.events = this.events.filter((e) => e.t > now - 60_000);
        const used = this.events.reduce((a, e) => a + e.tokens, 0);
        const rpmFull = this.rpm !== undefined && this.events.length >= this.rpm;
        const tpmFull = this.tpm !== undefined && this.events.length > 0 && used + tokens > this.tpm;
        if (!rpmFull && !tpmFull) {
          this.events.push({ t: now, tokens });
          return;
        }
        await this.sleep(Math.max(1, this.events[0].t + 60_000 - now), signal);
      }
    };
    const p = this.chain.then(run);
    this.chain = p.catch(() => undefined);
    return p;
  }
}

/**
 * A per-request signal that follows `parent` (aborts when it aborts) and whose link to `parent` is removed by
 * `dispose()`. The `openai` client adds an `abort` listener to the signal it is given and never removes it, so
 * passing one long-lived run signal to every request would pile up one listener (and its closure) per request:
 * memory growing with the run and `addEventListener` getting slower with every request (a quadratic run).
 */
export function scopedSignal(parent: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose: () => void } {
  if (!parent) return { signal: undefined, dispose: () => {} };
  const ac = new AbortController();
  if (parent.aborted) {
    ac.abort(parent.reason);
    return { signal: ac.signal, dispose: () => {} };
  }
  // One listener per parent fans out to the live children (no MaxListenersExceededWarning at any concurrency).
  let live = scopedChildren.get(parent);
  if (!live) {
    const set = new Set<AbortController>();
    live = set;
    scopedChildren.set(parent, set);
    parent.addEventListener(
      "abort",
      () => {
        for (const c of set) c.abort(parent.reason);
        set.clear();
      },
      { once: true },
    );
  }
  const set = live;
  set.add(ac);
  return { signal: ac.signal, dispose: () => set.delete(ac) };
}
const scopedChildren = new WeakMap<AbortSignal, Set<AbortController>>();

function isQuota(e: InstanceType<typeof OpenAI.APIError>): boolean {
  const body = e.error as { code?: unknown; type?: unknown } | undefined;
  return (
    e.code === "insufficient_quota" ||
    e.type === "insufficient_quota" ||
    body?.code === "insufficient_quota" ||
    body?.type === "insufficient_quota" ||
    /insufficient_quota|exceeded your current quota/i.test(e.message)
  );
}

/** The provider's error message (cut to {@link MAX_PROVIDER_MESSAGE_CHARS}), with the request id when the server gave one. */
function providerMessage(e: InstanceType<typeof OpenAI.APIError>): string {
  const id = e.requestID ?? e.headers?.get?.("x-request-id") ?? undefined;
  return clipMessage(e.message) + (id ? ` (request id ${clipMessage(String(id), 100)})` : "");
}

/**
 * Send one chat request under the fault policy of the module docstring.
 * @param client an `openai` v6 client built with `maxRetries: 0` (this function does the retries).
 * @param req the request; not mutated.
 * @param ctx judge id, per-request timeout, abort signal, secrets to redact, rate gate, options.
 * @returns the outcome (a reply, a refusal, or an error with kind and message), the number of requests sent,
 *   usage summed over responses, raw contents, waits, and the `max_tokens` and token parameter now in force.
 * @throws JudgeFatalError for 401/403 (`auth`), 429 `insufficient_quota`, 429 with a retry-after over
 *   `maxRetryAfterMs` (`rate_limited`), `notCompatibleTries` responses that are not chat completions on a judge
 *   that never had one (`not_openai_compatible`), and (with `ctx.health` not yet
 *   succeeded) a server that cannot be reached (`unreachable`: "cannot reach <host> (<base url>): <system error>");
 *   its message names the judge or the host, the status or system error and the provider's message, never the key.
 */
export async function sendChat(client: OpenAI, req: ChatRequest, ctx: SendContext): Promise<SendResult> {
  const o = { ...TRANSPORT_DEFAULTS, ...(ctx.options ?? {}) };
  const sleep = ctx.options?.sleep ?? defaultSleep;
  const random = ctx.options?.random ?? Math.random;
  const res: SendResult = {
    outcome: { kind: "error", error: { kind: "transport", message: "no request sent" } },
    requests: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    raw: [],
    waitsMs: [],
    maxTokens: req.max_tokens,
    tokenParam: ctx.tokenParam ?? "max_tokens",
  };
  const clean = (s: string) => redact(s, ctx.secrets);
  const fail = (kind: string, message: string): SendResult => {
    res.outcome = { kind: "error", error: { kind, message: clean(message) } };
    return res;
  };
  const wait = async (ms: number) => {
    const scaled = ms * o.timeScale;
    res.waitsMs.push(scaled);
    // on a signal of its own linked to the run's (one listener on the run's signal for all waiting requests)
    const scoped = scopedSignal(ctx.signal);
    try {
      await sleep(scaled, scoped.signal);
    } finally {
      scoped.dispose();
    }
  };
  const backoff = (k: number) => Math.min(o.maxBackoffMs, o.baseBackoffMs * 2 ** k) * (0.5 + 0.5 * random());

  let transportRetries = 0;
  let unreachableFailures = 0;
  let lengthRetried = false;
  let invalidRetried = false;
  /**
   * A 200 that is not a chat completion: counted against a judge that never had a valid one (stop at
   * `notCompatibleTries`), retried once per call, then error `invalid_response`.
   */
  const invalidResponse = async (detail: string): Promise<SendResult | undefined> => {
    if (ctx.health && !ctx.health.succeeded) {
      const n = (ctx.health.invalidResponses = (ctx.health.invalidResponses ?? 0) + 1);
      if (n >= Math.max(1, o.notCompatibleTries)) {
        const base = safeBase(ctx.baseURL, "https://api.openai.com/v1");
        let host = base;
        try {
          host = new URL(base).host;
        } catch {
          /* keep the base */
        }
        throw new JudgeFatalError(
          ctx.judgeId,
          "not_openai_compatible",
          clean(
            `${host} (base_url ${base}) does not answer like an OpenAI-compatible chat completions API: ${n} response(s) ` +
              `were not chat completions and judge "${ctx.judgeId}" never had a valid one; the last: ${detail}. Its remaining ` +
              `items stay un-judged: fix base_url (it usually ends in /v1) and run again to resume.`,
          ),
        );
      }
    }
    if (invalidRetried) return fail("invalid_response", detail);
    invalidRetried = true;
    try {
      await wait(backoff(0));
    } catch {
      return fail("aborted", "the run was stopped");
    }
    return undefined;
  };
  let paramSwitched = false;
  for (;;) {
    if (ctx.signal?.aborted) return fail("aborted", "the run was stopped");
    const body = chatRequestBody(req, res.maxTokens, res.tokenParam);
    if (res.temperatureDropped) delete body.temperature;
    const estimated = estimateTokens({ ...req, max_tokens: res.maxTokens });
    let slot: Slot | undefined;
    // waiting for a slot listens on a signal of its own, linked to the run's by one shared listener: one listener
    // per waiting request on the run's signal drew a MaxListenersExceededWarning at concurrency 16
    const waiting = scopedSignal(ctx.signal);
    try {
      if (ctx.pacer) slot = await ctx.pacer.acquire(waiting.signal);
      if (ctx.gate) await ctx.gate.acquire(estimated, waiting.signal);
    } catch {
      slot?.();
      return fail("aborted", "the run was stopped");
    } finally {
      waiting.dispose();
    }

    res.requests++;
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    // the client's own timeout stops at the headers; this one also bounds the body (a slow drip)
    const scoped = requestSignal(ctx.signal, ctx.timeoutMs);
    try {
      completion = (await client.chat.completions.create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, {
        timeout: ctx.timeoutMs,
        maxRetries: 0,
        signal: scoped.signal,
      })) as OpenAI.Chat.Completions.ChatCompletion;
      scoped.dispose();
      slot?.();
    } catch (err) {
      scoped.dispose();
      slot?.();
      if (err instanceof OpenAI.APIError && err.status === 429 && slot && !isQuota(err)) ctx.pacer?.onRateLimited(slot.seq);
      const retry = async (kind: string, message: string, ms?: number): Promise<SendResult | undefined> => {
        if (transportRetries >= o.maxTransportRetries)
          return fail(kind, `${message} (gave up after ${res.requests} requests)`);
        const w = ms ?? backoff(transportRetries);
        transportRetries++;
        try {
          await wait(w);
        } catch {
          return fail("aborted", "the run was stopped");
        }
        return undefined;
      };
      if (ctx.signal?.aborted) return fail("aborted", "the run was stopped");
      if (err instanceof ResponseTooLargeError) return fail("response_too_large", err.message);
      if (err instanceof ResponseDecodeError) {
        // a body that does not follow its content-encoding, or a reply that is not valid HTTP: the same would come back
        const r = await invalidResponse(clipMessage(err.message, 300));
        if (r) return r;
        continue;
      }
      if (err instanceof OpenAI.APIConnectionTimeoutError || scoped.timedOut()) {
        const r = await retry("timeout", `no answer within ${ctx.timeoutMs / 1000} s`);
        if (r) return r;
        continue;
      }
      if (err instanceof OpenAI.APIUserAbortError) return fail("aborted", "the run was stopped");
      if (!(err instanceof OpenAI.APIError) && isBodyReset(err)) {
        // the connection dropped while the body was read: a reset like any other (never "unreachable": it answered)
        const r = await retry("connection", `connection reset while reading the response: ${clipMessage(connectionCause(err).message, 300)}`);
        if (r) return r;
        continue;
      }
      if (err instanceof OpenAI.APIConnectionError) {
        const cause = connectionCause(err);
        const what = clipMessage(cause.code ? `${cause.code} (${cause.message})` : cause.message || err.message, 300);
        if (ctx.health && !ctx.health.succeeded && isUnreachable(cause)) {
          // Never answered yet and the address itself fails: a short bounded retry, then stop this judge.
          unreachableFailures++;
          if (unreachableFailures >= Math.max(1, o.unreachableTries)) {
            const base = safeBase(ctx.baseURL, "https://api.openai.com/v1");
            const host = (() => {
              try {
                return new URL(base).host;
              } catch {
                return base;
              }
            })();
            throw new JudgeFatalError(
              ctx.judgeId,
              "unreachable",
              clean(
                `cannot reach ${host} (base_url ${base}): ${what}; ${unreachableFailures} request(s) failed and judge ` +
                  `"${ctx.judgeId}" never had an answer. Its remaining items stay un-judged: fix base_url or start the server, then run again to resume.`,
              ),
            );
          }
          try {
            await wait(Math.min(o.baseBackoffMs, 1000) * (0.5 + 0.5 * random()));
          } catch {
            return fail("aborted", "the run was stopped");
          }
          continue;
        }
        const r = await retry("connection", `connection failed: ${what}`);
        if (r) return r;
        continue;
      }
      if (err instanceof OpenAI.APIError && typeof err.status === "number") {
        const st = err.status;
        const msg = providerMessage(err);
        if (st === 401 || st === 403)
          throw new JudgeFatalError(
            ctx.judgeId,
            "auth",
            clean(`judge "${ctx.judgeId}": the API refused the credentials (HTTP ${st}): ${msg}. Check the key in the judge's api_key_env.`),
          );
        if (st === 429) {
          if (isQuota(err))
            throw new JudgeFatalError(
              ctx.judgeId,
              "insufficient_quota",
              clean(`judge "${ctx.judgeId}": the account has no quota left (HTTP 429 insufficient_quota): ${msg}`),
            );
          const ra = retryAfterMs(err.headers);
          if (ra !== undefined && ra > o.maxRetryAfterMs)
            // Every other item would get the same answer within seconds (a corpus of judge_error verdicts, exit 0):
            // stop this judge so its items stay un-judged for a later run.
            throw new JudgeFatalError(
              ctx.judgeId,
              "rate_limited",
              clean(
                `judge "${ctx.judgeId}": the provider asks to wait ${Math.round(ra / 1000)} s (HTTP 429 retry-after, over the ` +
                  `${Math.round(o.maxRetryAfterMs / 1000)} s this run waits): ${msg}. Its remaining items stay un-judged; run again later to resume.`,
              ),
            );
          // at least the asked wait, plus up to 25% (and 50-250 ms) of jitter
          const w = ra !== undefined ? ra + ra * 0.25 * random() + 50 + 200 * random() : undefined;
          const r = await retry("rate_limited", `rate limited: ${msg}`, w);
          if (r) return r;
          continue;
        }
        // 501 Not Implemented: the server is not an OpenAI-compatible API; retrying cannot help (nor can 404/405).
        if (st === 408 || st === 409 || (st >= 500 && st !== 501)) {
          const r = await retry(st >= 500 ? "server_error" : `http_${st}`, `HTTP ${st}: ${msg}`);
          if (r) return r;
          continue;
        }
        if (st === 400 && !res.temperatureDropped && rejectsTemperature(err.message) && body.temperature !== undefined) {
          // Reasoning models (OpenAI o-series, gpt-5) accept no temperature: send without it, once; the judge keeps
          // that for its later requests (`temperatureDropped`), so no item pays this 400 again.
          res.temperatureDropped = true;
          continue;
        }
        if (st === 400 && isContextLength(err.message))
          // the prompt does not fit the model's context: the judge elides the trajectory to fit, or the item is too_long
          return fail("context_length", `HTTP 400: ${msg}`);
        if (
          st === 400 &&
          !paramSwitched &&
          res.tokenParam === "max_tokens" &&
          res.maxTokens !== undefined &&
          /max_completion_tokens/.test(err.message)
        ) {
          // Newer OpenAI models reject `max_tokens` and name the replacement: switch once.
          paramSwitched = true;
          res.tokenParam = "max_completion_tokens";
          continue;
        }
        return fail(st === 400 ? "bad_request" : `http_${st}`, `HTTP ${st}: ${msg}`);
      }
      if (err instanceof SyntaxError) {
        // a 200 with a JSON content type whose body is not JSON (the client's parse failed)
        const r = await invalidResponse(`HTTP 200 with a JSON content type but a body that is not JSON (${clipMessage(err.message, 200)})`);
        if (r) return r;
        continue;
      }
      return fail("transport", `request failed: ${clipMessage(String((err as Error)?.message ?? err))}`);
    }

    ctx.pacer?.onSuccess();
    if (typeof completion === "object" && completion !== null) {
      const u = readUsage(completion.usage);
      addUsage(res.usage, u);
      if (!u.missing) ctx.gate?.settle?.(estimated, u.prompt_tokens + u.completion_tokens);
    }
    // An HTTP 200 that carries a provider failure (OpenRouter and other routers: a top-level `error` beside or
    // instead of `choices`, a choice with `finish_reason: "error"` and its own `error`, a 429 inside a choice): a
    // transient fault of the provider behind the endpoint. Backoff and retry, then an error with the provider's
    // code and message; never a label (the choice's content, even a parseable verdict, is not read), never "not
    // OpenAI-compatible" (the endpoint answered in the API's own shape).
    const inBand = providerFault(completion);
    if (inBand) {
      if (ctx.health) ctx.health.succeeded = true;
      res.raw.push(clipMessage(clean(JSON.stringify({ error: inBand.raw }))));
      if (inBand.rateLimited && slot) ctx.pacer?.onRateLimited(slot.seq);
      const what = `provider error in an HTTP 200 (${inBand.where}${inBand.code !== undefined ? `, code ${inBand.code}` : ""}): ${clipMessage(clean(inBand.message))}`;
      if (transportRetries >= o.maxTransportRetries) return fail("provider_error", `${what} (gave up after ${res.requests} requests)`);
      const w = backoff(transportRetries);
      transportRetries++;
      try {
        await wait(w);
      } catch {
        return fail("aborted", "the run was stopped");
      }
      continue;
    }
    // a non-JSON body (an HTML page) comes back from the client as a string
    const choice = completion !== null && typeof completion === "object" ? completion.choices?.[0] : undefined;
    if (!choice || typeof choice !== "object" || !choice.message || typeof choice.message !== "object") {
      const text = typeof completion === "string" ? completion : JSON.stringify(completion ?? null);
      res.raw.push(clipMessage(clean(text)));
      const r = await invalidResponse(
        `HTTP 200 but the body is not a chat completion (${typeof completion === "string" ? "not JSON" : "no choices[0].message"}): ${clipMessage(text)}`,
      );
      if (r) return r;
      continue;
    }
    // only a completion-shaped answer counts as the judge having answered (`unreachable`, `not_openai_compatible`)
    if (ctx.health) ctx.health.succeeded = true;
    const msg = choice.message as { content?: string | null; refusal?: string | null };
    const content = typeof msg.content === "string" ? msg.content : null;
    res.raw.push(content ?? clean(JSON.stringify(choice.message)));
    if (typeof msg.refusal === "string" && msg.refusal.trim() !== "") {
      res.outcome = { kind: "refused", message: clean(msg.refusal) };
      return res;
    }
    if (choice.finish_reason === "content_filter") {
      res.outcome = { kind: "refused", message: "the provider's content filter stopped the reply" };
      return res;
    }
    const truncated = choice.finish_reason === "length";
    const reasoning = reasoningText(choice.message);
    if (!truncated && (content === null || content.trim() === "") && reasoning !== undefined)
      // the answer landed in the reasoning field and content is null: a named error (resending unchanged gives the
      // same); the judge stops when it keeps doing this (`./openai.ts`)
      return fail(
        "reasoning_only",
        `the reply's content is empty and its text (${reasoning.length} characters) is in the message's reasoning field: ` +
          `the model answered in its reasoning; ${clipMessage(clean(reasoning), 200)}`,
      );
    if (truncated || content === null || content.trim() === "") {
      if (!lengthRetried) {
        lengthRetried = true;
        res.maxTokens = res.maxTokens !== undefined ? res.maxTokens * 2 : TRUNCATION_RETRY_MAX_TOKENS;
        continue;
      }
      return truncated
        ? fail("truncated", `the reply was cut at the token limit (finish_reason "length", max_tokens ${res.maxTokens ?? "unset"})`)
        : fail("empty_response", `the reply content was empty (finish_reason ${JSON.stringify(choice.finish_reason)})`);
    }
    res.outcome = { kind: "reply", content, finishReason: choice.finish_reason ?? null };
    return res;
  }
}
