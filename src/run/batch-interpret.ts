/**
 * What one Batch API result line means for its judge conversation (`./batch.ts` step 4): a verdict, the next request
 * (a feedback turn, a resend in the next round), or a fatal stop of the judge; and the usage a line counts.
 */
import type { Verdict } from "../types.js";
import { JudgeFatalError } from "../errors.js";
import type { JudgeConversation, OpenAIJudge, StepInput } from "../judges/llm-judge.js";
import { addUsage, chatRequestBody, clipMessage, readUsage, redact, sentShape, TRUNCATION_RETRY_MAX_TOKENS, type ChatRequest, type Usage } from "../providers/send.js";
import { isModelOutputRejected, type FaultState } from "../providers/faults.js";
import { emptyReplyMessage, lazyPromptSize, replyChars } from "../providers/classify.js";
import { classifyBatchLine, type BatchResultLine } from "../providers/batch-results.js";
import type { StateLine } from "./batch-chunk.js";

export type ResultLine = BatchResultLine;

/** What a result line means for its conversation (`BatchJudgeRun.interpret`). */
export type Interpreted = { kind: "verdict"; verdict: Verdict } | { kind: "request"; request: ChatRequest } | { kind: "fatal"; error: JudgeFatalError };

/**
 * The tokens of a result line, counted as the online path counts them (`src/providers/send.ts`): an HTTP 200
 * response carries usage, and so may an error whose request the model answered (`json_validate_failed`: paid; without
 * usage it is a response "without usage", which makes the verdict's cost unknown, never 0); any other error line
 * (4xx, 5xx, expired) was not paid and adds none.
 */
export function lineUsage(r: ResultLine | undefined): Usage {
  if (r?.body && r.status === 200 && !r.error) return readUsage(r.body.usage, { replyChars: replyChars(r.body) });
  const err = (r?.body?.error ?? undefined) as { code?: unknown; message?: unknown; usage?: unknown } | undefined;
  if (r && isModelOutputRejected(r.status, typeof err?.code === "string" ? err.code : undefined, typeof err?.message === "string" ? err.message : ""))
    return readUsage(err?.usage ?? r.body?.usage);
  return { prompt_tokens: 0, completion_tokens: 0 };
}

/** Steps a judge's conversations with Batch API result lines (module docstring). */
export class BatchLineSteps {
  /**
   * @param judge the batch judge.
   * @param maxResends resends of one request after transient error lines or an expired batch.
   */
  constructor(
    private readonly judge: OpenAIJudge,
    private readonly maxResends: number,
  ) {}

  /**
   * What one result line means for its conversation: a verdict, or the next request. The line is classified by the
   * provider layer's one classifier (`classifyBatchLine`: the status table and the reply classifier the online path
   * uses); this carries the outcome out in batch rounds (a resend goes into the next round's batch).
   * @returns a verdict, the next request, or `fatal` for the fatal kinds (401/403, no quota, no such model: unpaid),
   *   which stop the judge as online. Throws what the judge-level rules throw (`observe`, through `stepped`).
   */
  interpret(
    conv: JudgeConversation,
    line: StateLine,
    r: ResultLine | undefined,
    failure: string | undefined,
  ): Interpreted {
    const resend = (why: string): { kind: "verdict"; verdict: Verdict } | { kind: "request"; request: ChatRequest } => {
      line.resends = (line.resends ?? 0) + 1;
      // (the result line, if any, was already counted by `account`)
      if (line.resends > this.maxResends)
        return this.stepped(conv, { kind: "error", error: { kind: "batch_error", message: `${why} (gave up after ${line.resends} batch rounds)` } }, undefined, 0);
      return { kind: "request", request: this.judge.request(conv) };
    };
    if (!r) {
      if (failure) return this.stepped(conv, { kind: "error", error: { kind: "batch_failed", message: failure } }, undefined, 0);
      return resend("the batch ended without a result for this request (expired or cancelled)");
    }
    const req = this.judge.request(conv);
    const body = chatRequestBody(req, req.max_tokens, this.judge.tokenParam());
    const state: FaultState = {
      judgeId: this.judge.id,
      timeoutMs: 0,
      timedOut: false,
      aborted: false,
      // what this line may have been sent with (it may predate what the judge learned since): each once per line
      canDropTemperature: !line.adaptedFor?.includes("drop_temperature"),
      canSwitchTokenParam: !line.adaptedFor?.includes("max_completion_tokens") && conv.maxTokens !== undefined,
      neverAnswered: false,
      maxRetryAfterMs: Number.POSITIVE_INFINITY,
      random: () => 0.5,
      sent: sentShape(body, req),
    };
    const cls = classifyBatchLine(r, state, { isComplete: (c) => this.judge.isComplete(c), model: typeof body.model === "string" ? body.model : undefined, ...lazyPromptSize(body) });
    switch (cls.kind) {
      case "not_run":
        // not run before the batch expired or was cancelled: no attempt was made
        return resend(cls.message);
      case "conflict":
        // one request, billed once: the lines' usage when they agree on it, else unknown (never 0: red team 33)
        return this.stepped(conv, { kind: "error", error: { kind: "batch_duplicate_result", message: r.usageDiffers ? `${cls.message}; their usage differs: cost unknown` : cls.message } }, undefined, 1, r.usageDiffers ? readUsage(undefined) : lineUsage(r));
      case "line_error":
        return this.stepped(conv, { kind: "error", error: { kind: cls.errorKind, message: cls.message } }, r);
      case "fault": {
        const f = cls.fault;
        const msg = `HTTP ${r.status}: ${"message" in f ? f.message : ""}`;
        switch (f.action) {
          case "fatal":
            return { kind: "fatal", error: new JudgeFatalError(this.judge.id, f.kind, redact(f.message, this.judge.secrets)) };
          case "retry":
          case "connection":
          case "invalid_response":
            return this.account(conv, r), resend(msg);
          case "aborted":
            return resend("aborted");
          case "refused":
            return this.stepped(conv, { kind: "refused", message: f.message }, r);
          case "model_output":
            return this.stepped(conv, { kind: "error", error: { kind: f.kind, message: f.message }, ...(f.output !== undefined ? { output: f.output } : {}) }, r);
          case "error":
            return this.stepped(conv, { kind: "error", error: { kind: f.kind, message: f.message } }, r);
          case "resend": {
            // a server rejecting a parameter (temperature, max_tokens, the system role, the schema, a budget): adapt
            // the judge and resend in the next round, as the online path resends at once; once per line and kind (a
            // line built before the judge learned is resent too); a server that still rejects gets its bad_request
            if (!line.adaptedFor?.includes(f.adapt)) {
              this.judge.adapt(f.adapt, f.value);
              line.adaptedFor = [...(line.adaptedFor ?? []), f.adapt];
              return this.account(conv, r), resend(`HTTP 400, adapted (${f.adapt})`);
            }
            return this.stepped(conv, { kind: "error", error: { kind: "bad_request", message: `HTTP ${r.status} (already adapted: ${f.adapt})` } }, r);
          }
        }
        break;
      }
      case "completion": {
        const c = cls.reply;
        switch (c.kind) {
          case "transient":
            // credits or quota used up, said inside a 200 (code 402): fatal for the judge, as online
            if (c.fault.quota)
              return {
                kind: "fatal",
                error: new JudgeFatalError(
                  this.judge.id,
                  "insufficient_quota",
                  redact(`judge "${this.judge.id}": the account has no credits or quota left (${c.fault.where}${c.fault.code !== undefined ? `, code ${c.fault.code}` : ""}): ${clipMessage(c.fault.message)}. Its remaining items stay un-judged: top up the account, then run the same command again to resume.`, this.judge.secrets),
                ),
              };
            // a provider failure inside the 200: transient, resent in the next round like a 5xx (never a label)
            return this.account(conv, r), resend(`provider error in an HTTP 200 (${c.fault.where}${c.fault.code !== undefined ? `, code ${c.fault.code}` : ""}): ${clipMessage(c.fault.message)}`);
          case "invalid":
            return this.account(conv, r), resend(clipMessage(c.message));
          case "refused":
            return this.stepped(conv, { kind: "refused", message: c.message }, r);
          case "final":
            return this.stepped(conv, { kind: "error", error: { kind: c.errorKind, message: c.message } }, r);
          case "cut":
            if (!line.lengthRetried) {
              line.lengthRetried = true;
              this.account(conv, r);
              conv.maxTokens = conv.maxTokens !== undefined ? conv.maxTokens * 2 : TRUNCATION_RETRY_MAX_TOKENS;
              return { kind: "request", request: this.judge.request(conv) };
            }
            return this.stepped(
              conv,
              c.errorKind === "truncated"
                ? { kind: "error", error: { kind: "truncated", message: `the reply was cut at the token limit (finish_reason "length", max_tokens ${conv.maxTokens ?? "unset"})` } }
                : { kind: "error", error: { kind: "empty_response", message: emptyReplyMessage(c) } },
              r,
            );
          case "reply":
            return this.stepped(
              conv,
              { kind: "reply", content: c.content, finishReason: c.finishReason, ...(c.reasoning !== undefined ? { reasoning: c.reasoning } : {}), ...(c.notes.length ? { notes: c.notes } : {}) },
              r,
            );
        }
      }
    }
    return this.stepped(conv, { kind: "error", error: { kind: "batch_error", message: "an unclassified result line" } }, r);
  }

  /** Count a result line that is not stepped (a resend): one request, its usage and reply. */
  account(conv: JudgeConversation, r: ResultLine): void {
    conv.attempts += 1;
    addUsage(conv.usage, lineUsage(r));
    const c = r.body?.choices?.[0]?.message;
    if (c) conv.raw.push(typeof c.content === "string" ? c.content : JSON.stringify(c));
  }

  /** Step the conversation with one outcome; a verdict, or the next request (a feedback turn). */
  stepped(
    conv: JudgeConversation,
    outcome: StepInput["outcome"],
    r: ResultLine | undefined,
    requests = 1,
    usage: Usage = lineUsage(r),
  ): { kind: "verdict"; verdict: Verdict } | { kind: "request"; request: ChatRequest } {
    const c = r?.body?.choices?.[0]?.message;
    const input: StepInput = {
      outcome,
      requests,
      usage,
      raw: outcome.kind === "reply" ? [outcome.content] : outcome.kind === "error" && outcome.output !== undefined ? [outcome.output] : c ? [JSON.stringify(c)] : [],
      maxTokens: conv.maxTokens,
    };
    // the judge-level rules (the reasoning-only / empty stop, flags) count batch outcomes as online ones
    this.judge.observe(outcome);
    const out = this.judge.step(conv, input);
    return out.done ? { kind: "verdict", verdict: out.verdict } : { kind: "request", request: out.request };
  }
}
