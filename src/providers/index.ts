// src/providers/: everything that talks to an endpoint, behind one contract (ChatSender.send): client over fetch,
// fault policy as data, send loop, pacing, Batch API endpoint; money and token counting.
/**
 * The provider layer: everything the judge conversation needs from an endpoint, behind one small contract.
 *
 * ## The contract
 * A judge conversation (`src/judges/conversation.ts`: render, parse, verify, feedback, downgrade) talks to a provider
 * only through a {@link ChatSender}:
 *
 * ```ts
 * send(request: ChatRequest, { signal, tokenParam }): Promise<SendResult>
 * ```
 * - `request`: `{model, messages: [{role, content}], temperature?, max_tokens?, response_format?, extra_body?}`
 *   (a `temperature` left undefined is not sent: reasoning models).
 * - resolves to `{outcome, requests, usage, raw, waitsMs, maxTokens, tokenParam, temperatureDropped?}` where
 *   `outcome` is `{kind: "reply", content}`, `{kind: "refused", message}` or `{kind: "error", error: {kind, message}}`
 *   (kinds: `rate_limited`, `server_error`, `timeout`, `connection`, `bad_request`, `http_<status>`,
 *   `invalid_response`, `provider_error`, `truncated`, `empty_response`, `reasoning_only`, `context_length`,
 *   `response_too_large`, `decode_error` (a compressed body cut short), `aborted`); `usage` carries cached and reasoning tokens and `missing` (responses without
 *   usage). It never resolves to a label and never throws for a fault of one request.
 * - rejects only with a `JudgeFatalError` (kinds `auth`, `insufficient_quota`, `rate_limited` (retry-after over the
 *   limit), `unreachable`, `not_openai_compatible`, `model_not_found`): the judge is stopped, its items stay
 *   un-judged for a resume (the LLM judge adds `reasoning_only` and `empty_replies`, and attaches the record of a
 *   conversation's paid turns as `paid`). Error kinds added by issue 23: `prompt_truncated` (the server read less
 *   than was sent), `json_validate_failed` (the model's output, with `output`); a reply may carry `reasoning` and
 *   `notes` (e.g. `finish_reason "length"` on a complete reply); `adapted` lists the judge-level adaptations made.
 * - behind it, per judge (`createChatSender`, `./sender.ts`, returning a `JudgeEndpoint`: the sender, and apart
 *   from it the client the Batch API path reuses, the limiter, the redirect record): the `openai` v6 client (credentials from the
 *   environment: `clientSettings`, in `src/config/judges.ts` beside the config checks that share its rules)
 *   whose `fetch` sends chat completions over undici's `request()` (`./chat-transport.ts`, with `fetch`'s answers and
 *   failure shapes) with a reader that bounds the decoded body (`./fetch.ts`); the fault policy as data
 *   (`./faults.ts`: status and error tables -> retry with backoff, wait the retry-after, resend adapted, error kind,
 *   fatal kind) carried out by the send loop (`./send.ts`); rpm/tpm pacing and AIMD concurrency (`./pacing.ts`).
 *   The SDK gives the mechanism where it can (its `APIError` classes, status, error body, headers, request id); its
 *   own retries are off (`maxRetries: 0`) because the policy needs what they do not do: the AIMD cut on a 429,
 *   stopping a judge whose address cannot be reached, `insufficient_quota` as fatal, a cap on `retry-after`,
 *   resends adapted to the server, every wait recorded. The Batch API path (`src/run/batch.ts`, over `./batch-api.ts`)
 *   drives the same conversation with result lines instead of sends, classified by the same rules: a reply by
 *   `classifyCompletion` (`./classify.ts`), a failed line by the status table (`./batch-results.ts`).
 *
 * Money and token counting live here too: `./cost.ts` (price -> USD, the batch price, totals that know what they could not count; `./plausible-usage.ts`: usage no request could hold),
 * `./tokens.ts` (real tokenizers for OpenAI models, labelled estimates otherwise).
 */
export type { ChatSender, JudgeEndpoint, SendOptions } from "./sender.js";
export { createChatSender } from "./sender.js";
export type { ChatMessage, ChatRequest, SendOutcome, SendResult, Usage } from "./send.js";
export { addUsage, providerFault, readUsage, reasoningText, rejectsTemperature, isContextLength } from "./send.js";
export { clientSettings, NON_VERDICT_FIELDS, type ClientSettings, type JudgePrice } from "../config/judges.js";
export { addCost, describeCost, emptyCost, formatUsd, tokensCost, usageCost, type CostTotal } from "./cost.js";
export { countPromptTokens, tokenizerFor, tokenCounter, type TokenizerName } from "./tokens.js";
export { classifyError, cutsConcurrency, ERROR_FAULTS, HTTP_FAULTS, type Fault, type FaultState } from "./faults.js";
export { sendChat, type TransportOptions } from "./send.js";
export { AimdLimiter, RatePacer } from "./pacing.js";
export { BatchApi, batchCapable, BATCH_URL } from "./batch-api.js";
export { classifyCompletion, contentText, errorEnvelope, promptTruncation, type ReplyClass, type ReplyContext } from "./classify.js";
export { classifyBatchLine, readBatchResults, type BatchReadReport, type BatchResultLine, type LineClass } from "./batch-results.js";
