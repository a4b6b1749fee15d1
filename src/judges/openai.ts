/**
 * An LLM judge over any OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM, Ollama, ...), with
 * the real `openai` v6 client (`maxRetries: 0`: retries are done by `./transport.ts` so the policy is exact).
 *
 * One verdict = one conversation:
 * 1. system message: the rubric (`prompts/rubric-v1/system.md`), identical for every trajectory, first;
 * 2. user message: the trajectory and injected content in nonce-tagged untrusted blocks (`renderForJudge`);
 * 3. on a reply that cannot be parsed, has an invalid label, or whose findings do not verify
 *    (`decide(...).needsRetry`): the assistant's reply and a user feedback turn (`parseFeedback`,
 *    `labelFeedback`, `feedbackMessage`), at most `retries` times.
 *
 * When the feedback turns run out: a reply never parsed -> `judge_error` (label null); a parsed reply whose
 * findings do not verify keeps its decision (label = highest holding finding, `downgraded`, `label_claimed`).
 * Transport faults, truncation and refusals follow `./transport.ts` and never use the feedback budget.
 * `attempts` = HTTP requests sent for the verdict; `usage` sums all of them; `raw_replies` keeps every reply.
 * The API key is never written to a verdict, an error message or a log.
 */
import OpenAI from "openai";
import { evidenceContext } from "../evidence/verify.js";
import { buildMessages, promptSha256, RUBRIC_VERSION } from "../rubric/prompt.js";
import { renderForJudge } from "../serialize/render.js";
import type { Trajectory, Verdict, VerdictStatus } from "../types.js";
import { decide, type Decision } from "../verdict/decide.js";
import { feedbackMessage, labelFeedback, parseFeedback } from "../verdict/feedback.js";
import { buildVerdict } from "../verdict/record.js";
import { JUDGE_DEFAULTS, resolveApiKey, type JudgeConfig, type OutputMode } from "./config.js";
import type { Judge, JudgeContext } from "./judge.js";
import { responseFormat } from "./openai-schema.js";
import { looksLikeRefusal, parseReply } from "./parse.js";
import { defaultSleep, RateGate, redact, sendChat, type ChatMessage, type TransportOptions } from "./transport.js";

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

/** The judge, with its resolved configuration (defaults applied). */
export interface OpenAIJudge extends Judge {
  config: Required<Pick<JudgeConfig, "temperature" | "output_mode" | "concurrency" | "timeout_s">> & JudgeConfig;
}

/**
 * Create an OpenAI-compatible judge.
 * @param cfg one judge of the configuration file (`loadJudgesConfig`).
 * @param common `retries`, `minQuoteChars`, optional `budgetChars` and test hooks.
 * @returns a `Judge` whose `judge(t, ctx)` always resolves to a verdict (`ok`, `judge_error`, `judge_refused`)
 *   and rejects only with a `JudgeFatalError` (401/403: kind `auth`; 429 insufficient_quota: kind
 *   `insufficient_quota`). `concurrency` is `cfg.concurrency` (default 4): the runner limits in-flight calls.
 * @throws JudgesConfigError when `cfg.api_key_env` names an unset variable (before any request).
 */
export function createOpenAIJudge(cfg: JudgeConfig, common: OpenAIJudgeCommon): OpenAIJudge {
  const apiKey = resolveApiKey(cfg, common.env);
  const config = {
    ...cfg,
    temperature: cfg.temperature ?? JUDGE_DEFAULTS.temperature,
    output_mode: (cfg.output_mode ?? JUDGE_DEFAULTS.output_mode) as OutputMode,
    concurrency: cfg.concurrency ?? JUDGE_DEFAULTS.concurrency,
    timeout_s: cfg.timeout_s ?? JUDGE_DEFAULTS.timeout_s,
  };
  const timeoutMs = config.timeout_s * 1000;
  const client = new OpenAI({ apiKey, baseURL: cfg.base_url, timeout: timeoutMs, maxRetries: 0 });
  const secrets = apiKey === "not-needed" ? [] : [apiKey];
  const scale = common.transport?.timeScale ?? 1;
  const sleep = common.transport?.sleep ?? defaultSleep;
  const gate =
    cfg.rpm !== undefined || cfg.tpm !== undefined
      ? new RateGate(cfg.rpm, cfg.tpm, (ms, signal) => sleep(ms * scale, signal))
      : undefined;
  const retries = common.retries ?? JUDGE_DEFAULTS.retries;
  const format = responseFormat(config.output_mode);
  // Learned once per judge: a server that rejects `max_tokens` keeps getting `max_completion_tokens`.
  let tokenParam: "max_tokens" | "max_completion_tokens" = "max_tokens";

  const identity = {
    id: cfg.id,
    model: cfg.model,
    family: cfg.family,
    rubricVersion: RUBRIC_VERSION,
    promptSha256,
  };

  async function judge(t: Trajectory, ctx: JudgeContext): Promise<Verdict> {
    const rendered = renderForJudge(t, { budgetChars: ctx.budgetChars ?? common.budgetChars });
    const evCtx = evidenceContext(t, {
      minQuoteChars: ctx.minQuoteChars ?? common.minQuoteChars ?? JUDGE_DEFAULTS.min_quote_chars,
      parts: rendered.parts,
      nonce: rendered.nonce,
    });
    const messages: ChatMessage[] = buildMessages(rendered);
    const usage = { prompt_tokens: 0, completion_tokens: 0 };
    const raw: string[] = [];
    let attempts = 0;
    let maxTokens = cfg.max_tokens;
    let last: { decision: Decision; rationale: string } | undefined;

    const verdict = (
      status: VerdictStatus,
      decision: Decision | null,
      extra: { error?: { kind: string; message: string }; rationale?: string } = {},
    ): Verdict =>
      buildVerdict({
        trajectory: t,
        judge: identity,
        repeat: ctx.repeat,
        status,
        decision,
        attempts,
        usage,
        raw_replies: raw.map((r) => redact(r, secrets)),
        truncated: rendered.truncated,
        error: extra.error ? { kind: extra.error.kind, message: redact(extra.error.message, secrets) } : undefined,
        rationale: extra.rationale,
        now: common.now?.(),
      });
    /** Feedback turns are used up (or a later turn failed): the last decided reply stands, else an error. */
    const fallBack = (error: { kind: string; message: string }): Verdict =>
      last
        ? verdict("ok", last.decision, { rationale: last.rationale, error: { kind: `retry_${error.kind}`, message: error.message } })
        : verdict("judge_error", null, { error });

    for (let round = 0; ; round++) {
      const res = await sendChat(
        client,
        {
          model: cfg.model,
          messages,
          temperature: config.temperature,
          max_tokens: maxTokens,
          response_format: format,
          extra_body: cfg.extra_body,
        },
        { judgeId: cfg.id, timeoutMs, signal: ctx.signal, secrets, gate, tokenParam, options: common.transport },
      );
      attempts += res.requests;
      usage.prompt_tokens += res.usage.prompt_tokens;
      usage.completion_tokens += res.usage.completion_tokens;
      raw.push(...res.raw);
      maxTokens = res.maxTokens;
      tokenParam = res.tokenParam;

      const out = res.outcome;
      if (out.kind === "refused")
        return last
          ? fallBack({ kind: "refused", message: out.message })
          : verdict("judge_refused", null, { error: { kind: "refused", message: out.message } });
      if (out.kind === "error") return fallBack(out.error);

      const parsed = parseReply(out.content, config.output_mode);
      if (!parsed.ok) {
        if (looksLikeRefusal(out.content))
          return last
            ? fallBack({ kind: "refused", message: out.content.slice(0, 500) })
            : verdict("judge_refused", null, { error: { kind: "refused", message: out.content.trim().slice(0, 500) } });
        if (round < retries) {
          messages.push({ role: "assistant", content: out.content });
          messages.push({
            role: "user",
            content: parsed.kind === "invalid_label" ? labelFeedback(parsed.rawLabel ?? "") : parseFeedback(parsed.message),
          });
          continue;
        }
        return fallBack({ kind: parsed.kind === "invalid_label" ? "invalid_label" : "unparseable", message: parsed.message });
      }

      const decision = decide(parsed.reply, evCtx);
      last = { decision, rationale: parsed.reply.rationale };
      if (decision.needsRetry && round < retries) {
        messages.push({ role: "assistant", content: out.content });
        messages.push({ role: "user", content: feedbackMessage(decision) });
        continue;
      }
      return verdict("ok", decision, { rationale: parsed.reply.rationale });
    }
  }

  return {
    ...identity,
    concurrency: config.concurrency,
    config,
    judge,
  };
}
