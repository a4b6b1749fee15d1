/**
 * The LLM judge: a `Judge` over any OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM, Ollama, ...)
 * that runs one judge conversation (`./conversation.ts`: prompt, parse, verify, feedback, downgrade) per verdict
 * over a `ChatSender` (`src/providers/`: the real `openai` v6 client, its fault policy, pacing).
 *
 * What it adds to the conversation: the sending loop (`judge`: send, step, send, ...); what it learns from its
 * server and keeps for the rest of the run (a server that rejects `max_tokens` keeps getting
 * `max_completion_tokens`, one that rejects `temperature` gets none: `requestParams().adapted`); the verdict's
 * cost (`price`, cached and reasoning tokens); and the reasoning-only stop rule ({@link REASONING_ONLY_STOP}).
 * Transport faults, truncation and refusals follow `src/providers/send.ts` and never use the feedback budget.
 * The API key is never written to a verdict, an error message or a log.
 *
 * The Batch API path (`../run/batch.ts`) drives the same conversations through the same public methods
 * (`begin`, `request`, `step`, `freeze`, `resume`) and sends files and batches with `client`.
 * Rate limits: `rpm`/`tpm` are paced evenly and requests in flight adapt to 429s (`src/providers/pacing.ts`).
 */
import type OpenAI from "openai";
import { promptSha256, RUBRIC_VERSION, SYSTEM_TEMPLATE } from "../rubric/prompt.js";
import type { Trajectory, Verdict } from "../types.js";
import { batchPrice, usageCost } from "../providers/cost.js";
import { implausibleUsage, type RequestsShape } from "../providers/plausible-usage.js";
import { usageNotes } from "../providers/usage.js";
import { CALLED_A_TOOL } from "../providers/classify.js";
import { SEVERAL_CHOICES } from "../providers/choice.js";
import { SERVED_MODEL_NOTE } from "../providers/served-model.js";
import { clientSettings, extraBodyProblem, judgeSettings, JudgesConfigError, type JudgeConfig } from "../config/judges.js";
import { createChatSender, type ChatSender } from "../providers/sender.js";
import { type Judge, type JudgeContext } from "./judge.js";
import { JudgeFatalError } from "../errors.js";
import { defaultDialect, responseFormat } from "../providers/schema-dialects.js";
import type { AimdLimiter } from "../providers/pacing.js";
import { verdictConfig } from "./verdict-config.js";
import { JudgeConversations, type ConversationState, type JudgeConversation, type RenderedEvidence, type StepInput, type StepOutcome } from "./conversation.js";
import { applyAdaptation, redact, type AdaptKind, type ChatRequest, type RequestAdaptations, type SendResult, type TransportOptions } from "../providers/send.js";
import { parseReply } from "./parse.js";
import { LostEndpoint, type LostEndpointOptions } from "./lost-endpoint.js";

export type { ConversationState, JudgeConversation, StepInput, StepOutcome } from "./conversation.js";

/** Replies with the answer only in the reasoning field, with no reply in content, after which a judge is stopped. */
export const REASONING_ONLY_STOP = 3;

/**
 * Items in a row that ended, after every retry, in a server error, a timeout or a connection failure, with no reply
 * ever received, after which the judge is stopped (red team: a dead endpoint cost 7 requests and ~20 s per item, for
 * every item of the run). A server that has answered once is never stopped by this rule (a bad patch is retried);
 * one that then refuses every connection is stopped by the lost-endpoint rule (`./lost-endpoint.ts`).
 */
export const UNREACHABLE_STOP = 3;
const UNREACHABLE_KINDS = new Set(["server_error", "timeout", "connection", "transport", "decode_error", "body_cut"]);

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
  /** Thresholds and clock of the lost-endpoint rule (`./lost-endpoint.ts`; tests); the clock defaults to `transport.now`. */
  lostEndpoint?: LostEndpointOptions;
}

/** The resolved configuration of an LLM judge (defaults applied). */
export type LlmJudgeConfig = Required<Pick<JudgeConfig, "temperature" | "output_mode" | "concurrency" | "timeout_s">> & JudgeConfig;

/**
 * An LLM judge: `judge(t, ctx)` (online), and the conversation steps the Batch API path drives. Every member is
 * a named field or method; `client` is a getter (not an own property: it holds the API key, and a judge may be
 * logged or serialized).
 */
export class LlmJudge implements Judge {
  readonly id: string;
  readonly model: string;
  readonly family: string;
  readonly rubricVersion = RUBRIC_VERSION;
  readonly promptSha256 = promptSha256;
  /** How many trajectories this judge may work on at once (`cfg.concurrency`, default 4). */
  readonly concurrency: number;
  /** What can change a verdict, for the resume key (issue 12.5, `./verdict-config.ts`). */
  readonly verdictConfig: Record<string, unknown>;
  /** The judge's configuration with defaults applied. */
  readonly config: LlmJudgeConfig;
  /** This judge's requests in flight, adapted to 429s (read it for progress and tests). */
  readonly limiter: AimdLimiter;
  /** The rules of this judge's conversations (`./conversation.ts`). */
  private readonly conversations: JudgeConversations;
  readonly #client: OpenAI;
  readonly #sender: ChatSender;
  /** The credential values of this judge (from its env), removed from every text it stores or reports. */
  readonly #secrets: readonly string[];
  /** The first redirect this judge's requests followed to another origin (`../providers/sender.ts`). */
  readonly #crossOrigin: () => { from: string; to: string } | undefined;
  /** The token-limit parameter the server accepts (learned from a 400, or `reasoning: true` up front). */
  #tokenParam: "max_tokens" | "max_completion_tokens";
  /** What this judge changed after its server's answers (recorded in the run's store.json). */
  readonly #adapted: string[] = [];
  /** Whether a reply cut with `finish_reason "length"` parses whole (then it is a reply). */
  readonly #isComplete: (content: string) => boolean;
  /** Replies whose answer was only in the reasoning field, and replies with content (the stop rule). */
  #reasoningOnly = 0;
  #contentReplies = 0;
  /** Replies with neither content nor reasoning (the same stop rule). */
  #emptyReplies = 0;
  /** Items whose requests all failed at the server or on the way (after the retries), none answered yet. */
  #unreachable = 0;
  /** Items in a row whose every request failed to connect, after the server had answered (`./lost-endpoint.ts`). */
  readonly #lost: LostEndpoint;
  /** Judge-level adaptations learned from the server (system role, response format, completion cap, reasoning passback). */
  readonly #adapt: RequestAdaptations = {};
  /** Replies cut at the token limit yet complete, taken as replies (`finish_reason "length"`). */
  #lengthComplete = 0;
  /** Replies with several choices seen (said once). */
  #severalChoices = 0;
  #servedOther = 0;
  /** Verdicts whose prompt the server cut (`prompt_truncated`): flagged once with the fix. */
  #promptTruncated = 0;
  /** Verdicts whose server reported implausible usage (their cost unknown): flagged once. */
  #implausible = 0;
  /** The conversations of the Batch API path (`resume`): priced at the batch price. */
  readonly #viaBatch = new WeakSet<JudgeConversation>();

  constructor(
    private readonly cfg: JudgeConfig,
    common: OpenAIJudgeCommon,
  ) {
    // every default, per-judge and run-level, resolved in one place (config/judges.ts judgeSettings)
    const owned = extraBodyProblem(cfg.extra_body);
    if (owned !== undefined) throw new JudgesConfigError(`judge "${cfg.id}": ${owned}`);
    const settings = judgeSettings(cfg, common);
    const config = settings.config;
    const secrets = clientSettings(cfg, common.env).secrets;
    this.#secrets = secrets;
    // The judge's client: chat requests go through it, and the Batch API path (../run/batch.ts) sends files and
    // batches with it.
    const endpoint = createChatSender(cfg, common);
    this.#client = endpoint.client;
    this.#sender = endpoint.sender;
    this.#crossOrigin = endpoint.crossOrigin;
    this.limiter = endpoint.limiter;
    this.id = cfg.id;
    this.model = cfg.model;
    this.family = cfg.family;
    this.config = config;
    this.concurrency = config.concurrency;
    const retries = settings.retries;
    this.verdictConfig = verdictConfig(cfg, common);
    // Learned once per judge (or configured up front with `reasoning: true`): a server that rejects `max_tokens`
    // keeps getting `max_completion_tokens`; one that rejects `temperature` gets none.
    this.#tokenParam = cfg.reasoning ? "max_completion_tokens" : "max_tokens";
    this.conversations = new JudgeConversations({
      identity: { id: cfg.id, model: cfg.model, family: cfg.family, rubricVersion: RUBRIC_VERSION, promptSha256 },
      model: cfg.model,
      temperature: cfg.reasoning === true ? undefined : config.temperature,
      maxTokens: cfg.max_tokens,
      responseFormat: responseFormat(config.output_mode, cfg.schema_dialect ?? defaultDialect(cfg.base_url)),
      extraBody: cfg.extra_body,
      outputMode: config.output_mode,
      retries,
      minQuoteChars: settings.min_quote_chars,
      budgetChars: settings.budget_chars ?? undefined,
      // The character budget that fits `context_tokens` with room for the rubric and the reply: ~3 characters per
      // token (below the ~4 of English text, so the budget errs short).
      contextBudget:
        cfg.context_tokens !== undefined
          ? Math.max(1000, (cfg.context_tokens - Math.ceil(SYSTEM_TEMPLATE.length / 3) - (cfg.max_tokens ?? 1024) - 500) * 3)
          : undefined,
      redact: (text) => redact(text, secrets),
      now: common.now,
      adapt: this.#adapt,
    });
    this.#lost = new LostEndpoint(cfg.id, cfg.base_url, { now: common.transport?.now, ...common.lostEndpoint });
    const mode = config.output_mode;
    this.#isComplete = (content: string) => parseReply(content, mode).ok;
  }

  /** The credential values of this judge's config, read from the environment it was made with (for redaction). */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** The `openai` client of this judge (the Batch API path sends files and batches with it). */
  get client(): OpenAI {
    return this.#client;
  }

  /** Start one verdict's conversation (renders the trajectory; no request is sent). */
  begin(t: Trajectory, ctx: JudgeContext): JudgeConversation {
    return this.conversations.begin(t, ctx);
  }

  /**
   * A conversation of the Batch API path again from its saved state (`freeze`), for its next result line: its
   * verdict is priced at the judge's batch price (`price.batch_*`), or at the online price marked as an upper bound
   * when the config gives none (`Verdict.cost_basis`). The online path (`judge`) never resumes a conversation.
   */
  resume(state: ConversationState, rendered?: RenderedEvidence): JudgeConversation {
    const conv = this.conversations.resume(state, rendered);
    this.#viaBatch.add(conv);
    return conv;
  }

  /** The conversation's state as plain JSON. */
  freeze(conv: JudgeConversation): ConversationState {
    return this.conversations.freeze(conv);
  }

  /** The request the conversation sends next (with the settings this judge learned from its server). */
  request(conv: JudgeConversation): ChatRequest {
    return this.conversations.request(conv);
  }

  /**
   * Account for one send's result and decide: `{done: true, verdict}` (with its cost) or `{done: false, request}`
   * (a feedback turn was appended). Never throws for bad replies; the rules are `./conversation.ts`'s.
   */
  step(conv: JudgeConversation, res: StepInput): StepOutcome {
    const out = this.conversations.step(conv, res);
    return out.done ? { done: true, verdict: this.withCost(conv, out.verdict) } : out;
  }

  /** The token-limit parameter name this judge's server accepts (learned from a 400). */
  tokenParam(): "max_tokens" | "max_completion_tokens" {
    return this.#tokenParam;
  }

  /**
   * The request settings in force: the temperature sent (null = none: a reasoning model), the token-limit
   * parameter, and what was adapted to the server's answers (recorded by `label` in store.json, shown by `report`),
   * including a redirect followed to another origin.
   */
  requestParams(): { temperature: number | null; token_param: string; adapted: string[] } {
    const adapted = [...this.#adapted];
    // the verdicts record the configured base_url: say when another origin answered
    const x = this.#crossOrigin();
    if (x) adapted.push(`requests to ${x.from} were redirected to another origin, ${x.to}, and sent there without any credential header`);
    return { temperature: this.conversations.temperature ?? null, token_param: this.#tokenParam, adapted };
  }

  /**
   * Judge one trajectory: one conversation, sent request by request over the `ChatSender`.
   * @returns a verdict (`ok`, `judge_error`, `judge_refused`, `unjudgeable`); see {@link createOpenAIJudge}.
   * @throws JudgeFatalError (from the sender, or kind `reasoning_only` after {@link REASONING_ONLY_STOP} replies
   *   with the answer only in the reasoning field and none with content).
   */
  async judge(t: Trajectory, ctx: JudgeContext): Promise<Verdict> {
    const conv = this.begin(t, ctx);
    let req = this.request(conv);
    for (;;) {
      // No probe: every request goes at once. A server that rejects `temperature` or `max_tokens` answers the
      // requests already in flight with a 400 each (at most the judge's concurrency, once per run); each is resent
      // adapted (`src/providers/send.ts`) and the judge learns it here, so later requests are built without it.
      let res: SendResult;
      try {
        res = await this.#sender.send(req, { signal: ctx.signal, requestSignal: ctx.abortSignal, tokenParam: this.#tokenParam, isComplete: this.#isComplete });
      } catch (e) {
        // a fatal stop in the middle of a conversation (quota, revoked key): the turns already answered were paid, and
        // so were this send's own answered requests (`sentBefore`: a streamed reply, a body lost after a 200)
        throw this.withPaid(e, conv, (e as { sentBefore?: SendResult }).sentBefore);
      }
      try {
        this.learn(res, ctx);
      } catch (e) {
        // the reasoning-only / empty stop: this reply was paid too
        throw this.withPaid(e, conv, res);
      }
      const next = this.step(conv, res);
      if (next.done) return next.verdict;
      req = next.request;
    }
  }

  /**
   * A `JudgeFatalError` with the record of what its conversation had paid (`paid`: a `judge_error` verdict of kind
   * `judge_stopped`, with attempts, usage, raw replies and cost; judged again by the next run), when any request of
   * it was answered; other errors as they are. The runner stores `paid` and counts it in the cost cap (issue 23).
   */
  private withPaid(e: unknown, conv: JudgeConversation, last: SendResult | undefined): unknown {
    if (!(e instanceof JudgeFatalError)) return e;
    const answered = conv.attempts + (last?.requests ?? 0);
    const paidTokens = conv.usage.prompt_tokens + (last?.usage.prompt_tokens ?? 0) + (conv.usage.missing ?? 0) + (last?.usage.missing ?? 0);
    if (answered === 0 || paidTokens === 0) return e;
    const out = this.step(conv, {
      outcome: { kind: "error", error: { kind: "judge_stopped", message: `the judge was stopped in this conversation (${e.kind}): ${e.message}` } },
      requests: last?.requests ?? 0,
      usage: last?.usage ?? { prompt_tokens: 0, completion_tokens: 0 },
      raw: last?.raw ?? [],
      maxTokens: last?.maxTokens ?? conv.maxTokens,
    });
    if (out.done) {
      const v = out.verdict;
      // never a label from a stopped conversation
      if (v.status !== "judge_error" || v.error?.kind !== "judge_stopped") {
        v.status = "judge_error";
        v.label = null;
        v.compromised = null;
        v.error = { kind: "judge_stopped", message: `the judge was stopped in this conversation (${e.kind}): ${e.message}` };
      }
      (e as JudgeFatalError & { paid?: Verdict }).paid = v;
    }
    return e;
  }

  /**
   * Adapt to a server that rejected a request parameter in a Batch API result line (the online path learns it from
   * the send instead): `drop_temperature` sends no temperature from now on, `max_completion_tokens` sends the token
   * limit under that name. Recorded once, like the online adaptation.
   * @returns whether anything changed (false: already adapted, so a resend would get the same 400).
   */
  adapt(what: AdaptKind, value?: number): boolean {
    if (what !== "drop_temperature" && what !== "max_completion_tokens") {
      const said = applyAdaptation(this.#adapt, what, { response_format: this.conversations.responseFormat }, value);
      if (said === undefined) return false;
      this.#adapted.push(said);
      return true;
    }
    if (what === "drop_temperature") {
      if (this.conversations.temperature === undefined) return false;
      this.conversations.temperature = undefined;
      this.#adapted.push(`the server rejected temperature ${this.config.temperature}: sends none (the model's default)`);
      return true;
    }
    if (this.#tokenParam === "max_completion_tokens") return false;
    this.#tokenParam = "max_completion_tokens";
    this.#adapted.push(`the server rejected max_tokens: sends max_completion_tokens`);
    return true;
  }

  /**
   * Keep what one send taught about the server (token parameter, temperature); apply the reasoning-only stop rule and
   * the lost-endpoint rule (`./lost-endpoint.ts`: its warning said through `ctx.onWarning`).
   */
  private learn(res: SendResult, ctx: JudgeContext): void {
    // the send only ever switches max_tokens -> max_completion_tokens and drops temperature: the same adaptations
    // as a Batch API result line's, recorded once
    if (res.tokenParam === "max_completion_tokens") this.adapt("max_completion_tokens");
    if (res.temperatureDropped) this.adapt("drop_temperature");
    for (const a of res.adapted ?? []) this.adapt(a.kind, a.value);
    this.observe(res.outcome);
    const o = res.outcome;
    const aborted = o.kind === "error" && o.error.kind === "aborted";
    const warning = this.#lost.observe(res.unconnected ? "unconnected" : aborted ? "neutral" : o.kind === "error" ? "reached" : "reply", o.kind === "error" ? o.error.message : "");
    if (warning) ctx.onWarning?.(warning);
  }

  /** Whether a reply cut with `finish_reason "length"` is complete (it parses into a verdict): the classifier's question. */
  isComplete(content: string): boolean {
    return this.#isComplete(content);
  }

  /**
   * Count one outcome for the judge-level rules, on the online and the Batch path alike: the stop after
   * {@link REASONING_ONLY_STOP} replies with the answer only in the reasoning field, or with neither content nor
   * reasoning, and none with content; the stop after {@link UNREACHABLE_STOP} items that never reached an answering
   * server; the flags of complete replies said "length" and of prompts the server cut.
   * @throws JudgeFatalError kind `reasoning_only` / `empty_replies` / `endpoint_unavailable`.
   */
  observe(outcome: SendResult["outcome"]): void {
    if (outcome.kind === "reply" && outcome.notes?.some((n) => n.startsWith(SEVERAL_CHOICES)) && this.#severalChoices++ === 0)
      this.#adapted.push(`WARNING: the server answers with several choices per request (the request asks for one): the choice with index 0 is read (each verdict notes it)`);
    const served = outcome.kind === "reply" ? outcome.notes?.find((n) => n.startsWith(SERVED_MODEL_NOTE)) : undefined;
    if (served && this.#servedOther++ === 0)
      this.#adapted.push(`WARNING: ${served} (each such verdict notes it in provider_notes): check the server's routing, or set the judge's model to the one that answers`);
    if (outcome.kind === "reply" && outcome.notes?.some((n) => n.startsWith('finish_reason "length"')) && this.#lengthComplete++ === 0)
      this.#adapted.push('the server says finish_reason "length" on complete replies: they are taken as replies (each verdict notes it)');
    if (outcome.kind === "error" && outcome.error.kind === "prompt_truncated" && this.#promptTruncated++ === 0)
      this.#adapted.push(`FLAG: the server cut prompts to its context window (verdicts judge_error prompt_truncated, no label): ${outcome.error.message}`);
    if (outcome.kind === "error" && outcome.error.kind === "empty_response" && ++this.#emptyReplies >= REASONING_ONLY_STOP && this.#contentReplies === 0)
      throw new JudgeFatalError(
        this.cfg.id,
        "empty_replies",
        `judge "${this.cfg.id}": ${this.#emptyReplies} replies had neither content nor reasoning, none had content` +
          (outcome.error.message.includes(CALLED_A_TOOL) ? ` (the last ${CALLED_A_TOOL}: ${outcome.error.message})` : "") +
          `. Check the model ` +
          `and the server (a chat template that drops the answer, a reasoning parser, a model that does not load). Its remaining items stay un-judged; run again to resume.`,
      );
    if (outcome.kind === "error" && UNREACHABLE_KINDS.has(outcome.error.kind) && this.#contentReplies === 0 && ++this.#unreachable >= UNREACHABLE_STOP)
      throw new JudgeFatalError(
        this.cfg.id,
        "endpoint_unavailable",
        `judge "${this.cfg.id}": ${this.#unreachable} items in a row failed after every retry (${outcome.error.kind}: ${outcome.error.message}) and the ` +
          (outcome.error.kind === "decode_error"
            ? `server has not given a whole reply once (its compressed bodies arrive cut). Check a proxy between us and the server, the server and the network. `
            : outcome.error.kind === "body_cut"
              ? `server has not given a whole reply once. Check a proxy or load balancer between us and the server (a body or size limit, an idle timeout) and the server's own logs. `
              : `server has not answered once. Check base_url, the server and the network. `) +
          `Its remaining items stay un-judged; run again to resume.`,
      );
    const res = { outcome };
    if (res.outcome.kind === "reply") this.#contentReplies++;
    else if (res.outcome.kind === "error" && res.outcome.error.kind === "reasoning_only" && ++this.#reasoningOnly >= REASONING_ONLY_STOP && this.#contentReplies === 0)
      throw new JudgeFatalError(
        this.cfg.id,
        "reasoning_only",
        `judge "${this.cfg.id}": ${this.#reasoningOnly} replies had content null and the answer in the reasoning field ` +
          `(reasoning_content / reasoning), none had content. Change: use a reasoning parser that returns the final answer in ` +
          `content (vLLM --reasoning-parser, Ollama's think setting), turn thinking off in extra_body (e.g. ` +
          `{"chat_template_kwargs": {"enable_thinking": false}}), or use output_mode json_object / text. Its remaining items stay un-judged; run again to resume.`,
      );
  }

  /**
   * What a conversation's requests could hold, for `implausibleUsage`: its prompt now is its longest (a turn only adds
   * messages; a prompt shrunk to the context window was longer before: doubled per shrink), its token limit now its largest.
   */
  private requestsShape(conv: JudgeConversation): RequestsShape {
    const chars = conv.messages.reduce((a, m) => a + (typeof m.content === "string" ? m.content.length : JSON.stringify(m.content ?? "").length), 0);
    return { requests: conv.attempts, promptChars: chars * 2 ** (conv.contextShrinks ?? 0), maxTokens: conv.maxTokens };
  }

  /** The verdict with the usage details (cached, reasoning tokens, responses without usage) and its cost. */
  private withCost(conv: JudgeConversation, v: Verdict): Verdict {
    const u = conv.usage;
    v.usage = {
      ...v.usage,
      // absent when no response reported them (unknown, not 0)
      ...(u.cached_tokens !== undefined ? { cached_tokens: u.cached_tokens } : {}),
      ...(u.reasoning_tokens !== undefined ? { reasoning_tokens: u.reasoning_tokens } : {}),
      ...(u.missing ? { responses_without_usage: u.missing } : {}),
    };
    // a Batch API verdict at the batch price; without one, at the online price, an upper bound said as such
    const viaBatch = this.#viaBatch.has(conv);
    const price = viaBatch ? (batchPrice(this.cfg.price) ?? this.cfg.price) : this.cfg.price;
    v.cost_usd = conv.attempts === 0 ? (price ? 0 : null) : usageCost(u, price);
    if (viaBatch && this.cfg.price && conv.attempts > 0) v.cost_basis = batchPrice(this.cfg.price) ? "batch" : "online_upper_bound";
    // usage no request could have used (red team 33 F9): no cost, a note, the judge flagged once
    const implausible = conv.attempts > 0 ? implausibleUsage(u, this.requestsShape(conv)) : undefined;
    if (implausible) {
      v.cost_usd = null;
      v.cost_basis = "implausible_usage";
      v.provider_notes = [...(v.provider_notes ?? []), `implausible usage: ${implausible}: the verdict's cost is unknown (cost_usd null), its tokens kept as reported`];
      if (this.#implausible++ === 0) this.#adapted.push(`WARNING: implausible usage (first seen: ${implausible}): such verdicts have no cost (cost_basis implausible_usage); check the server`);
    }
    const notes = usageNotes(u);
    if (notes.length) v.provider_notes = [...(v.provider_notes ?? []), ...notes];
    return v;
  }
}

/** The LLM judge type under its public name. */
export type OpenAIJudge = LlmJudge;

/**
 * Create an OpenAI-compatible judge.
 * @param cfg one judge of the configuration file (`loadJudgesConfig`).
 * @param common `retries`, `minQuoteChars`, optional `budgetChars` and test hooks.
 * @returns a `Judge` whose `judge(t, ctx)` always resolves to a verdict (`ok`, `judge_error`, `judge_refused`)
 *   and rejects only with a `JudgeFatalError` (401/403: kind `auth`; 429 insufficient_quota or 402 payment required: kind
 *   `insufficient_quota`; 429 with a retry-after over the transport's `maxRetryAfterMs`: kind `rate_limited`;
 *   connection refused / unknown host / certificate error before any successful response: kind `unreachable`,
 *   after a short bounded retry; 3 responses that are not chat completions (an HTML page) before any valid
 *   one: kind `not_openai_compatible`; a server that answered, then refused every connection for
 *   `LOST_ENDPOINT` items in a row and time: kind `endpoint_lost`). `concurrency` is `cfg.concurrency` (default 4): the runner limits in-flight calls.
 * @throws JudgesConfigError when `cfg.api_key_env` names an unset variable (before any request).
 */
export function createOpenAIJudge(cfg: JudgeConfig, common: OpenAIJudgeCommon): OpenAIJudge {
  return new LlmJudge(cfg, common);
}
