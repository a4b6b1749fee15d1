/**
 * The judge conversation, independent of any provider: how one verdict is asked for, read and checked. It sends
 * nothing; it turns a trajectory into chat requests and what each send came to (a `SendResult` of
 * `src/providers/`, or one Batch API result line) into the next request or the verdict.
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
 * findings do not verify keeps its decision (label = highest holding finding, `downgraded`, `label_claimed`). A reply
 * after a feedback turn keeps the previous reply's verified findings it does not retract (`../verdict/carry.ts`:
 * ranked at or below its claimed label; marked `from_reply`), so a verified finding left out of a retry is not lost.
 * A feedback turn that could not run at all (a transport fault: 429s, 5xx, resets, timeouts, 4xx, a stopped
 * run) -> `judge_error` with that fault's error kind (label and compromised null), keeping the first
 * decision's findings and rationale, the raw replies, attempts and usage; `--retry-errors` judges it again.
 * A prompt over the model's context (`context_length` before any reply) is elided further and sent again, at
 * most 3 times, then `unjudgeable` / `too_long`. `attempts` = requests sent for the verdict; `usage` sums all of
 * them; `raw_replies` keeps every reply; `feedback_turns` = the feedback turns sent and `first_reply` = the first
 * decided reply's quotes checked and failed (`../verdict/first-reply.ts`: what the feedback turns fixed).
 *
 * Use: `begin(t, ctx)` -> `request(conv)` -> send it -> `step(conv, result)` -> `{done: false, request}` (send
 * that) or `{done: true, verdict}`. `freeze`/`resume` keep a conversation as plain JSON between Batch API rounds.
 */
import { sumRateLimitWaits, type RateLimitWaits } from "../providers/rate-limit-waits.js";
import { evidenceContext, type EvidenceContext } from "../evidence/context.js";
import { buildMessages, SYSTEM_TEMPLATE } from "../rubric/prompt.js";
import { DEFAULT_BUDGET_CHARS, renderForJudge, type RenderedTrajectory } from "../serialize/render.js";
import type { Trajectory, Verdict, VerdictStatus, VerifiedFinding } from "../types.js";
import { decide, type Decision } from "../verdict/decide.js";
import { feedbackMessage, labelFeedback, parseFeedback } from "../verdict/feedback.js";
import { markEvidenceFromFeedback, offeredTexts, verifiedQuotes } from "../verdict/from-feedback.js";
import { heldFindings } from "../verdict/carry.js";
import { buildVerdict, type JudgeIdentity } from "../verdict/record.js";
import { quoteCheck } from "../verdict/first-reply.js";
import type { JudgeContext } from "./judge.js";
import { looksLikeRefusal, parseReply } from "./parse.js";
import { EXTRA_KEYS_NOTE, VERDICT_KEYS } from "./extra-keys.js";
import type { OutputMode } from "../config/judges.js";
import { addUsage, clipMessage, type ChatMessage, type ChatRequest, type SendResult, type Usage } from "../providers/send.js";
import { REPEATED_KEY } from "../store/repeated-key-kind.js";

/**
 * Error kinds of a send that are the judge's own answer (a reply cut at the token limit, an empty reply),
 * not a transport fault: on a feedback turn they fall back to the last decision like an unparseable reply.
 */
const JUDGE_ANSWER_ERRORS = new Set(["truncated", "empty_response", "reasoning_only", "json_validate_failed"]);

/** Error kinds that are the model's output failing a JSON check on the server (Groq): a parse failure of the reply. */
const MODEL_OUTPUT_ERRORS = new Set(["json_validate_failed"]);

/**
 * The state of one verdict's conversation (one trajectory, one repeat), shared by the online path
 * (send, step, send, ...) and the Batch API path (`../run/batch.ts`: one request per conversation per batch).
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
  /** Times the trajectory was rendered again under a smaller budget for the model's context (`Verdict.context_elided`). */
  contextElided?: number;
  /** The last reply that could be decided. */
  last?: { decision: Decision; rationale: string };
  /** The first reply that could be decided: its quotes checked and failed, before any feedback (`Verdict.first_reply`). */
  firstReply?: { quotes: number; quotes_failed: number };
  /** What the provider's replies said that the verdict records (`Verdict.provider_notes`), each once. */
  notes?: string[];
  /**
   * The names of keys its replies held that the parser does not read (`./extra-keys.ts`), over every reply that parsed:
   * the verdict's `extra_keys`. Absent when none.
   */
  extraKeys?: string[];
  /** The rate limits its requests got and waited out so far (`../providers/rate-limit-waits.ts`): the verdict's `rate_limited`. */
  rateLimited?: RateLimitWaits;
  /**
   * The closest existing texts the feedback turns so far offered (normalized; `../verdict/from-feedback.ts`): a later
   * reply's holding finding quoting one of them is marked `evidence_from_feedback`.
   */
  offered?: string[];
  /**
   * The holding findings of the last decided reply that got a feedback turn (`heldFindings`, `../verdict/carry.ts`): the
   * next reply keeps those it does not retract.
   */
  held?: VerifiedFinding[];
  /**
   * The quotes (normalized) earlier replies verified before a feedback turn: never marked as pasted from it. An array,
   * not a Set: `freeze` keeps the state as JSON for the Batch API rounds, where a Set was written as `{}`.
   */
  verifiedBefore?: string[];
  /** The nonce of the rendered trajectory (rendering again with it gives the same messages). */
  readonly nonce: string;
  readonly budgetChars?: number;
  readonly minQuoteChars: number;
  /** The evidence context (computed on first use; not enumerable, so `freeze` leaves it out). */
  readonly evCtx: EvidenceContext;
}

/** A conversation as plain JSON (without the evidence context), to keep on disk between batch rounds. */
export type ConversationState = Omit<JudgeConversation, "evCtx">;

/** What one send came to, as `step` reads it (a `SendResult` of `sendChat`, or one Batch API result line). */
export type StepInput = Pick<SendResult, "outcome" | "requests" | "usage" | "raw" | "maxTokens" | "rateLimited">;

/** The result of one step: a verdict, or the next request of the conversation. */
export type StepOutcome = { done: true; verdict: Verdict } | { done: false; request: ChatRequest };

/** The settings of one judge's conversations (from its config, with defaults applied). */
export interface ConversationSettings {
  /** Who judges: recorded on every verdict. */
  identity: JudgeIdentity;
  /** The model named in every request. */
  model: string;
  /** Temperature sent; undefined sends none (see {@link JudgeConversations.temperature}). */
  temperature: number | undefined;
  /** `max_tokens` of the first request (undefined: the server's default). */
  maxTokens?: number;
  /** `response_format` of every request (from the output mode and schema dialect). */
  responseFormat: ChatRequest["response_format"];
  extraBody?: Record<string, unknown>;
  /** How replies are parsed (`json_schema`, `json_object`, `text`). */
  outputMode: OutputMode;
  /** Feedback turns per verdict. */
  retries: number;
  /** Minimum normalized quote length, when `JudgeContext.minQuoteChars` is not set. */
  minQuoteChars: number;
  /** Character budget of the rendered trajectory, when `JudgeContext.budgetChars` is not set. */
  budgetChars?: number;
  /** The budget that fits the model's context (`context_tokens`): the rendered budget never exceeds it. */
  contextBudget?: number;
  /** Removes secrets from every text the judge wrote into a verdict (the API key, should a server echo it). */
  redact: (text: string) => string;
  /** What the judge learned about its server (sent with every request: `chatRequestBody` applies it). */
  adapt?: import("../providers/send.js").RequestAdaptations;
  /** Clock for `created_at` (tests). */
  now?: () => Date;
}

/**
 * The conversations of one judge: `begin`, `request`, `step` (and `freeze`/`resume` for the Batch API). The
 * same methods serve the online path (`./llm-judge.ts`) and the Batch API path (`../run/batch.ts`).
 */
export class JudgeConversations {
  /**
   * The temperature sent with every request; the LLM judge sets it to undefined when its server rejected it
   * (a reasoning model), so later requests carry none.
   */
  temperature: number | undefined;

  constructor(private readonly s: ConversationSettings) {
    this.temperature = s.temperature;
  }

  /** The configured `response_format` (before any adaptation). */
  get responseFormat(): ChatRequest["response_format"] {
    return this.s.responseFormat;
  }

  /** Start the conversation of one verdict: render, the two first messages; the evidence context on first use. */
  begin(t: Trajectory, ctx: JudgeContext): JudgeConversation {
    let budgetChars = ctx.budgetChars ?? this.s.budgetChars;
    if (this.s.contextBudget !== undefined) budgetChars = Math.min(budgetChars ?? DEFAULT_BUDGET_CHARS, this.s.contextBudget);
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
        maxTokens: this.s.maxTokens,
        truncated: rendered.truncated,
        nonce: rendered.nonce,
        budgetChars,
        minQuoteChars: ctx.minQuoteChars ?? this.s.minQuoteChars,
      },
      rendered,
    );
  }

  /**
   * A conversation again from its saved state (`freeze`), e.g. after a restart.
   * @param rendered the trajectory's rendered parts (and their elided ranges) under the state's nonce and budget,
   *   when the caller has them ({@link renderAgain}); otherwise rendered on first use of the evidence context.
   */
  resume(state: ConversationState, rendered?: RenderedEvidence): JudgeConversation {
    return withEvidence({ ...state }, rendered);
  }

  /** The conversation's state as plain JSON. */
  freeze(conv: JudgeConversation): ConversationState {
    // evCtx is not enumerable: a spread leaves it out without computing it
    return { ...conv } as ConversationState;
  }

  /** The chat request the conversation sends next. */
  request(conv: JudgeConversation): ChatRequest {
    return {
      model: this.s.model,
      messages: conv.messages,
      temperature: this.temperature,
      max_tokens: conv.maxTokens,
      response_format: this.s.responseFormat,
      extra_body: this.s.extraBody,
      ...(this.s.adapt ? { adapt: this.s.adapt } : {}),
    };
  }

  /**
   * One step of the conversation: account for what one send came to (requests, usage, raw replies), then
   * decide: `{done: true, verdict}`, or `{done: false, request}` (a feedback turn was appended to
   * `conv.messages`, or the trajectory was elided further). Never throws for bad replies (module docstring).
   * The verdict has no cost yet (`./llm-judge.ts` adds it).
   */
  step(conv: JudgeConversation, res: StepInput): StepOutcome {
    const s = this.s;
    const t = conv.trajectory;
    conv.attempts += res.requests;
    addUsage(conv.usage, res.usage);
    conv.raw.push(...res.raw);
    conv.maxTokens = res.maxTokens;
    conv.rateLimited = sumRateLimitWaits(conv.rateLimited, res.rateLimited);
    const round = conv.round;

    const verdict = (
      status: VerdictStatus,
      decision: Decision | null,
      extra: { error?: { kind: string; message: string }; rationale?: string } = {},
    ): StepOutcome => ({
      done: true,
      verdict: withNotes(conv, buildVerdict({
        trajectory: t,
        judge: s.identity,
        repeat: conv.repeat,
        status,
        decision,
        attempts: conv.attempts,
        usage: conv.usage,
        raw_replies: conv.raw,
        // the key, should a server echo it into a reply, is removed from every text the judge wrote
        redact: s.redact,
        truncated: conv.truncated,
        context_elided: conv.contextElided,
        // Transport messages already cut the provider's text to 500 characters; this bounds every other kind too
        // (a parse error quoting a huge label, a refusal).
        error: extra.error ? { kind: extra.error.kind, message: clipMessage(extra.error.message, 800) } : undefined,
        rationale: extra.rationale,
        now: s.now?.(),
        nonce: conv.nonce,
        // what the feedback turns fixed (new user 30, M2): the first decided reply's quotes and the turns sent
        first_reply: conv.firstReply,
        feedback_turns: conv.round,
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
    const again = (content: string, feedback: string, reasoning?: string): StepOutcome => {
      // the reply's reasoning rides along; `chatRequestBody` sends it back only where the provider requires it
      conv.messages.push(reasoning !== undefined ? { role: "assistant", content, reasoning_content: reasoning } : { role: "assistant", content });
      conv.messages.push({ role: "user", content: feedback });
      conv.round++;
      return { done: false, request: this.request(conv) };
    };

    const out = res.outcome;
    if (out.kind === "reply" && out.notes?.length) for (const n of out.notes) if (!(conv.notes ??= []).includes(n)) conv.notes.push(n);
    if (out.kind === "error" && MODEL_OUTPUT_ERRORS.has(out.error.kind)) {
      // the server's JSON check refused the model's output (Groq json_validate_failed): an unparseable reply, which
      // spends the feedback budget like any other
      if (round < s.retries) return again(out.output ?? "", parseFeedback(out.error.message, conv.nonce));
      return fallBack({ kind: "unparseable", message: out.error.message });
    }
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
        return { done: false, request: this.request(conv) };
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

    const parsed = parseReply(out.content, s.outputMode);
    if (!parsed.ok) {
      if (looksLikeRefusal(out.content))
        return conv.last
          ? fallBack({ kind: "refused", message: out.content.slice(0, 500) })
          : verdict("judge_refused", null, { error: { kind: "refused", message: out.content.trim().slice(0, 500) } });
      if (round < s.retries)
        return again(
          out.content,
          parsed.kind === "invalid_label" ? labelFeedback(parsed.rawLabel ?? "", conv.nonce) : parseFeedback(parsed.message, conv.nonce),
          out.reasoning,
        );
      // a key given twice with different values is named apart: judge health counts it (../verdict/repeated-key-health.ts)
      const kind = parsed.kind === "invalid_label" ? "invalid_label" : parsed.repeatedKey ? REPEATED_KEY : "unparseable";
      return fallBack({ kind, message: parsed.message });
    }

    // an index the reply gave that is no index (4.5, 1e308, -3) was read as none given: the verdict says so (red team 31 L3b)
    // and keys it does not read were ignored: the verdict names them and judge health counts them (./extra-keys.ts)
    for (const n of parsed.notes ?? []) {
      const note = `judge reply: ${n}`;
      if ((/is not an index/.test(n) || n.startsWith(EXTRA_KEYS_NOTE)) && !(conv.notes ??= []).includes(note)) conv.notes.push(note);
    }
    for (const k of parsed.extraKeys ?? []) if (!(conv.extraKeys ??= []).includes(k)) conv.extraKeys.push(k);
    // the previous decided reply's holding findings this reply does not retract stay (red team 35a F3, ../verdict/carry.ts)
    const decision = decide(parsed.reply, conv.evCtx, conv.held);
    // a finding resting on text an earlier feedback turn offered is marked (red team 31 F2)
    // a state frozen by an earlier version holds `{}` there (a Set written as JSON): read as none
    if (conv.offered) markEvidenceFromFeedback(decision.findings, conv.offered, conv.nonce, new Set(Array.isArray(conv.verifiedBefore) ? conv.verifiedBefore : []));
    conv.last = { decision, rationale: parsed.reply.rationale };
    conv.firstReply ??= quoteCheck(decision.findings);
    if (decision.needsRetry && round < s.retries) {
      const offered = offeredTexts(decision);
      if (offered.length > 0) (conv.offered ??= []).push(...offered);
      // the quotes this reply already verified, before any feedback offered them (red team 32 H: a quote verified under
      // partial_compliance, then moved under full_compliance, read as pasted from the feedback)
      const before = Array.isArray(conv.verifiedBefore) ? conv.verifiedBefore : [];
      for (const q of verifiedQuotes(decision.findings, conv.nonce)) if (!before.includes(q)) before.push(q);
      conv.verifiedBefore = before;
      conv.held = heldFindings(decision.findings, conv.raw.length);
      return again(out.content, feedbackMessage(decision, conv.nonce), out.reasoning);
    }
    return verdict("ok", decision, { rationale: parsed.reply.rationale });
  }
}

/**
 * The first two messages of a conversation (system: the rubric; user: the trajectory) rendered again from its
 * trajectory, nonce and budget, with the rendered parts. Rendering with a given nonce is deterministic: the same
 * messages as `begin` (or the last elision) built, which the Batch API path checks by hash before using them.
 */
export function renderAgain(state: Pick<ConversationState, "trajectory" | "nonce" | "budgetChars">): { messages: [ChatMessage, ChatMessage] } & RenderedEvidence {
  const rendered = renderForJudge(state.trajectory, { nonce: state.nonce, budgetChars: state.budgetChars });
  return { messages: buildMessages(rendered), parts: rendered.parts, elided: rendered.elided };
}

/** What quotes are verified against: the rendered parts and the ranges of them the judge was not shown. */
export type RenderedEvidence = Pick<RenderedTrajectory, "parts" | "elided">;

/** The verdict with the provider notes, the keys not read and the rate limits waited out of its conversation (each absent when none). */
function withNotes(conv: JudgeConversation, v: Verdict): Verdict {
  if (conv.notes?.length) v.provider_notes = [...conv.notes];
  if (conv.extraKeys?.length) v.extra_keys = [...conv.extraKeys].sort().slice(0, VERDICT_KEYS);
  if (conv.rateLimited) v.rate_limited = { ...conv.rateLimited };
  return v;
}

/** Add the lazily computed evidence context (not enumerable) to a conversation state. */
function withEvidence(state: ConversationState, rendered?: RenderedEvidence): JudgeConversation {
  let ev: EvidenceContext | undefined;
  return Object.defineProperty(state, "evCtx", {
    enumerable: false,
    configurable: true,
    get(): EvidenceContext {
      if (ev === undefined) {
        const r = rendered ?? renderForJudge(state.trajectory, { nonce: state.nonce, budgetChars: state.budgetChars });
        ev = evidenceContext(state.trajectory, { minQuoteChars: state.minQuoteChars, parts: r.parts, elided: r.elided, nonce: state.nonce });
      }
      return ev;
    },
  }) as JudgeConversation;
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
  c.contextElided = (conv.contextElided ?? 0) + 1;
  withEvidence(conv, rendered);
}
