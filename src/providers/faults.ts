/**
 * The fault policy as data: what a failed chat completions request (or a 200 that carries a failure) is, and what
 * the send loop (`./send.ts`) does about it. Every fault becomes a wait, a status, or a `JudgeFatalError`; never a
 * label (`test/data/cases/B13.json`, `B15.json`).
 *
 * | fault | action |
 * |---|---|
 * | 429 with `retry-after-ms` / `retry-after` (seconds or HTTP date) | wait at least that long plus jitter, retry; cut the AIMD limit |
 * | 429 without a header, or one asking for no wait (0, a date in the past) | exponential backoff with jitter, retry; cut the AIMD limit |
 * | 429 `insufficient_quota` | `JudgeFatalError` kind `insufficient_quota` |
 * | 402 (payment required: OpenRouter "Insufficient credits", DeepSeek "Insufficient Balance"), or any status whose body says the credits / balance / quota are used up ({@link QUOTA_TEXT}) | `JudgeFatalError` kind `insufficient_quota`: items stay un-judged, a plain resume judges them |
 * | 429 with a `retry-after` over `maxRetryAfterMs` (default 300 s) | `JudgeFatalError` kind `rate_limited` ("the provider asks to wait N s; ... run again later to resume") |
 * | 401 / 403 | `JudgeFatalError` kind `auth` |
 * | 400 (and other 4xx except 408/409/429) | no retry: error `bad_request` (`http_<status>`) with the provider's message and request id |
 * | 501 (and 404 / 405, as above): a server that is not an OpenAI-compatible API (e.g. `python -m http.server`) | no retry: error `http_<status>` |
 * | connection refused, unknown host (`ENOTFOUND`, `EAI_AGAIN`), unreachable network, certificate error, a port fetch blocks — on a judge that has never had a successful response | `unreachableTries` requests (default 2, a short wait between), then `JudgeFatalError` kind `unreachable` naming the base URL's host and the system error |
 * | 408, 409, 5xx, timeout, connection reset (and every connection fault once the judge has had a success) | exponential backoff with jitter, retry; then error `server_error` / `http_<status>` / `timeout` / `connection` |
 * | no complete response within `timeoutMs` (headers and body: a slow-drip body counts) | a `timeout`, as above; a 2xx's body: a response without usage |
 * | the connection reset while the body is read (undici "terminated") | a connection reset, as above; after a 2xx, a response without usage (cost unknown) |
 * | a body decoded from its `content-encoding` whose JSON stops mid-way: the gzip / br / deflate stream ended early (`./fetch.ts`, {@link ResponseCutError}) | retried like a reset, then error `decode_error` ("could not be decompressed whole ... a proxy or the provider cut it"); never `invalid_response` |
 * | a chat completion body larger than `maxResponseBytes` (decoded; `./fetch.ts`) | no retry: error `response_too_large` |
 * | a 200 whose body is not a chat completion (not JSON, e.g. an HTML page, whatever its content type; a body that does not follow its content-encoding; a reply that is not valid HTTP; or JSON without `choices[0].message`) | one retry, then error `invalid_response`; it is not a successful answer (see `health`). A judge that never had a valid completion stops at its `notCompatibleTries`-th such response (default 3): `JudgeFatalError` kind `not_openai_compatible` naming the base URL's host |
 * | `finish_reason: "length"`, or empty/null content | resend once with a larger `max_tokens` (double, or 4096 when unset); then error `truncated` / `empty_response` |
 * | `message.refusal` set, or `finish_reason: "content_filter"` | refused |
 * | 400 rejecting `temperature` (reasoning models) | resent once without it (`temperatureDropped`); the judge sends none from then on |
 * | 400 naming `max_completion_tokens` (newer OpenAI models reject `max_tokens`) | resent once with `max_completion_tokens`; the judge keeps it |
 * | 400 saying the prompt exceeds the model's context | no retry: error `context_length` (the judge elides the trajectory to fit, or the item is unjudgeable `too_long`) |
 * | content null or empty with the text in `reasoning_content` / `reasoning` (not cut at the limit) | no resend: error `reasoning_only` (a judge that keeps doing it is stopped) |
 * | a 200 carrying a provider failure: a top-level `error` (beside or instead of `choices`), a choice with `finish_reason: "error"` or its own `error` (a 429 there too) | backoff and retry like a 5xx (a 429 also cuts the AIMD limit), then error `provider_error` with the provider's code and message; never a label, never `not_openai_compatible` |
 * | an error body without OpenAI's `error` envelope (vLLM < 0.10.1 `{"object":"error","message"}`, `{"detail"}`, a string error) | put in the envelope by the client's fetch (`./error-body.ts`), then classified by these rows with its reason |
 * | 400/422 refusing the system role (o1-mini, Gemma templates) | resent once with the rubric in the first user message; the judge keeps it (`system_as_user`) |
 * | 400/422 naming a completion limit below the `max_tokens` sent | resent once clipped to it; the judge keeps it (`lower_max_tokens`) |
 * | 400/422 requiring the assistant's `reasoning_content` on a follow-up turn (DeepSeek thinking mode) | resent once with it; the judge keeps it (`pass_reasoning`) |
 * | 400 `json_validate_failed` (Groq: the model's invalid JSON in `failed_generation`) | the model's output: the conversation treats it as an unparseable reply (a feedback turn, within `retries`) |
 * | 400 `content_filter` (Azure: the prompt was filtered) | refused, with the provider's reason |
 * | 400/422 rejecting `response_format` | resent once with the next dialect (no `strict`, then `json_object`, then none); the judge keeps it (`schema_fallback`) |
 * | 404 (or 400) "model ... does not exist / not found" (vLLM, Ollama) | `JudgeFatalError` kind `model_not_found` |
 *
 * What a 200 reply is (refusal, chunks, truncation, reasoning only, a prompt the server cut) is `./classify.ts`'s,
 * shared with the Batch path.
 *
 * The rows for a thrown error are {@link HTTP_FAULTS} (an HTTP status: first matching row wins) and
 * {@link ERROR_FAULTS} (everything else, in order); {@link classifyError} reads them and returns a {@link Fault},
 * which the send loop carries out. The rows on replies (truncation, refusal, reasoning only, in-band errors, a 200
 * that is not a completion) are read in the send loop, where the reply is.
 *
 * What the SDK gives is used: the `openai` client's `APIError` classes (`APIConnectionError`,
 * `APIConnectionTimeoutError`, `APIUserAbortError`, the status, `error` body, `headers` and `requestID`) classify
 * the fault; its own retry loop is off (`maxRetries: 0`), because the policy needs what it does not do: the AIMD cut
 * on a 429, stopping a judge whose address cannot be reached, `insufficient_quota` as fatal, a cap on
 * `retry-after`, resends adapted to the server (temperature, token parameter, truncation), and every wait recorded.
 */
import { chosenChoice } from "./choice.js";
import OpenAI from "openai";
import { ResponseCutError, ResponseDecodeError, ResponseTooLargeError } from "./fetch.js";
import { clipMessage } from "./redact.js";
import type { AdaptKind } from "./request-body.js";

/** What the send loop does about one fault (messages unredacted: the loop redacts every message it keeps). */
export type Fault =
  /** Wait and send again (at most `maxTransportRetries` per call), then error `kind`; `waitMs` when the server asked for a wait, else backoff. */
  | {
      action: "retry";
      kind: string;
      message: string;
      waitMs?: number;
      retryAfterMs?: number;
      /** The server had answered 2xx and the body was lost while read (generated, probably billed; usage unread). */
      answered?: boolean;
    }
  /** No retry: error `kind`. */
  | { action: "error"; kind: string; message: string }
  /** Stop the judge: `JudgeFatalError` of `kind`. */
  | { action: "fatal"; kind: "auth" | "insufficient_quota" | "rate_limited" | "model_not_found"; message: string }
  /** A reply that is not a chat completion: counted toward `not_openai_compatible`, one retry, then `invalid_response`. */
  | { action: "invalid_response"; message: string }
  /** A connection failure: on a judge that never answered and an address that cannot be reached, bounded tries then `unreachable`; else like `retry`. */
  | { action: "connection"; unreachable: boolean; message: string }
  /** Send again at once, adapted to what the server said (`value`: the completion cap of `lower_max_tokens`). */
  | { action: "resend"; adapt: AdaptKind; value?: number }
  /** The provider refused the request for its content (Azure's content filter on the prompt): a refusal with its reason. */
  | { action: "refused"; message: string }
  /** The model's output failed the server's JSON check (Groq `json_validate_failed`): a parse failure of the reply, `output` the model's text. */
  | { action: "model_output"; kind: string; message: string; output?: string }
  /** The run was stopped. */
  | { action: "aborted" };

/** What the row predicates may read besides the error: the send's state. */
export interface FaultState {
  judgeId: string;
  timeoutMs: number;
  /** The request's own timer fired (the body counts: a slow drip). */
  timedOut: boolean;
  /** The run's signal aborted. */
  aborted: boolean;
  /** A `temperature` was sent and has not been dropped yet. */
  canDropTemperature: boolean;
  /** `max_tokens` was sent and the parameter not switched yet. */
  canSwitchTokenParam: boolean;
  /** What the request sent that a judge-level adaptation can change (absent: no adaptation is tried). */
  sent?: {
    /** It had a system message. */
    system: boolean;
    /** Its `response_format` type, if any. */
    responseFormat?: string;
    /** The completion budget sent. */
    maxTokens?: number;
    /** It had assistant turns whose reasoning was not sent back. */
    reasoningWithheld: boolean;
  };
  /** The judge never had a completion-shaped answer. */
  neverAnswered: boolean;
  /** A redirect this judge's requests followed to another origin (no credential header is sent there). */
  crossOrigin?: { from: string; to: string };
  /** `retry-after` over this (ms) is not waited for. */
  maxRetryAfterMs: number;
  /** Uniform [0,1) for jitter. */
  random: () => number;
}

type ApiError = InstanceType<typeof OpenAI.APIError>;

/**
 * One row of the HTTP status table: the statuses it covers, an optional condition, and the fault it makes (built
 * from the error, its provider message `msg` and the state).
 */
export interface HttpFaultRow {
  statuses: (status: number) => boolean;
  when?: (e: ApiError, s: FaultState) => boolean;
  fault: (e: ApiError, msg: string, s: FaultState) => Fault;
}

const is = (...xs: number[]) => (st: number) => xs.includes(st);

/** The HTTP status table (the module docstring's rows for a status): first matching row wins. */
export const HTTP_FAULTS: readonly HttpFaultRow[] = [
  {
    statuses: is(401, 403),
    fault: (e, msg, s) => ({
      action: "fatal",
      kind: "auth",
      message:
        `judge "${s.judgeId}": the API refused the credentials (HTTP ${e.status}): ${msg}. ` +
        (s.crossOrigin
          ? `The requests were redirected from ${s.crossOrigin.from} to another origin, ${s.crossOrigin.to}, where no credential is sent ` +
            `(a key goes only to the server it was configured for): if ${s.crossOrigin.to} is the endpoint, set base_url to it.`
          : `Check the key in the judge's api_key_env.`),
    }),
  },
  {
    statuses: is(429),
    when: (e) => isQuota(e),
    fault: (_e, msg, s) => ({ action: "fatal", kind: "insufficient_quota", message: `judge "${s.judgeId}": the account has no quota left (HTTP 429 insufficient_quota): ${msg}` }),
  },
  {
    // Payment required (OpenRouter 402 "Insufficient credits", DeepSeek 402 "Insufficient Balance"), or another
    // 4xx whose body says the money is gone: like an exhausted quota, every other item would get the same answer.
    // Stop this judge; its items stay un-judged, so the same command resumes them once the account is topped up.
    statuses: (st) => st === 402 || (st >= 400 && st < 500 && st !== 429),
    when: (e) => e.status === 402 || isQuota(e),
    fault: (e, msg, s) => ({
      action: "fatal",
      kind: "insufficient_quota",
      message:
        `judge "${s.judgeId}": the account has no credits or quota left (HTTP ${e.status}${e.status === 402 ? " payment required" : ""}): ${msg}. ` +
        `Its remaining items stay un-judged: top up the account, then run the same command again to resume.`,
    }),
  },
  {
    // Every other item would get the same answer within seconds (a corpus of judge_error verdicts, exit 0):
    // stop this judge so its items stay un-judged for a later run.
    statuses: is(429),
    when: (e, s) => (retryAfterMs(e.headers) ?? 0) > s.maxRetryAfterMs,
    fault: (e, msg, s) => ({
      action: "fatal",
      kind: "rate_limited",
      message:
        `judge "${s.judgeId}": the provider asks to wait ${Math.round(retryAfterMs(e.headers)! / 1000)} s (HTTP 429 retry-after, over the ` +
        `${Math.round(s.maxRetryAfterMs / 1000)} s this run waits): ${msg}. Its remaining items stay un-judged; run again later to resume.`,
    }),
  },
  {
    // the asked wait + up to 25% (and 50-250 ms) jitter; the backoff without one or for no wait (0, a past date)
    statuses: is(429),
    fault: (e, msg, s) => {
      const ra = retryAfterMs(e.headers);
      const waitMs = ra !== undefined && ra > 0 ? ra + ra * 0.25 * s.random() + 50 + 200 * s.random() : undefined;
      return { action: "retry", kind: "rate_limited", message: `rate limited: ${msg}`, waitMs, ...(waitMs !== undefined ? { retryAfterMs: ra } : {}) };
    },
  },
  { statuses: is(408, 409), fault: (e, msg) => ({ action: "retry", kind: `http_${e.status}`, message: `HTTP ${e.status}: ${msg}` }) },
  { statuses: (st) => st >= 500 && isTransientStatus(st), fault: (e, msg) => ({ action: "retry", kind: "server_error", message: `HTTP ${e.status}: ${msg}` }) },
  {
    // Reasoning models (OpenAI o-series, gpt-5) accept no temperature: send without it, once; the judge keeps
    // that for its later requests (`temperatureDropped`), so no item pays this 400 again.
    statuses: is(400),
    when: (e, s) => s.canDropTemperature && rejectsTemperature(e.message),
    fault: () => ({ action: "resend", adapt: "drop_temperature" }),
  },
  {
    // the prompt does not fit the model's context: the judge elides the trajectory to fit, or the item is too_long
    statuses: is(400),
    when: (e) => isContextLength(e.message),
    fault: (_e, msg) => ({ action: "error", kind: "context_length", message: `HTTP 400: ${msg}` }),
  },
  {
    // Newer OpenAI models reject `max_tokens` and name the replacement: switch once.
    statuses: is(400),
    when: (e, s) => s.canSwitchTokenParam && /max_completion_tokens/.test(e.message),
    fault: () => ({ action: "resend", adapt: "max_completion_tokens" }),
  },
  {
    // The model refuses the system role (OpenAI o1-mini: "'messages[0].role' does not support 'system'", Gemma chat
    // templates on vLLM: "System role not supported"): the rubric goes into the first user message, learned once.
    statuses: is(400, 422),
    when: (e, s) => s.sent?.system === true && rejectsSystemRole(errorText(e)),
    fault: () => ({ action: "resend", adapt: "system_as_user" }),
  },
  {
    // A completion budget over the model's limit (OpenAI "max_tokens is too large: N. This model supports at most M
    // completion tokens", DeepSeek "the valid range of max_tokens is [1, M]", Groq "must be less than or equal to M"):
    // clipped to the limit the server names, learned once.
    statuses: is(400, 422),
    when: (e, s) => s.sent?.maxTokens !== undefined && tokenCap(errorText(e), s.sent.maxTokens) !== undefined,
    fault: (e, _msg, s) => ({ action: "resend", adapt: "lower_max_tokens", value: tokenCap(errorText(e), s.sent!.maxTokens!) }),
  },
  {
    // DeepSeek thinking mode: a follow-up turn must carry the assistant's reasoning_content
    statuses: is(400, 422),
    when: (e, s) => s.sent?.reasoningWithheld === true && /reasoning_content/i.test(errorText(e)) && /missing|required|must|need/i.test(errorText(e)),
    fault: () => ({ action: "resend", adapt: "pass_reasoning" }),
  },
  {
    // The model produced invalid JSON in JSON mode (Groq 400 json_validate_failed, with its text in
    // failed_generation): a parse failure of the reply, which the conversation answers with a feedback turn.
    statuses: is(400),
    when: (e) => isModelOutputRejected(e.status, errorCode(e), e.message),
    fault: (e, msg) => {
      const fg = (e.error as { failed_generation?: unknown } | undefined)?.failed_generation;
      return { action: "model_output", kind: "json_validate_failed", message: `the server's JSON check rejected the model's output (HTTP 400): ${msg}`, ...(typeof fg === "string" ? { output: fg } : {}) };
    },
  },
  {
    // The provider's content filter refused the prompt (Azure OpenAI: 400 code content_filter,
    // innererror ResponsibleAIPolicyViolation): a refusal with its reason, like finish_reason content_filter.
    statuses: is(400),
    when: (e) => isContentFilter(e),
    fault: (_e, msg) => ({ action: "refused", message: `the provider's content filter refused the prompt (HTTP 400): ${msg}` }),
  },
  {
    // The response_format the server rejects (a schema it cannot take, json_schema or json_object unsupported):
    // the next dialect (no strict, then JSON mode, then none), learned once.
    statuses: is(400, 422),
    when: (e, s) => s.sent?.responseFormat !== undefined && rejectsResponseFormat(errorText(e)),
    fault: () => ({ action: "resend", adapt: "schema_fallback" }),
  },
  {
    // The model does not exist on this server (vLLM 404 "The model `x` does not exist.", Ollama "model 'x' not found"):
    // every item would get the same answer; stop the judge.
    statuses: is(404, 400),
    when: (e) => /\bmodel\b/i.test(e.message) && /does not exist|not found|no such model|unknown model|not a valid model/i.test(e.message),
    fault: (e, msg, s) => ({
      action: "fatal",
      kind: "model_not_found",
      message: `judge "${s.judgeId}": the server has no such model (HTTP ${e.status}): ${msg}. Check the judge's model name; its items stay un-judged.`,
    }),
  },
  { statuses: () => true, fault: (e, msg) => ({ action: "error", kind: e.status === 400 ? "bad_request" : `http_${e.status}`, message: `HTTP ${e.status}: ${msg}` }) },
];

/** The error's message with its body's `code`, `type` and `param` (what the adaptation rows read). */
function errorText(e: ApiError): string {
  const b = e.error as { code?: unknown; type?: unknown; param?: unknown } | undefined;
  return [e.message, b?.code, b?.type, b?.param].filter((x) => typeof x === "string").join(" ");
}

/** The error body's `code` (or the error's), as a string. */
function errorCode(e: ApiError): string | undefined {
  const c = (e.error as { code?: unknown } | undefined)?.code ?? e.code;
  return typeof c === "string" || typeof c === "number" ? String(c) : undefined;
}

/**
 * Whether an error status says the server's JSON check rejected the model's output (Groq 400
 * `json_validate_failed`, its text in `failed_generation`). Such a request was answered by the model, so it is paid
 * for; its error body carries no usage, so its tokens (and the verdict's cost) are unknown, never 0.
 * @param status the HTTP status; `code` the error body's code; `message` its message.
 */
export function isModelOutputRejected(status: number | undefined, code: string | undefined, message: string): boolean {
  return status === 400 && (code === "json_validate_failed" || /failed to generate json|json_validate_failed/i.test(message));
}

/** Whether a 400 says the model takes no system message. */
export function rejectsSystemRole(message: string): boolean {
  return /system/i.test(message) && /role|message/i.test(message) && /not supported|unsupported|does not support|not allowed|invalid|must alternate/i.test(message);
}

/** Whether a 400 rejects the request's `response_format` (its schema, or the mode). */
export function rejectsResponseFormat(message: string): boolean {
  return (
    /response_format|json_schema|json_object|guided_json|structured output|schema/i.test(message) &&
    /invalid|not supported|unsupported|does not support|not allowed|unknown|cannot|unable|only .* supported/i.test(message)
  );
}

/**
 * The completion limit a 400 names for a budget `sent` that is too large ("at most M", "[1, M]", "<= M",
 * "less than or equal to M", "maximum value ... is M"): the largest number in the message below `sent` and above
 * 15, when the message speaks of max_tokens or completion tokens.
 */
export function tokenCap(message: string, sent: number): number | undefined {
  if (!/max_(completion_)?tokens|completion tokens|max tokens|output tokens/i.test(message)) return undefined;
  if (!/too large|at most|valid range|less than or equal|maximum|exceeds|must be|<=/i.test(message)) return undefined;
  if (isContextLength(message) && !/completion tokens|output tokens/i.test(message)) return undefined;
  const nums = [...message.matchAll(/\d[\d,_]*/g)].map((m) => Number(m[0].replace(/[,_]/g, ""))).filter((n) => Number.isFinite(n) && n > 15 && n < sent);
  return nums.length ? Math.max(...nums) : undefined;
}

/** Whether an error says the provider's content filter refused the prompt (Azure OpenAI's shape). */
export function isContentFilter(e: ApiError): boolean {
  const b = e.error as { code?: unknown; innererror?: { code?: unknown } } | undefined;
  return b?.code === "content_filter" || b?.innererror?.code === "ResponsibleAIPolicyViolation" || /content management policy|content_filter/i.test(e.message);
}

/** One row of the table for errors that carry no HTTP status: a test and the fault it makes. */
export interface ErrorFaultRow {
  what: string;
  test: (err: unknown, s: FaultState) => boolean;
  fault: (err: unknown, s: FaultState) => Fault;
}

/** The table for everything thrown that is not an HTTP status (in order; the HTTP rows come after `APIConnectionError`). */
export const ERROR_FAULTS: readonly ErrorFaultRow[] = [
  { what: "the run was stopped", test: (_e, s) => s.aborted, fault: () => ({ action: "aborted" }) },
  {
    what: "a body past maxResponseBytes",
    test: (e) => e instanceof ResponseTooLargeError,
    fault: (e) => ({ action: "error", kind: "response_too_large", message: (e as Error).message }),
  },
  {
    // a body that does not follow its content-encoding, or a reply that is not valid HTTP: the same would come back
    what: "a body that cannot be decoded",
    test: (e) => e instanceof ResponseDecodeError,
    fault: (e) => ({ action: "invalid_response", message: clipMessage((e as Error).message, 300) }),
  },
  {
    // a compressed body whose stream ended early (its JSON stops mid-way): cut on the way, not the server's answer
    what: "a compressed body cut short",
    test: (e) => e instanceof ResponseCutError,
    fault: (e) => ({ action: "retry", kind: "decode_error", message: (e as Error).message, answered: true }),
  },
  {
    what: "no complete answer in time",
    test: (e, s) => e instanceof OpenAI.APIConnectionTimeoutError || s.timedOut,
    fault: (_e, s) => ({ action: "retry", kind: "timeout", message: `no answer within ${s.timeoutMs / 1000} s` }),
  },
  { what: "aborted by the client", test: (e) => e instanceof OpenAI.APIUserAbortError, fault: () => ({ action: "aborted" }) },
  {
    // the connection dropped while the body was read: a reset like any other (never "unreachable": it answered)
    what: "a reset while the body was read",
    test: (e) => !(e instanceof OpenAI.APIError) && isBodyReset(e),
    // (thrown by the client's own read of a 2xx body: it reads an error status's body without throwing)
    fault: (e) => ({ action: "retry", kind: "connection", message: `connection reset while reading the response: ${clipMessage(connectionCause(e).message, 300)}`, answered: true }),
  },
  {
    what: "a connection failure",
    test: (e) => e instanceof OpenAI.APIConnectionError,
    fault: (e, s) => {
      const cause = connectionCause(e);
      const what = clipMessage(cause.code ? `${cause.code} (${cause.message})` : cause.message || (e as Error).message, 300);
      return { action: "connection", unreachable: s.neverAnswered && isUnreachable(cause), message: what };
    },
  },
  {
    what: "an HTTP status",
    test: (e) => e instanceof OpenAI.APIError && typeof e.status === "number",
    fault: (e, s) => {
      const err = e as ApiError;
      const row = HTTP_FAULTS.find((r) => r.statuses(err.status as number) && (!r.when || r.when(err, s)))!;
      return row.fault(err, providerMessage(err), s);
    },
  },
  {
    // a 200 with a JSON content type whose body is not JSON (the client's parse failed)
    what: "a body that is not JSON",
    test: (e) => e instanceof SyntaxError,
    fault: (e) => ({ action: "invalid_response", message: `HTTP 200 with a JSON content type but a body that is not JSON (${clipMessage((e as Error).message, 200)})` }),
  },
  {
    what: "anything else",
    test: () => true,
    fault: (e) => ({ action: "error", kind: "transport", message: `request failed: ${clipMessage(String((e as Error)?.message ?? e))}` }),
  },
];

/** The fault a thrown error is: the first row of {@link ERROR_FAULTS} (and, for a status, {@link HTTP_FAULTS}) that matches. */
export function classifyError(err: unknown, s: FaultState): Fault {
  return ERROR_FAULTS.find((r) => r.test(err, s))!.fault(err, s);
}

/** Whether a 429 is a rate limit that should cut the AIMD limit (not `insufficient_quota`). */
export function cutsConcurrency(err: unknown): boolean {
  return err instanceof OpenAI.APIError && err.status === 429 && !isQuota(err);
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
export function safeBase(url: string | undefined, fallback: string): string {
  if (!url) return fallback;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`;
  } catch {
    return fallback;
  }
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

/** A provider failure carried inside an HTTP 200 (see {@link providerFault}). */
export interface InBandFault {
  /** `top-level error` or `choices[0] finish_reason "error"` / `choices[0].error`. */
  where: string;
  code?: string | number;
  message: string;
  /** The fault is a rate limit (code 429 or a rate-limit type): the AIMD limiter is told, as for an HTTP 429. */
  rateLimited: boolean;
  /**
   * The fault says the account's credits or quota are used up (code 402, or {@link QUOTA_TEXT}): fatal for the
   * judge (`insufficient_quota`), as the same HTTP status is, on the online and Batch paths alike.
   */
  quota: boolean;
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
    const quota = code === 402 || code === "402" || QUOTA_TEXT.test(`${String(o.type ?? "")} ${String(code ?? "")} ${message}`);
    return { where, code, message, rateLimited: rateLimited && !quota, quota, raw: e ?? null };
  };
  if (c.error !== undefined && c.error !== null && c.error !== false) return read(c.error, "top-level error");
  const choice = chosenChoice(c).choice as { finish_reason?: unknown; error?: unknown } | undefined;
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
 * The wait a 429 asks for, in ms: `retry-after-ms` (milliseconds) wins, else `retry-after` as seconds
 * (fractions allowed) or as an HTTP date (RFC 9110 section 10.2.3). A value that is not one of these (negative,
 * NaN, empty, text) is ignored, so the normal backoff applies (red team 37b F4: `retry-after: -5` was read as 0 and
 * switched the backoff off: 7 requests in 1.7 s); a date in the past is 0, which the 429 rule backs off from too.
 * @returns ms >= 0, or `undefined` when neither header is present and valid.
 */
export function retryAfterMs(headers: Headers | Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (k: string): string | null | undefined =>
    headers instanceof Headers ? headers.get(k) : (headers as Record<string, string>)[k];
  const ms = nonNegative(get("retry-after-ms"));
  if (ms !== undefined) return ms;
  const ra = get("retry-after");
  if (ra == null || ra.trim() === "") return undefined;
  const s = nonNegative(ra);
  if (s !== undefined) return s * 1000;
  // a number that is not a valid delay (negative, Infinity) is not a date either
  if (/^\s*[-+]?[\d.]/.test(ra)) return undefined;
  const d = Date.parse(ra);
  return Number.isNaN(d) ? undefined : Math.max(0, d - now);
}

/** A header value read as a non-negative finite number (a delay), else undefined (absent, empty, negative, NaN, text). */
function nonNegative(v: string | null | undefined): number | undefined {
  if (v == null || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * Statuses worth sending again after a wait, on every path (chat requests, Batch API calls, batch result lines):
 * 408, 409, 429 (unless the quota is gone: {@link isQuota}) and 5xx except 501 Not Implemented (the server is not an
 * OpenAI-compatible API; retrying cannot help, nor can 404/405).
 */
export function isTransientStatus(st: number): boolean {
  return st === 408 || st === 409 || st === 429 || (st >= 500 && st !== 501);
}

/**
 * The text that says an account's quota or money is used up, in a code, type or message: OpenAI
 * `insufficient_quota` / "exceeded your current quota", OpenRouter "Insufficient credits", DeepSeek "Insufficient
 * Balance", Anthropic "credit balance is too low", "payment required" (HTTP 402's reason).
 */
export const QUOTA_TEXT =
  /insufficient_quota|exceeded your current quota|insufficient[ _](credits?|balance|funds)|credit balance is too low|out of credits|payment[ _]required/i;

/** Whether an error says the quota or credits are used up (fatal: waiting cannot help), not a rate limit. */
export function isQuota(e: InstanceType<typeof OpenAI.APIError>): boolean {
  const body = e.error as { code?: unknown; type?: unknown } | undefined;
  return (
    e.code === "insufficient_quota" ||
    e.type === "insufficient_quota" ||
    body?.code === "insufficient_quota" ||
    body?.type === "insufficient_quota" ||
    QUOTA_TEXT.test(e.message)
  );
}

/** The provider's error message (cut to {@link MAX_PROVIDER_MESSAGE_CHARS}), with the request id when the server gave one. */
export function providerMessage(e: InstanceType<typeof OpenAI.APIError>): string {
  const id = e.requestID ?? e.headers?.get?.("x-request-id") ?? undefined;
  return clipMessage(e.message) + (id ? ` (request id ${clipMessage(String(id), 100)})` : "");
}
