/**
 * The sending side of a judge: one chat request through `sendChat` (`./transport.ts`) with the judge's `openai`
 * client, rate pacing, AIMD limiter and health record. Kept apart from `./openai.ts` (rendering, verification,
 * the verdict) so the transport worker (`./transport-worker-entry.ts`) loads only what sending needs.
 */
import OpenAI from "openai";
import { clientSettings, withJudgeDefaults, type JudgeConfig } from "../judges/config.js";
import { limitedFetch } from "./fetch.js";
import { AimdLimiter, RatePacer } from "./pacing.js";
import { defaultSleep, sendChat, type ChatRequest, type EncodedRequest, type JudgeHealth, type SendResult, type TransportOptions } from "./send.js";

/** One chat request's send options: the run's signal and the token-limit parameter name in force. */
export interface SendOptions {
  signal?: AbortSignal;
  tokenParam: "max_tokens" | "max_completion_tokens";
}

/**
 * Sends one judge's chat requests through `sendChat` (`./transport.ts`): the judge's client, rate pacing,
 * AIMD limiter and health record. Local (`createChatSender`) or in a transport worker (`common.remote`).
 */
export interface ChatSender {
  /**
   * Resolves to what the send came to; rejects only with a `JudgeFatalError` (or a crash of the sender). An
   * `EncodedRequest` (the transport worker's input) carries its token parameter; `opts.tokenParam` is then unused.
   */
  send(req: ChatRequest | EncodedRequest, opts: SendOptions): Promise<SendResult>;
}

/** Sends chat requests for judges from another thread (`./transport-worker.ts`). */
export interface RemoteTransport {
  sender(cfg: JudgeConfig): ChatSender;
}

/**
 * The sending side of one judge, in this thread: an `openai` client (`maxRetries: 0`, the size-limited fetch of
 * `./fetch-limit.ts`), the rpm/tpm pacer and the AIMD limiter (`./rate.ts`), and the judge's health record.
 * Used by `createOpenAIJudge`, and by the transport worker for each judge of the run.
 * @throws JudgesConfigError when `cfg.api_key_env` names an unset variable.
 */
export function createChatSender(cfg: JudgeConfig, common: { transport?: TransportOptions; env?: NodeJS.ProcessEnv }): ChatSender & { client: OpenAI; limiter: AimdLimiter } {
  const cs = clientSettings(cfg, common.env);
  const timeoutMs = withJudgeDefaults(cfg).timeout_s * 1000;
  // chat completion bodies bounded (decoded bytes, gzip bombs included): ./fetch-limit.ts
  const fetchLimited = limitedFetch(common.transport?.maxResponseBytes);
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
  // Even spacing to rpm/tpm, and requests in flight adapted to 429s (AIMD, below the runner's concurrency): ./rate.ts
  const gate =
    cfg.rpm !== undefined || cfg.tpm !== undefined
      ? new RatePacer(cfg.rpm, cfg.tpm, (ms, signal) => sleep(ms * scale, signal))
      : undefined;
  const limiter = new AimdLimiter();
  // Until one response succeeds, an address that cannot be reached stops this judge (./transport.ts).
  const health: JudgeHealth = { succeeded: false };
  const send = (req: ChatRequest | EncodedRequest, opts: SendOptions) =>
    sendChat(client, req, {
      judgeId: cfg.id,
      timeoutMs,
      signal: opts.signal,
      secrets,
      gate,
      tokenParam: opts.tokenParam,
      options: common.transport,
      pacer: limiter,
      health,
      baseURL: cs.baseURL,
    });
  const out = { send, limiter } as ChatSender & { client: OpenAI; limiter: AimdLimiter };
  // not enumerable: the client holds the API key
  return Object.defineProperty(out, "client", { value: client, enumerable: false });
}

