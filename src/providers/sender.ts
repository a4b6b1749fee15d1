/**
 * The sending side of a judge: one chat request through `sendChat` (`./send.ts`) with the judge's `openai`
 * client, rate pacing, AIMD limiter and health record. Kept apart from `src/judges/llm-judge.ts` (rendering,
 * verification, the verdict): the judge conversation sees only {@link ChatSender}.
 */
import OpenAI from "openai";
import { clientSettings, judgeSettings, type JudgeConfig } from "../config/judges.js";
import { bodyJsonEncoder } from "./body-json.js";
import { limitedFetch } from "./fetch.js";
import { AimdLimiter, RatePacer } from "./pacing.js";
import { defaultSleep, sendChat, type ChatRequest, type JudgeHealth, type SendResult, type TransportOptions } from "./send.js";

/** One chat request's send options: the run's signal and the token-limit parameter name in force. */
export interface SendOptions {
  /** Stops the send: waits (a slot, pacing, backoff) end and no further request starts. */
  signal?: AbortSignal;
  /** Aborts a request already sent (default: `signal`); see `JudgeContext.abortSignal`. */
  requestSignal?: AbortSignal;
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** Whether a reply cut with `finish_reason "length"` is complete nonetheless (the judge's parse). */
  isComplete?: (content: string) => boolean;
}

/**
 * Sends one judge's chat requests through `sendChat` (`./send.ts`): the judge's client, rate pacing, AIMD
 * limiter and health record (the contract is described in `./index.ts`).
 */
export interface ChatSender {
  /** Resolves to what the send came to; rejects only with a `JudgeFatalError`. */
  send(req: ChatRequest, opts: SendOptions): Promise<SendResult>;
}

/**
 * What {@link createChatSender} hands its judge, each part named: the judge conversation sees only `sender`; the
 * Batch API path (`./batch-api.ts`, driven by `../run/batch.ts`) needs the same `client` for files and batches.
 * The client holds the API key: keep it in a private field (`LlmJudge` does), never in a record that is logged or
 * serialized.
 */
export interface JudgeEndpoint {
  /** Sends the judge's chat requests (the contract of `./index.ts`). */
  sender: ChatSender;
  /** The judge's `openai` client (`maxRetries: 0`, the size-limited fetch of `./fetch.ts`). */
  client: OpenAI;
  /** Requests in flight, adapted to 429s (`./pacing.ts`). */
  limiter: AimdLimiter;
  /** The first redirect the judge's requests followed to another origin, if any. */
  crossOrigin: () => JudgeHealth["crossOrigin"];
}

/**
 * The sending side of one judge: an `openai` client (`maxRetries: 0`, the size-limited fetch of `./fetch.ts`),
 * the rpm/tpm pacer and the AIMD limiter (`./pacing.ts`), and the judge's health record. Used by `createOpenAIJudge`.
 * @returns the {@link JudgeEndpoint}: the sender and, apart from it, the client, limiter and redirect record.
 * @throws JudgesConfigError when `cfg.api_key_env` names an unset variable.
 */
export function createChatSender(
  cfg: JudgeConfig,
  common: { transport?: TransportOptions; env?: NodeJS.ProcessEnv },
): JudgeEndpoint {
  const cs = clientSettings(cfg, common.env);
  const timeoutMs = judgeSettings(cfg).timeout_ms;
  // chat completion bodies bounded (decoded bytes, gzip bombs included): ./fetch.ts
  // Until one response succeeds, an address that cannot be reached stops this judge (./send.ts).
  const health: JudgeHealth = { succeeded: false };
  // a redirect to another origin is followed without credentials: remembered for the judge's record and the auth fault
  const fetchLimited = limitedFetch(common.transport?.maxResponseBytes, undefined, (from, to) => {
    health.crossOrigin ??= { from, to };
  });
  const client = new OpenAI({
    apiKey: cs.apiKey,
    baseURL: cs.baseURL,
    defaultQuery: cs.defaultQuery,
    defaultHeaders: cs.defaultHeaders,
    timeout: timeoutMs,
    maxRetries: 0,
    fetch: fetchLimited,
  });
  const secrets = cs.secrets;
  const scale = common.transport?.timeScale ?? 1;
  const sleep = common.transport?.sleep ?? defaultSleep;
  // Even spacing to rpm/tpm, and requests in flight adapted to 429s (AIMD, below the runner's concurrency): ./pacing.ts
  const gate =
    cfg.rpm !== undefined || cfg.tpm !== undefined
      ? new RatePacer(cfg.rpm, cfg.tpm, (ms, signal) => sleep(ms * scale, signal), common.transport?.now)
      : undefined;
  const limiter = new AimdLimiter();
  // request bodies as JSON text, the rubric encoded once (./body-json.ts)
  const bodyJson = bodyJsonEncoder();
  const send = (req: ChatRequest, opts: SendOptions) =>
    sendChat(client, req, {
      judgeId: cfg.id,
      timeoutMs,
      signal: opts.signal,
      requestSignal: opts.requestSignal,
      secrets,
      gate,
      tokenParam: opts.tokenParam,
      options: common.transport,
      pacer: limiter,
      health,
      baseURL: cs.baseURL,
      isComplete: opts.isComplete,
      bodyJson,
    });
  return { sender: { send }, client, limiter, crossOrigin: () => health.crossOrigin };
}

