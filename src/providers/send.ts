/**
 * The send loop: one chat request to an OpenAI-compatible API through the judge's `openai` client, under the
 * fault policy of `./faults.ts` (its table says what each fault is and what is done; this loop does it: waits,
 * resends, errors, `JudgeFatalError`s). Every fault becomes a wait, a status, or a `JudgeFatalError`; never a label.
 *
 * Retries for these faults (at most `maxTransportRetries`, default 6, per call) never use the feedback budget
 * of the judge. Backoff: `min(maxBackoffMs, baseBackoffMs * 2^k)` scaled by a uniform factor in [0.5, 1]
 * ("equal jitter", AWS Architecture Blog, "Exponential Backoff and Jitter", 2015). All waits go through an
 * injectable `sleep` and are multiplied by `timeScale`, so tests stay fast. API keys are removed from every
 * message this module produces (`redact`, `./redact.ts`), and the provider's own text in an error message is cut to
 * `MAX_PROVIDER_MESSAGE_CHARS` characters (an HTML page would otherwise go into every verdict). Rate limits waited
 * out are counted (`SendResult.rateLimited`, `./rate-limit-waits.ts`).
 *
 * The helpers it was built from live beside it and are re-exported here: `./faults.ts` (classification),
 * `./redact.ts` (redaction, clipping), `./usage.ts` (token usage), `./signals.ts` (per-request signals, sleep).
 */
import { chosenChoice } from "./choice.js";
import OpenAI from "openai";
import { JudgeFatalError } from "../errors.js";
import { classifyCompletion, emptyReplyMessage, isStreamedBody, lazyPromptSize, replyChars, STREAMED_NOTE } from "./classify.js";
import { classifyError, connectionCause, cutsConcurrency, isUnreachable, safeBase } from "./faults.js";
import type { Pacer, RequestGate, Slot } from "./pacing.js";
import { applyAdaptation, chatRequestBody, estimateTokens, type AdaptKind, type ChatRequest, type RequestAdaptations } from "./request-body.js";
import { takeLostAnswers, takeResends } from "./fetch.js";
import { gaveUp } from "./body-cut.js";
import { connectTimeoutMessage, noAnswer, takeUnconnected } from "./no-answer.js";
import { clipMessage, redact } from "./redact.js";
import { defaultSleep, requestSignal, scopedSignal } from "./signals.js";
import { addUsage, readUsage, streamedUsage, type Usage } from "./usage.js";
import { addRateLimitWait, noRateLimitWaits, type RateLimitWaits } from "./rate-limit-waits.js";
export { applyAdaptation, chatRequestBody, estimateTokens, nextResponseFormat, type AdaptKind, type ChatMessage, type ChatRequest, type RequestAdaptations } from "./request-body.js";
export { connectionCause, isBodyReset, isContextLength, isUnreachable, providerFault, reasoningText, rejectsTemperature, retryAfterMs, type InBandFault } from "./faults.js";
export { clipMessage, MAX_PROVIDER_MESSAGE_CHARS, redact } from "./redact.js";
export { defaultSleep, requestSignal, scopedSignal } from "./signals.js";
export { addUsage, readUsage, tokenCount, type Usage } from "./usage.js";

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
   * Largest chat completion response body in decoded bytes (default `MAX_RESPONSE_BYTES` of `./fetch.ts`,
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

/** Whether a judge has had a successful response yet (shared by all its requests; `sendChat` sets it). */
export interface JudgeHealth {
  succeeded: boolean;
  /** Responses that were not chat completions while `succeeded` was false (`sendChat` counts them). */
  invalidResponses?: number;
  /** The first redirect followed to another origin (origins only), where no credential header was sent. */
  crossOrigin?: { from: string; to: string };
}

/** max_tokens of the one resend after a truncated or empty reply when the judge set none. */
export const TRUNCATION_RETRY_MAX_TOKENS = 4096;

/** What one call came to. */
export type SendOutcome =
  | {
      kind: "reply";
      content: string;
      finishReason: string | null;
      /** The reply's reasoning (`reasoning_content`, thinking chunks): kept to send back where a provider requires it. */
      reasoning?: string;
      /** What the reply said that is worth recording (e.g. `finish_reason "length"` on a complete reply). */
      notes?: string[];
    }
  | { kind: "refused"; message: string }
  | {
      kind: "error";
      error: { kind: string; message: string };
      /** The model's own output the error carried (Groq `json_validate_failed`: `failed_generation`). */
      output?: string;
    };

export interface SendResult {
  outcome: SendOutcome;
  /** HTTP requests sent (each counts as an attempt), a body sent again at once on a stale keep-alive socket included. */
  requests: number;
  /** Token usage summed over the responses received. */
  usage: Usage;
  /** The content of every response received, in order (a null content is recorded as the message's JSON). */
  raw: string[];
  /** Every wait taken, in ms after scaling (for tests and logs). */
  waitsMs: number[];
  /** The rate limits (HTTP 429, or one inside a 200) this call got, and the waits after them (`./rate-limit-waits.ts`); absent when none. */
  rateLimited?: RateLimitWaits;
  /** `max_tokens` in force at the end (raised after a truncated reply); keep it for later turns. */
  maxTokens?: number;
  /** The token-limit parameter name the server accepted (`max_completion_tokens` after a server asked for it). */
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** The server rejected `temperature` (a reasoning model): this call was resent without it. */
  temperatureDropped?: boolean;
  /** Judge-level adaptations this call made after a 400 (`RequestAdaptations`): the judge keeps them. */
  adapted?: { kind: AdaptKind; value?: number; what: string }[];
  /**
   * Set when the call ended in error `connection` or `timeout` and none of its requests had any answer from the
   * server: each was refused or could not reach the host, made no connection in time, or was closed before any
   * response byte (`./no-answer.ts`). The judge's lost-endpoint rule (`../judges/lost-endpoint.ts`) counts such items.
   */
  unconnected?: true;
}

/** Per-call context. */
export interface SendContext {
  judgeId: string;
  /** Per-request timeout (ms). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Aborts a request already sent (default: `signal`, which otherwise only ends waits and stops further requests). */
  requestSignal?: AbortSignal;
  /** Strings that must never appear in any message (the API key). */
  secrets: string[];
  /** Rate limits (rpm/tpm): an evenly spacing `RatePacer` (`./pacing.ts`). */
  gate?: RequestGate & { settle?: (estimatedTokens: number, actualTokens: number) => void };
  /** Adaptive concurrency (AIMD on 429s, `./pacing.ts`): a slot is held for each HTTP request. */
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
  /** Whether a reply cut with `finish_reason: "length"` is complete nonetheless (the judge's parse; `./classify.ts`). */
  isComplete?: (content: string) => boolean;
  /**
   * The body's JSON as UTF-8 bytes, byte-identical to `JSON.stringify(body)` (`./body-json.ts`: the system message
   * encoded once per judge); the client then sends those bytes as they are. Without it the client encodes the body
   * object.
   */
  bodyJson?: (body: Record<string, unknown>) => Uint8Array;
}

/** The content type sent with a body given as JSON bytes (the client's own encoder sends the same). */
const JSON_CONTENT_TYPE = { "content-type": "application/json" };

/**
 * Send one chat request under the fault policy (`./faults.ts`).
 * @param client an `openai` v6 client built with `maxRetries: 0` (this function does the retries).
 * @param req the request; not mutated.
 * @param ctx judge id, per-request timeout, abort signal, secrets to redact, rate gate, options.
 * @returns the outcome (a reply, a refusal, or an error with kind and message), the number of requests sent,
 *   usage summed over responses, raw contents, waits, and the `max_tokens` and token parameter now in force.
 * @throws JudgeFatalError for 401/403 (`auth`), no quota or credits left (`insufficient_quota`: 429
 *   insufficient_quota, 402 payment required, a 4xx or an error inside a 200 saying so), 429 with a retry-after over
 *   `maxRetryAfterMs` (`rate_limited`), `notCompatibleTries` responses that are not chat completions on a judge
 *   that never had one (`not_openai_compatible`), and (with `ctx.health` not yet
 *   succeeded) a server that cannot be reached (`unreachable`: "cannot reach <host> (<base url>): <system error>");
 *   its message names the judge or the host, the status or system error and the provider's message, never the key.
 */
export async function sendChat(client: OpenAI, req: ChatRequest, ctx: SendContext): Promise<SendResult> {
  const L = sendLoop(req, ctx);
  try {
    const res = await runLoop(client, L);
    if (!L.reached && res.outcome.kind === "error" && (res.outcome.error.kind === "connection" || res.outcome.error.kind === "timeout")) res.unconnected = true;
    return res;
  } catch (e) {
    // a stop after responses of this call were answered (a streamed reply with usage, a body lost after a 200): what
    // they cost rides on the error (`sentBefore`) for the judge's record of what was paid
    if (e instanceof JudgeFatalError && (L.res.usage.prompt_tokens > 0 || (L.res.usage.missing ?? 0) > 0))
      (e as JudgeFatalError & { sentBefore?: SendResult }).sentBefore = L.res;
    throw e;
  }
}

/** The requests of one {@link sendChat} call, sent until an outcome (or a `JudgeFatalError`). */
async function runLoop(client: OpenAI, L: SendLoop): Promise<SendResult> {
  const { res, req, ctx } = L;
  for (;;) {
    if (ctx.signal?.aborted) return L.fail("aborted", "the run was stopped");
    const body = chatRequestBody(req, res.maxTokens, res.tokenParam, L.adapt);
    if (res.temperatureDropped) delete body.temperature;
    const estimated = estimateTokens({ ...req, max_tokens: res.maxTokens });
    // a free slot and no rate gate: nothing to wait for (the run's signal was checked above, nothing awaited since)
    let slot: Slot | undefined = ctx.gate ? undefined : ctx.pacer?.tryAcquire?.();
    if (!slot && (ctx.pacer || ctx.gate)) {
      // waiting for a slot listens on a signal of its own, linked to the run's by one shared listener: one listener
      // per waiting request on the run's signal drew a MaxListenersExceededWarning at concurrency 16
      const waiting = scopedSignal(ctx.signal);
      try {
        if (ctx.pacer) slot = await ctx.pacer.acquire(waiting.signal);
        if (ctx.gate) await ctx.gate.acquire(estimated, waiting.signal);
      } catch {
        slot?.();
        return L.fail("aborted", "the run was stopped");
      } finally {
        waiting.dispose();
      }
    }

    res.requests++;
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    // the client's own timeout stops at the headers; this one also bounds the body (a slow drip)
    const inFlight = ctx.requestSignal ?? ctx.signal;
    const scoped = requestSignal(inFlight, ctx.timeoutMs);
    // a bytes body is sent as is by the client (its `buildBody`), with the content type given here; always bytes: the
    // transport tells by this object whether a 2xx answer to it was lost (`takeLostAnswers`)
    const sent = ctx.bodyJson ? ctx.bodyJson(body) : Buffer.from(JSON.stringify(body), "utf8");
    try {
      completion = (await client.chat.completions.create(sent as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, {
        timeout: ctx.timeoutMs,
        maxRetries: 0,
        signal: scoped.signal,
        headers: JSON_CONTENT_TYPE,
      })) as OpenAI.Chat.Completions.ChatCompletion;
      scoped.dispose();
      slot?.();
      res.requests += takeResends(sent);
      L.reached = true;
    } catch (err) {
      scoped.dispose();
      slot?.();
      res.requests += takeResends(sent);
      if (slot && cutsConcurrency(err)) ctx.pacer?.onRateLimited(slot.seq);
      const r = await onFault(L, err, body, { timedOut: scoped.timedOut(), aborted: inFlight?.aborted === true, lost: takeLostAnswers(sent), unconnected: takeUnconnected(sent) });
      if (r === AGAIN) continue;
      return r;
    }
    const r = await onCompletion(L, completion, body, slot, estimated);
    if (r === AGAIN) continue;
    return r;
  }
}

/** What a step of the send loop says: send again (`AGAIN`), or the result to return. */
const AGAIN = Symbol("again");
type Step = SendResult | typeof AGAIN;

/**
 * The state of one {@link sendChat} call and its helpers: the result being built, the options in force, the
 * retry counters, the adaptations so far, and the ways to fail, wait and back off.
 */
interface SendLoop {
  req: ChatRequest;
  ctx: SendContext;
  o: typeof TRANSPORT_DEFAULTS & TransportOptions;
  res: SendResult;
  random: () => number;
  clean: (s: string) => string;
  fail: (kind: string, message: string) => SendResult;
  wait: (ms: number) => Promise<void>;
  backoff: (k: number) => number;
  transportRetries: number;
  unreachableFailures: number;
  lengthRetried: boolean;
  invalidRetried: boolean;
  paramSwitched: boolean;
  /** Whether a request of this call reached the server (a response, or any fault but a failure to connect). */
  reached: boolean;
  /** The judge's adaptations, plus what this call learns (reported in `adapted` for the judge to keep). */
  adapt: RequestAdaptations;
}

/** A fresh {@link SendLoop} for one call. */
function sendLoop(req: ChatRequest, ctx: SendContext): SendLoop {
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
  return {
    req,
    ctx,
    o,
    res,
    random,
    clean,
    fail: (kind, message) => {
      res.outcome = { kind: "error", error: { kind, message: clean(message) } };
      return res;
    },
    wait: async (ms) => {
      const scaled = ms * o.timeScale;
      res.waitsMs.push(scaled);
      // on a signal of its own linked to the run's (one listener on the run's signal for all waiting requests)
      const scoped = scopedSignal(ctx.signal);
      try {
        await sleep(scaled, scoped.signal);
      } finally {
        scoped.dispose();
      }
    },
    backoff: (k) => Math.min(o.maxBackoffMs, o.baseBackoffMs * 2 ** k) * (0.5 + 0.5 * random()),
    transportRetries: 0,
    unreachableFailures: 0,
    lengthRetried: false,
    invalidRetried: false,
    paramSwitched: false,
    reached: false,
    adapt: { ...(req.adapt ?? {}) },
  };
}

/** Wait `ms` (or the next backoff) and send again, or the error once the retries are spent (`./body-cut.ts`); `rate`: a rate limit, counted (`rateLimited`). */
async function retryOrFail(L: SendLoop, kind: string, message: string, ms?: number, rate?: { retryAfterMs?: number }): Promise<Step> {
  const f = L.transportRetries >= L.o.maxTransportRetries ? gaveUp(kind, message, L.res.requests, L.res.usage.lost ?? 0) : undefined;
  if (rate) addRateLimitWait((L.res.rateLimited ??= noRateLimitWaits()), f ? 0 : (ms ??= L.backoff(L.transportRetries)) * L.o.timeScale, f ? undefined : rate.retryAfterMs);
  if (f) return L.fail(f.kind, f.message);
  const w = ms ?? L.backoff(L.transportRetries);
  L.transportRetries++;
  try {
    await L.wait(w);
  } catch {
    return L.fail("aborted", "the run was stopped");
  }
  return AGAIN;
}

/** The host of a base URL (the URL itself when it does not parse), for fatal messages. */
function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

/**
 * A 200 that is not a chat completion: counted against a judge that never had a valid one (stop at
 * `notCompatibleTries`), retried once per call, then error `invalid_response`.
 */
async function invalidResponse(L: SendLoop, detail: string): Promise<Step> {
  const { ctx, o } = L;
  if (ctx.health && !ctx.health.succeeded) {
    const n = (ctx.health.invalidResponses = (ctx.health.invalidResponses ?? 0) + 1);
    if (n >= Math.max(1, o.notCompatibleTries)) {
      const base = safeBase(ctx.baseURL, "https://api.openai.com/v1");
      throw new JudgeFatalError(
        ctx.judgeId,
        "not_openai_compatible",
        L.clean(
          `${hostOf(base)} (base_url ${base}) does not answer like an OpenAI-compatible chat completions API: ${n} response(s) ` +
            `were not chat completions and judge "${ctx.judgeId}" never had a valid one; the last: ${detail}. Its remaining ` +
            `items stay un-judged: ${detail.includes(STREAMED_NOTE) ? "turn off the forced streaming" : "fix base_url (it usually ends in /v1)"} and run again to resume.`,
        ),
      );
    }
  }
  if (L.invalidRetried) return L.fail("invalid_response", detail);
  L.invalidRetried = true;
  try {
    await L.wait(L.backoff(0));
  } catch {
    return L.fail("aborted", "the run was stopped");
  }
  return AGAIN;
}

/** A request that threw (HTTP error status or transport fault): what `./faults.ts` says to do, done. */
async function onFault(L: SendLoop, err: unknown, body: Record<string, unknown>, how: { timedOut: boolean; aborted: boolean; lost: number; unconnected: boolean }): Promise<Step> {
  const { ctx, o, res, req } = L;
  // what the fault is and what to do: the tables of ./faults.ts
  const fault = classifyError(err, {
    judgeId: ctx.judgeId,
    timeoutMs: ctx.timeoutMs,
    timedOut: how.timedOut,
    aborted: how.aborted,
    canDropTemperature: !res.temperatureDropped && body.temperature !== undefined,
    canSwitchTokenParam: !L.paramSwitched && res.tokenParam === "max_tokens" && res.maxTokens !== undefined,
    sent: sentShape(body, req),
    neverAnswered: ctx.health !== undefined && !ctx.health.succeeded,
    crossOrigin: ctx.health?.crossOrigin,
    maxRetryAfterMs: o.maxRetryAfterMs,
    random: L.random,
  });
  // the server answered 2xx and the body never arrived whole (cut, timed out, stopped while read): generated and
  // probably billed, its usage unread: a response without usage (cost unknown, never $0; red team 37b F1). The fault
  // itself is what it was (a reset or a timeout, retried).
  const lost = how.lost || (fault.action === "retry" && fault.answered ? 1 : 0);
  // a request the server gave no answer at all (refused, no connection in time, closed before any byte): the
  // lost-endpoint rule counts items made only of these (`./no-answer.ts`)
  const silent = noAnswer(
    err,
    fault.action === "connection" ? "connection" : fault.action === "retry" && fault.kind === "timeout" ? "timeout" : "other",
    fault.action === "connection" && isUnreachable(connectionCause(err)),
    how.unconnected,
    lost,
  );
  if (silent === undefined) L.reached = true;
  else if (silent === "connect_timeout" && fault.action === "retry") fault.message = connectTimeoutMessage(how.timedOut, ctx.timeoutMs);
  if (lost) addUsage(res.usage, { prompt_tokens: 0, completion_tokens: 0, missing: lost, lost });
  switch (fault.action) {
    case "aborted":
      return L.fail("aborted", "the run was stopped");
    case "error":
      // a reply past the size limit was generated (and billed) but its usage was never read: cost unknown, never $0
      // (red team 26: a 30 MB reply counted $0 and let --max-cost under-count)
      if (fault.kind === "response_too_large") addUsage(res.usage, readUsage(undefined));
      return L.fail(fault.kind, fault.message);
    case "fatal":
      throw new JudgeFatalError(ctx.judgeId, fault.kind, L.clean(fault.message));
    case "refused":
      res.outcome = { kind: "refused", message: L.clean(fault.message) };
      return res;
    case "model_output":
      // the model's own output, refused by the server's JSON check: the conversation treats it as an unparseable reply.
      // The model ran (paid): its usage when the error body has one, else a response without usage (cost unknown, never 0)
      addUsage(res.usage, readUsage((err as { error?: { usage?: unknown } }).error?.usage));
      if (fault.output !== undefined) res.raw.push(clipMessage(L.clean(fault.output), 20_000));
      res.outcome = { kind: "error", error: { kind: fault.kind, message: L.clean(fault.message) }, ...(fault.output !== undefined ? { output: L.clean(fault.output) } : {}) };
      return res;
    case "resend":
      if (fault.adapt === "drop_temperature") res.temperatureDropped = true;
      else if (fault.adapt === "max_completion_tokens") {
        L.paramSwitched = true;
        res.tokenParam = "max_completion_tokens";
      } else {
        // a judge-level fault: adapt this request at once; the judge keeps it for every later one (`adapted`)
        const what = applyAdaptation(L.adapt, fault.adapt, req, fault.value);
        if (what === undefined) return L.fail("bad_request", `HTTP 400 (already adapted: ${fault.adapt}): ${redact(String((err as Error).message), ctx.secrets)}`);
        (res.adapted ??= []).push({ kind: fault.adapt, ...(fault.value !== undefined ? { value: fault.value } : {}), what });
      }
      return AGAIN;
    case "invalid_response":
      return invalidResponse(L, fault.message);
    case "retry":
      return retryOrFail(L, fault.kind, fault.message, fault.waitMs, fault.kind === "rate_limited" ? { retryAfterMs: fault.retryAfterMs } : undefined);
    case "connection":
      return onConnectionFault(L, fault.message, fault.unreachable === true);
  }
}

/** A connection fault: retried; on a judge that never answered and an address that fails, a bounded retry then `unreachable`. */
async function onConnectionFault(L: SendLoop, message: string, unreachable: boolean): Promise<Step> {
  const { ctx, o } = L;
  if (!unreachable) return retryOrFail(L, "connection", `connection failed: ${message}`);
  // Never answered yet and the address itself fails: a short bounded retry, then stop this judge.
  L.unreachableFailures++;
  if (L.unreachableFailures >= Math.max(1, o.unreachableTries)) {
    const base = safeBase(ctx.baseURL, "https://api.openai.com/v1");
    throw new JudgeFatalError(
      ctx.judgeId,
      "unreachable",
      L.clean(
        `cannot reach ${hostOf(base)} (base_url ${base}${ctx.baseURL ? "" : ": the config gives no base_url, so the OpenAI API is called"}): ${message}; ${L.unreachableFailures} request(s) failed and judge ` +
          `"${ctx.judgeId}" never had an answer. Its remaining items stay un-judged: fix base_url or start the server, then run again to resume.`,
      ),
    );
  }
  try {
    await L.wait(Math.min(o.baseBackoffMs, 1000) * (0.5 + 0.5 * L.random()));
  } catch {
    return L.fail("aborted", "the run was stopped");
  }
  return AGAIN;
}

/** A response the client parsed (HTTP 2xx): usage counted, then what the reply is (`./classify.ts`), acted on. */
async function onCompletion(
  L: SendLoop,
  completion: OpenAI.Chat.Completions.ChatCompletion,
  body: Record<string, unknown>,
  slot: Slot | undefined,
  estimated: number,
): Promise<Step> {
  const { ctx, res } = L;
  ctx.pacer?.onSuccess();
  if (typeof completion === "object" && completion !== null) {
    const u = readUsage(completion.usage, { replyChars: replyChars(completion) });
    addUsage(res.usage, u);
    if (!u.missing) ctx.gate?.settle?.(estimated, u.prompt_tokens + u.completion_tokens);
  } else if (isStreamedBody(completion)) {
    // streamed though no stream was asked for: the model ran; its usage is in the chunks, or unknown (never $0)
    addUsage(res.usage, streamedUsage(completion));
  }
  // What the reply is: the one classifier of the online and Batch paths (./classify.ts).
  const cls = classifyCompletion(completion, { isComplete: ctx.isComplete, model: typeof body.model === "string" ? body.model : undefined, ...lazyPromptSize(body) });
  const message = (chosenChoice(completion).choice as { message?: OpenAI.Chat.Completions.ChatCompletionMessage } | undefined)?.message;
  switch (cls.kind) {
    case "transient": {
      // An HTTP 200 that carries a provider failure (OpenRouter and other routers): a transient fault of the
      // provider behind the endpoint. Backoff and retry, then an error with the provider's code and message;
      // never a label, never "not OpenAI-compatible" (the endpoint answered in the API's own shape).
      const inBand = cls.fault;
      if (ctx.health) ctx.health.succeeded = true;
      res.raw.push(clipMessage(L.clean(JSON.stringify({ error: inBand.raw }))));
      if (inBand.rateLimited && slot) ctx.pacer?.onRateLimited(slot.seq);
      // credits or quota used up, said inside a 200 (OpenRouter code 402): fatal, as the same HTTP status is
      if (inBand.quota)
        throw new JudgeFatalError(
          ctx.judgeId,
          "insufficient_quota",
          L.clean(
            `judge "${ctx.judgeId}": the account has no credits or quota left (${inBand.where}${inBand.code !== undefined ? `, code ${inBand.code}` : ""}): ` +
              `${clipMessage(inBand.message)}. Its remaining items stay un-judged: top up the account, then run the same command again to resume.`,
          ),
        );
      const what = `provider error in an HTTP 200 (${inBand.where}${inBand.code !== undefined ? `, code ${inBand.code}` : ""}): ${clipMessage(L.clean(inBand.message))}`;
      return retryOrFail(L, "provider_error", what, undefined, inBand.rateLimited ? {} : undefined);
    }
    case "invalid": {
      // a non-JSON body (an HTML page) comes back from the client as a string
      const text = typeof completion === "string" ? completion : JSON.stringify(completion ?? null);
      res.raw.push(clipMessage(L.clean(text)));
      return invalidResponse(L, clipMessage(cls.message));
    }
  }
  // only a completion-shaped answer counts as the judge having answered (`unreachable`, `not_openai_compatible`)
  if (ctx.health) ctx.health.succeeded = true;
  res.raw.push(cls.kind === "reply" ? cls.content : L.clean(JSON.stringify(message ?? null)));
  switch (cls.kind) {
    case "refused":
      res.outcome = { kind: "refused", message: L.clean(cls.message) };
      return res;
    case "final":
      return L.fail(cls.errorKind, cls.message);
    case "cut":
      if (!L.lengthRetried) {
        L.lengthRetried = true;
        res.maxTokens = res.maxTokens !== undefined ? res.maxTokens * 2 : TRUNCATION_RETRY_MAX_TOKENS;
        return AGAIN;
      }
      return cls.errorKind === "truncated"
        ? L.fail("truncated", `the reply was cut at the token limit (finish_reason "length", max_tokens ${res.maxTokens ?? "unset"})`)
        : L.fail("empty_response", emptyReplyMessage(cls));
    case "reply":
      res.outcome = {
        kind: "reply",
        content: cls.content,
        finishReason: cls.finishReason,
        ...(cls.reasoning !== undefined ? { reasoning: cls.reasoning } : {}),
        ...(cls.notes.length ? { notes: cls.notes } : {}),
      };
      return res;
  }
}

/** What a request sent that a judge-level adaptation can change (`FaultState.sent`). */
export function sentShape(body: Record<string, unknown>, req: ChatRequest): NonNullable<import("./faults.js").FaultState["sent"]> {
  const msgs = (body.messages as { role?: string; reasoning_content?: unknown }[] | undefined) ?? [];
  const rf = body.response_format as { type?: unknown } | undefined;
  const mt = body.max_tokens ?? body.max_completion_tokens;
  return {
    system: msgs.some((m) => m.role === "system"),
    ...(rf && typeof rf.type === "string" ? { responseFormat: rf.type } : {}),
    ...(typeof mt === "number" ? { maxTokens: mt } : {}),
    reasoningWithheld: req.messages.some((m) => m.role === "assistant" && m.reasoning_content !== undefined) && !msgs.some((m) => m.reasoning_content !== undefined),
  };
}
