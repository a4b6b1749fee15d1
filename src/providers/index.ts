/**
 * The provider layer: everything the judge conversation needs from an endpoint, behind one small contract.
 *
 * ## The contract
 * A judge conversation (`src/judges/openai.ts`: render, parse, verify, feedback, downgrade) talks to a provider
 * only through a {@link ChatSender}:
 *
 * ```ts
 * send(request: ChatRequest | EncodedRequest, { signal, tokenParam }): Promise<SendResult>
 * ```
 * - `request`: `{model, messages: [{role, content}], temperature?, max_tokens?, response_format?, extra_body?}`
 *   (a `temperature` left undefined is not sent: reasoning models).
 * - resolves to `{outcome, requests, usage, raw, waitsMs, maxTokens, tokenParam, temperatureDropped?}` where
 *   `outcome` is `{kind: "reply", content}`, `{kind: "refused", message}` or `{kind: "error", error: {kind, message}}`
 *   (kinds: `rate_limited`, `server_error`, `timeout`, `connection`, `bad_request`, `http_<status>`,
 *   `invalid_response`, `provider_error`, `truncated`, `empty_response`, `reasoning_only`, `context_length`,
 *   `response_too_large`, `aborted`); `usage` carries cached and reasoning tokens and `missing` (responses without
 *   usage). It never resolves to a label and never throws for a fault of one request.
 * - rejects only with a `JudgeFatalError` (kinds `auth`, `insufficient_quota`, `rate_limited` (retry-after over the
 *   limit), `unreachable`, `not_openai_compatible`): the judge is stopped, its items stay un-judged for a resume.
 * - behind it, per judge: the `openai` v6 client (credentials from the environment: `clientSettings`), the fault
 *   policy and its retries (`src/providers/send.ts`, table in its docstring), rpm/tpm pacing and AIMD concurrency
 *   (`src/providers/pacing.ts`), the size-limited body reader (`src/providers/fetch.ts`), and optionally the transport
 *   worker thread (`src/providers/transport-worker.ts`; `IPI_NO_WORKER=1` sends from the main thread). The Batch API
 *   path (`src/judges/batch.ts`) drives the same conversation with result lines instead of sends.
 *
 * Money and token counting live here too: `./cost.ts` (price -> USD, totals that know what they could not count),
 * `./tokens.ts` (real tokenizers for OpenAI models, labelled estimates otherwise).
 *
 * The implementations still live under `src/judges/` (moving them here is a follow-up of issue 15 point 5; the
 * realistic-latency benchmark in README-bench.md decides whether the worker thread stays).
 */
export type { ChatSender, SendOptions } from "./sender.js";
export { createChatSender } from "./sender.js";
export type { ChatMessage, ChatRequest, SendOutcome, SendResult, Usage } from "./send.js";
export { addUsage, providerFault, readUsage, reasoningText, rejectsTemperature, isContextLength } from "./send.js";
export { clientSettings, NON_VERDICT_FIELDS, type ClientSettings, type JudgePrice } from "../judges/config.js";
export { addCost, describeCost, emptyCost, formatUsd, tokensCost, usageCost, type CostTotal } from "./cost.js";
export { countPromptTokens, tokenizerFor, tokenCounter, type TokenizerName } from "./tokens.js";
