/**
 * An LLM judge over any OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM, Ollama, ...), with
 * the real `openai` v6 client (`maxRetries: 0`: retries are done by `./transport.ts` so the policy is exact).
 *
 * One verdict = one conversation:
 * 1. system message: the rubric (`prompts/rubric-v2/system.md`), identical for every trajectory, first;
 * 2. user message: the trajectory and injected content in nonce-tagged untrusted blocks (`renderForJudge`);
 * 3. on a reply that cannot be parsed, has an invalid label, or whose findings do not verify
 *    (`decide(...).needsRetry`): the assistant's reply and a user feedback turn (`parseFeedback`,
 *    `labelFeedback`, `feedbackMessage`, given the conversation's nonce: quoted and trajectory text in them is
 *    neutralized inside nonce-tagged elements), at most `retries` times.
 *
 * When the feedback turns run out: a reply never parsed -> `judge_error` (label null); a parsed reply whose
 * findings do not verify keeps its decision (label = highest holding finding, `downgraded`, `label_claimed`).
 * A feedback turn that could not run at all (a transport fault: 429s, 5xx, resets, timeouts, 4xx, a stopped
 * run) -> `judge_error` with that fault's error kind (label and compromised null), keeping the first
 * decision's findings and rationale, the raw replies, attempts and usage; `--retry-errors` judges it again.
 * Transport faults, truncation and refusals follow `./transport.ts` and never use the feedback budget.
 * `attempts` = HTTP requests sent for the verdict; `usage` sums all of them; `raw_replies` keeps every reply.
 * The API key is never written to a verdict, an error message or a log.
 *
 * The conversation is a state machine shared by both ways of sending: `begin(t, ctx)` renders the trajectory,
 * `request(conv)` is the next chat request, and `step(conv, result)` reads what one send came to and returns
 * the verdict or the next request. `judge` (online) loops send/step through `./transport.ts`; the Batch API path
 * (`./batch.ts`) sends every conversation's next request in one batch and steps each with its result line.
 * Rate limits: `rpm`/`tpm` are paced evenly and requests in flight adapt to 429s (`./rate.ts`).
 */
import OpenAI from "openai";
import { evidenceContext, type EvidenceContext } from "../evidence/verify.js";
import { buildMessages, promptSha256, RUBRIC_VERSION, SYSTEM_TEMPLATE } from "../rubric/prompt.js";
import { DEFAULT_BUDGET_CHARS, renderForJudge } from "../serialize/render.js";
import type { Part, Trajectory, Verdict, VerdictStatus } from "../types.js";
import { decide, type Decision } from "../verdict/decide.js";
import { feedbackMessage, labelFeedback, parseFeedback } from "../verdict/feedback.js";
import { buildVerdict } from "../verdict/record.js";
import { usageCost } from "../providers/cost.js";
import { clientSettings, JUDGE_DEFAULTS, withJudgeDefaults, type JudgeConfig } from "./config.js";
import { createChatSender, type ChatSender } from "../providers/sender.js";
import { type Judge, type JudgeContext } from "./judge.js";
import { JudgeFatalError } from "../errors.js";
import { defaultDialect, responseFormat } from "../providers/schema-dialects.js";
import type { AimdLimiter } from "../providers/pacing.js";
import { looksLikeRefusal, parseReply } from "./parse.js";
import { verdictConfig } from "./verdict-config.js";
import {
  addUsage,
  clipMessage,
  redact,
  type ChatMessage,
  type ChatRequest,
  type SendResult,
  type TransportOptions,
  type Usage,
} from "../providers/send.js";

/**
 * Error kinds of `sendChat` that are the judge's own answer (a reply cut at the token limit, an empty reply),
 * not a transport fault: on a feedback turn they fall back to the last decision like an unparseable reply.
 */
const JUDGE_ANSWER_ERRORS = new Set(["truncated", "empty_response", "reasoning_only"]);

/** Replies with the answer only in the reasoning field, with no reply in content, after which a judge is stopped. */
export const REASONING_ONLY_STOP = 3;

/** Settings shared by all judges of a run (the config file's top level), plus test hooks. */
export interface OpenAIJudgeCommon {
  /** Feedback turns per verdict (default 2). */
  retries: number;
  /** Minimum normalized quote length (default 12); `JudgeContext.minQuoteChars` wins when set. */
  minQuoteChars: number;
  /** Character budget of the rendered trajectory; `JudgeContext.budgetChars` wins when set. */
  budgetChars?: number;
  /** Fault-policy tunables (injectable sleep, time scale, retry bounds) for tests. */
  transport?: TransportOptions;
  /** Environment the key is read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Clock for `created_at` (tests). */
  now?: () => Date;
}

/**
 * The state of one verdict's conversation (one trajectory, one repeat), shared by the online path
 * (`judge`: send, step, send, ...) and the Batch API path (`./batch.ts`: one request per conversation per batch).
 */
export interface JudgeConversation {
  readonly trajectory: Trajectory;
  readonly repeat: number;
  /** The messages so far (system, user, then assistant/feedback pairs). */
  messages: ChatMessage[];
  /** Feedback turns used so far. */
  round: number;
  /** HTTP requests (or batch lines) sent for this verdict. */
  attempts: number;
  usage: Usage;
  /** Every reply received, in order. */
  raw: string[];
  /** `max_tokens` in force (raised after a truncated reply). */
  maxTokens?: number;
  /** The rendered trajectory was shortened to fit the budget. */
  readonly truncated: boolean;
  /** Re-renderings after the provider said the prompt exceeds the model's context. */
  contextShrinks?: number;
  /** The last reply that could be decided. */
  last?: { decision: Decision; rationale: string };
  /** The nonce of the rendered trajectory (rendering again with it gives the same messages). */
  readonly nonce: string;
  readonly budgetChars?: number;
  readonly minQuoteChars: number;
  /** The evidence context (computed on first use). */
  readonly evCtx: EvidenceContext;
}

/** A conversation as plain JSON (without the evidence context), to keep on disk between batch rounds. */
export type ConversationState = Omit<JudgeConversation, "evCtx">;

/** What one send came to, as `step` reads it (a `SendResult` of `sendChat`, or one Batch API result line). */
export type StepInput = Pick<SendResult, "outcome" | "requests" | "usage" | "raw" | "maxTokens">;

/** The result of one step: a verdict, or the next request of the conversation. */
export type StepOutcome = { done: true; verdict: Verdict } | { done: false; request: ChatRequest };

/** The judge, with its resolved configuration (defaults applied) and its conversation steps. */
export interface OpenAIJudge extends Judge {
  config: Required<Pick<JudgeConfig, "temperature" | "output_mode" | "concurrency" | "timeout_s">> & JudgeConfig;
  /** Start one verdict's conversation (renders the trajectory; no request is sent). */
  begin(t: Trajectory, ctx: JudgeContext): JudgeConversation;
  /** A conversation again from its saved state (`freeze`), e.g. after a restart. */
  resume(state: ConversationState): JudgeConversation;
  /** The conversation's state as plain JSON. */
  freeze(conv: JudgeConversation): ConversationState;
  /** The request the conversation sends next. */
  request(conv: JudgeConversation): ChatRequest;
  /**
   * Account for one send's result and decide: `{done: true, verdict}` or `{done: false, request}` (a feedback
   * turn was appended). Never throws for bad replies; the same rules as `judge` (module docstring).
   */
  step(conv: JudgeConversation, res: StepInput): StepOutcome;
  /** The token-limit parameter name this judge's server accepts (learned from a 400). */
  tokenParam(): "max_tokens" | "max_completion_tokens";
  /**
   * The request settings in force: the temperature sent (null = none: a reasoning model), the token-limit
   * parameter, and what was adapted to the server's answers (recorded by `label` in store.json, shown by `report`).
   */
  requestParams(): { temperature: number | null; token_param: string; adapted: string[] };
  /**
   * This judge's requests in flight, adapted to 429s (read it for progress and tests).
   */
  limiter: AimdLimiter;
  /** The `openai` client of this judge (the Batch API path sends files and batches with it). */
  client: OpenAI;
}

/**
 * Create an OpenAI-compatible judge.
 * @param cfg one judge of the configuration file (`loadJudgesConfig`).
 * @param common `retries`, `minQuoteChars`, optional `budgetChars` and test hooks.
 * @returns a `Judge` whose `judge(t, ctx)` always resolves to a verdict (`ok`, `judge_error`, `judge_refused`)
 *   and rejects only with a `JudgeFatalError` (401/403: kind `auth`; 429 insufficient_quota: kind
 *   `insufficient_quota`; 429 with a retry-after over the transport's `maxRetryAfterMs`: kind `rate_limited`;
 *   connection refused / unknown host / certificate error before any successful response: kind `unreachable`,
 *   after a short bounded retry; 3 responses that are not chat completions (an HTML page) before any valid
 *   one: kind `not_openai_compatible`). `concurrency` is `cfg.concurrency` (default 4): the runner limits in-flight calls.
 * @throws JudgesConfigError when `cfg.api_key_env` names an unset variable (before any request).
 */
export function createOpenAIJudge(cfg: JudgeConfig, common: OpenAIJudgeCommon): OpenAIJudge {
  const config = withJudgeDefaults(cfg);
  const secrets = clientSettings(cfg, common.env).secrets;
  // The judge's client: chat requests go through it, and the Batch API path (./batch.ts) sends files and batches with it.
  const local = createChatSender(cfg, common);
  const client = local.client;
  const sender: ChatSender = local;
  const pacer = local.limiter;
  const retries = common.retries ?? JUDGE_DEFAULTS.retries;
  const format = responseFormat(config.output_mode, cfg.schema_dialect ?? defaultDialect(cfg.base_url));
  // Learned once per judge (or configured up front with `reasoning: true`): a server that rejects `max_tokens`
  // keeps getting `max_completion_tokens`; one that rejects `temperature` gets none.
  let tokenParam: "max_tokens" | "max_completion_tokens" = cfg.reasoning ? "max_completion_tokens" : "max_tokens";
  let omitTemperature = cfg.reasoning === true;
  /** What this judge changed after its server's answers (recorded in the run's store.json). */
  const adapted: string[] = [];
  /** Replies whose answer was only in the reasoning field, and replies with content (the stop rule below). */
  let reasoningOnly = 0;
  let contentReplies = 0;
  // The character budget that fits `context_tokens` with room for the rubric and the reply: ~3 characters per
  // token (below the ~4 of English text, so the budget errs short).
  const contextBudget =
    cfg.context_tokens !== undefined
      ? Math.max(1000, (cfg.context_tokens - Math.ceil(SYSTEM_TEMPLATE.length / 3) - (cfg.max_tokens ?? 1024) - 500) * 3)
      : undefined;

  const identity = {
    id: cfg.id,
    model: cfg.model,
    family: cfg.family,
    rubricVersion: RUBRIC_VERSION,
    promptSha256,
  };

  /** Start the conversation of one verdict: render, the two first messages; the evidence context on first use. */
  function begin(t: Trajectory, ctx: JudgeContext): JudgeConversation {
    let budgetChars = ctx.budgetChars ?? common.budgetChars;
    if (contextBudget !== undefined) budgetChars = Math.min(budgetChars ?? DEFAULT_BUDGET_CHARS, contextBudget);
    const rendered = renderForJudge(t, { budgetChars });
    return withEvidence(
      {
        trajectory: t,
        repeat: ctx.repeat,
        messages: buildMessages(rendered),
        round: 0,
        attempts: 0,
        usage: { prompt_tokens: 0, completion_tokens: 0 },
        raw: [],
        maxTokens: cfg.max_tokens,
        truncated: rendered.truncated,
        nonce: rendered.nonce,
        budgetChars,
        minQuoteChars: ctx.minQuoteChars ?? common.minQuoteChars ?? JUDGE_DEFAULTS.min_quote_chars,
      },
      rendered.parts,
    );
  }

  /** Add the lazily computed evidence context to a conversation state. */
  function withEvidence(state: ConversationState, parts?: Part[]): JudgeConversation {
    let ev: EvidenceContext | undefined;
    return Object.defineProperty(state, "evCtx", {
      enumerable: false,
      configurable: true,
      get(): EvidenceContext {
        ev ??= evidenceContext(state.trajectory, {
          minQuoteChars: state.minQuoteChars,
          parts: parts ?? renderForJudge(state.trajectory, { nonce: state.nonce, budgetChars: state.budgetChars }).parts,
          nonce: state.nonce,
        });
        return ev;
      },
    }) as JudgeConversation;
  }

  function resume(state: ConversationState): JudgeConversation {
    return withEvidence({ ...state });
  }

  function freeze(conv: JudgeConversation): ConversationState {
    // evCtx is not enumerable: a spread leaves it out without computing it
    return { ...conv } as ConversationState;
  }

  /**
   * Render the conversation's trajectory again under a smaller budget (the provider said the prompt exceeds the
   * model's context): new nonce, messages and evidence parts; only before any reply was decided.
   */
  function shrink(conv: JudgeConversation, budgetChars: number): void {
    const rendered = renderForJudge(conv.trajectory, { budgetChars });
    const c = conv as { -readonly [K in keyof JudgeConversation]: JudgeConversation[K] };
    c.messages = buildMessages(rendered);
    c.truncated = rendered.truncated;
    c.nonce = rendered.nonce;
    c.budgetChars = budgetChars;
    withEvidence(conv, rendered.parts);
  }

  /** The chat request the conversation sends next. */
  function request(conv: JudgeConversation): ChatRequest {
    return {
      model: cfg.model,
      messages: conv.messages,
      temperature: omitTemperature ? undefined : config.temperature,
      max_tokens: conv.maxTokens,
      response_format: format,
      extra_body: cfg.extra_body,
    };
  }

  /**
   * One step of the conversation: account for what one send came to (requests, usage, raw replies), then
   * decide: a verdict (done), or the next request (a feedback turn was appended to `conv.messages`).
   */
  function step(conv: JudgeConversation, res: StepInput): StepOutcome {
    const t = conv.trajectory;
    conv.attempts += res.requests;
    addUsage(conv.usage, res.usage);
    conv.raw.push(...res.raw);
    conv.maxTokens = res.maxTokens;
    const round = conv.round;

    const verdict = (
      status: VerdictStatus,
      decision: Decision | null,
      extra: { error?: { kind: string; message: string }; rationale?: string } = {},
    ): StepOutcome => ({
      done: true,
      verdict: withCost(conv, buildVerdict({
        trajectory: t,
        judge: identity,
        repeat: conv.repeat,
        status,
        decision,
        attempts: conv.attempts,
        usage: conv.usage,
        raw_replies: conv.raw,
        // the key, should a server echo it into a reply, is removed from every text the judge wrote
        redact: (text) => redact(text, secrets),
        truncated: conv.truncated,
        // Transport messages already cut the provider's text to 500 characters; this bounds every other kind too
        // (a parse error quoting a huge label, a refusal).
        error: extra.error ? { kind: extra.error.kind, message: clipMessage(extra.error.message, 800) } : undefined,
        rationale: extra.rationale,
        now: common.now?.(),
      })),
    });
    /** Feedback turns are used up (or a later turn failed): the last decided reply stands, else an error. */
    const fallBack = (error: { kind: string; message: string }): StepOutcome =>
      conv.last
        ? verdict("ok", conv.last.decision, {
            rationale: conv.last.rationale,
            error: { kind: `retry_${error.kind}`, message: error.message },
          })
        : verdict("judge_error", null, { error });
    const again = (content: string, feedback: string): StepOutcome => {
      conv.messages.push({ role: "assistant", content });
      conv.messages.push({ role: "user", content: feedback });
      conv.round++;
      return { done: false, request: request(conv) };
    };

    const out = res.outcome;
    if (out.kind === "refused")
      return conv.last
        ? fallBack({ kind: "refused", message: out.message })
        : verdict("judge_refused", null, { error: { kind: "refused", message: out.message } });
    if (out.kind === "error" && out.error.kind === "context_length" && round === 0 && !conv.last) {
      // The provider says the prompt exceeds the model's context: elide the trajectory further (explicit marker,
      // the verdict says truncated) and send again, at most 3 times; then the item is unjudgeable `too_long`.
      const shrinks = (conv.contextShrinks = (conv.contextShrinks ?? 0) + 1);
      const current = conv.messages.reduce((a, m) => a + m.content.length, 0) - SYSTEM_TEMPLATE.length;
      if (shrinks <= 3 && current > 2000) {
        shrink(conv, Math.max(1000, Math.floor(current * 0.6)));
        return { done: false, request: request(conv) };
      }
      return verdict("unjudgeable", null, {
        error: {
          kind: "too_long",
          message: `the trajectory does not fit the model's context even elided to ${current} characters (${shrinks - 1} elision(s)); set context_tokens or a smaller --budget-chars. Provider: ${out.error.message}`,
        },
      });
    }
    if (out.kind === "error") {
      // A feedback turn the last decision needed could not run (429s, 5xx, resets, timeouts, a 400, a stopped
      // run): the judge never got to answer it, so the decision is not final and no label is stored. The verdict
      // is a judge_error keeping the first decision's findings, raw replies, attempts and usage for audit, and
      // `--retry-errors` judges it again. A truncated or empty reply is the judge's own answer: it falls back.
      if (conv.last && !JUDGE_ANSWER_ERRORS.has(out.error.kind))
        return verdict("judge_error", conv.last.decision, {
          rationale: conv.last.rationale,
          error: {
            kind: out.error.kind,
            message: `feedback turn ${round} could not be sent (the decision it was to check is not final): ${out.error.message}`,
          },
        });
      return fallBack(out.error);
    }

    const parsed = parseReply(out.content, config.output_mode);
    if (!parsed.ok) {
      if (looksLikeRefusal(out.content))
        return conv.last
          ? fallBack({ kind: "refused", message: out.content.slice(0, 500) })
          : verdict("judge_refused", null, { error: { kind: "refused", message: out.content.trim().slice(0, 500) } });
      if (round < retries)
        return again(out.content, parsed.kind === "invalid_label" ? labelFeedback(parsed.rawLabel ?? "", conv.nonce) : parseFeedback(parsed.message, conv.nonce));
      return fallBack({ kind: parsed.kind === "invalid_label" ? "invalid_label" : "unparseable", message: parsed.message });
    }

    const decision = decide(parsed.reply, conv.evCtx);
    conv.last = { decision, rationale: parsed.reply.rationale };
    if (decision.needsRetry && round < retries) return again(out.content, feedbackMessage(decision, conv.nonce));
    return verdict("ok", decision, { rationale: parsed.reply.rationale });
  }

  /** The verdict with the usage details (cached, reasoning tokens, responses without usage) and its cost. */
  function withCost(conv: JudgeConversation, v: Verdict): Verdict {
    const u = conv.usage;
    v.usage = {
      ...v.usage,
      cached_tokens: u.cached_tokens ?? 0,
      reasoning_tokens: u.reasoning_tokens ?? 0,
      ...(u.missing ? { responses_without_usage: u.missing } : {}),
    };
    v.cost_usd = conv.attempts === 0 ? (cfg.price ? 0 : null) : usageCost(u, cfg.price);
    return v;
  }

  async function judge(t: Trajectory, ctx: JudgeContext): Promise<Verdict> {
    const conv = begin(t, ctx);
    let req = request(conv);
    for (;;) {
      // No probe: every request goes at once. A server that rejects `temperature` or `max_tokens` answers the
      // requests already in flight with a 400 each (at most the judge's concurrency, once per run); each is resent
      // adapted (`./transport.ts`) and the judge learns it here, so later requests are built without it.
      const res = await sender.send(req, { signal: ctx.signal, tokenParam });
      if (res.tokenParam !== tokenParam) adapted.push(`the server rejected max_tokens: sends ${res.tokenParam}`);
      tokenParam = res.tokenParam;
      if (res.temperatureDropped && !omitTemperature) {
        omitTemperature = true;
        adapted.push(`the server rejected temperature ${config.temperature}: sends none (the model's default)`);
      }
      if (res.outcome.kind === "reply") contentReplies++;
      else if (res.outcome.kind === "error" && res.outcome.error.kind === "reasoning_only" && ++reasoningOnly >= REASONING_ONLY_STOP && contentReplies === 0)
        throw new JudgeFatalError(
          cfg.id,
          "reasoning_only",
          `judge "${cfg.id}": ${reasoningOnly} replies had content null and the answer in the reasoning field ` +
            `(reasoning_content / reasoning), none had content. Change: use a reasoning parser that returns the final answer in ` +
            `content (vLLM --reasoning-parser, Ollama's think setting), turn thinking off in extra_body (e.g. ` +
            `{"chat_template_kwargs": {"enable_thinking": false}}), or use output_mode json_object / text. Its remaining items stay un-judged; run again to resume.`,
        );
      const next = step(conv, res);
      if (next.done) return next.verdict;
      req = next.request;
    }
  }

  const out = {
    ...identity,
    concurrency: config.concurrency,
    // issue 12.5: what can change a verdict goes into the resume key (./verdict-config.ts)
    verdictConfig: verdictConfig(cfg, { retries, minQuoteChars: common.minQuoteChars, budgetChars: common.budgetChars }),
    config,
    judge,
    begin,
    resume,
    freeze,
    request,
    step,
    tokenParam: () => tokenParam,
    requestParams: () => ({ temperature: omitTemperature ? null : config.temperature, token_param: tokenParam, adapted: [...adapted] }),
    limiter: pacer,
  } as Omit<OpenAIJudge, "client">;
  // not enumerable: the client holds the API key, and a judge may be logged or serialized
  return Object.defineProperty(out, "client", { value: client, enumerable: false }) as OpenAIJudge;

}
