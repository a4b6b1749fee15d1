/**
 * The label run's cost cap (`label --max-cost-usd`): where a run stopped at it ({@link CostCapState}) and the
 * cautious estimate of one verdict's conversation each request in flight reserves ({@link reserveCostUsd}).
 *
 * Known limit: `spent_usd` is read from the stored verdicts, so requests in flight when a process was killed
 * (`kill -9`, a crash) were sent, may be billed, and are in no verdict: the next invocation does not count them, and
 * the cap can be exceeded by at most the judges' concurrency in conversations (their current request and the
 * turns already answered). No journal line is written before a send
 * (docs/cost.md, "Cost, dry run, cost cap").
 */
import type { Judge } from "../judges/judge.js";
import type { OpenAIJudge } from "../judges/llm-judge.js";
import type { Trajectory } from "../types.js";
import { SYSTEM_TEMPLATE } from "../rubric/prompt.js";
import { batchPrice, tokensCost, type PricedAt } from "../providers/cost.js";

/** The cap's statement of what it reserved for chunks in flight, summed over the batch judges (`CostCapState.batch_in_flight`). */
export interface BatchInFlightReserved {
  /** Conversations in chunks an earlier invocation left unprocessed (sent, or written and not sent). */
  conversations: number;
  /** What is reserved for them (USD): their worst case, part of the reservations the cap counts until their results are stored. */
  reserved_usd: number;
  /** Conversations per price they are reserved at (`batch`, `online_upper_bound`). */
  priced_at: Partial<Record<PricedAt, number>>;
  /** Conversations in chunks whose state file could not be read: not reserved (the cap cannot bound them). Absent when none. */
  not_reserved?: number;
}

/** Where a run stopped at its cost cap (`LabelOptions.maxCostUsd`). */
export interface CostCapState {
  cap_usd: number;
  /**
   * What the run has paid (USD): every verdict in `verdicts.jsonl`, superseded ones (re-judged errors, verdicts of an
   * older configuration) included; a verdict of this invocation with an unknown cost counts its reserved estimate.
   * It can be above the summary's `cost` (the verdicts in use only).
   */
  spent_usd: number;
  /** What the run had paid when this invocation started (part of `spent_usd`). */
  spent_before_usd: number;
  /** Verdicts stored by earlier invocations whose cost is unknown (no usage): not in `spent_usd`, which cannot bound them. */
  unknown_cost_before: number;
  /** True when a request was held back because it would have passed the cap. */
  reached: boolean;
  /** Verdicts of this invocation whose cost was unknown (counted at their estimate). */
  unknown_cost_verdicts: number;
  /**
   * The price each reservation of this invocation was made at, counted per conversation: `online` (a request sent
   * online), `batch` (a Batch API judge's batch price), `online_upper_bound` (a Batch API judge without a batch price:
   * its online price, above what the batch bills). Absent when nothing was reserved.
   */
  priced_at?: Partial<Record<PricedAt, number>>;
  /**
   * What is reserved for the conversations of Batch API chunks an earlier invocation left unprocessed: their worst
   * case at the price the batch bills, reserved before anything new was queued and given way to their cost as their
   * results are stored (`./batch-cap.ts`, `./batch-worst-case.ts`). Absent when none.
   */
  batch_in_flight?: BatchInFlightReserved;
  /**
   * What held the first conversation back: its reservation (`next_usd`) and the reservations of the conversations in
   * flight then (`reserved_usd`). Reservations are worst cases, released as verdicts are stored; on the Batch API path
   * every conversation queued stays reserved until its batch comes back, so the cap can hold items back while
   * `spent_usd` is far below it, and the same cap then judges more on a rerun ({@link sameCapResumes}; verifier 37).
   * Absent when nothing was held back.
   */
  held?: { next_usd: number; reserved_usd: number };
}

/** Hold a conversation back under the cap: `reached`, and the first time, what held it ({@link CostCapState.held}). */
export function holdBack(cap: CostCapState, nextUsd: number, reservedUsd: number): void {
  if (!cap.reached) cap.held = { next_usd: nextUsd, reserved_usd: reservedUsd };
  cap.reached = true;
}

/**
 * Whether the same `--max-cost` judges more on a rerun: the conversation held back fits beside what the run has
 * actually spent (the worst-case reservations that held it back were settled at their real cost since).
 */
export function sameCapResumes(cap: CostCapState): boolean {
  return cap.reached && cap.held !== undefined && !overCap(cap.spent_usd + cap.held.next_usd, cap);
}

/** The price a reservation of `judge` is at: `viaBatch`, its batch price, else (or without one) its online price. */
export function reservationPricedAt(judge: Judge, viaBatch: boolean): PricedAt {
  if (!viaBatch) return "online";
  return batchPrice((judge as Partial<OpenAIJudge>).config?.price) ? "batch" : "online_upper_bound";
}

/**
 * Whether `usd` passes the cap, with a tolerance of a millionth of a cent: sums of prices are binary fractions
 * (0.1 + 0.2 > 0.3), and a run exactly at its cap is not over it.
 */
export function overCap(usd: number, cap: Pick<CostCapState, "cap_usd">): boolean {
  return usd > cap.cap_usd + 1e-8;
}

/** Feedback text assumed per feedback turn (characters) in {@link reserveCostUsd}: the verdict feedback quotes findings. */
export const RESERVE_FEEDBACK_CHARS = 1500;

/**
 * A cautious cost estimate (USD) of one verdict's whole conversation, for the cost cap's reservation: the worst case
 * of the first request plus every configured feedback turn (`retries`, default 2). Each turn resends the whole
 * conversation so far, so with a first prompt of P tokens, O output tokens per reply (the judge's `max_tokens`, or
 * 600) and F tokens of feedback per turn, R turns cost (R+1)·P + R(R+1)/2·(O+F) prompt tokens and (R+1)·O output
 * tokens. P is the request the judge would send (`begin`/`request`: the rubric, the rendered trajectory and its
 * tool list, as `label --dry-run` renders it) in characters / 3, else the trajectory's texts, tool calls, tools and
 * injections in characters / 3; / 3 is above the ~4 characters per token of English text, so the estimate errs
 * high. No cache discount. Returns 0 for a judge without a price (a built-in judge). `viaBatch`: the conversation goes
 * through the Batch API, and is reserved at the judge's batch price when it has one (what the batch bills), else at
 * its online price (an upper bound; {@link reservationPricedAt} says which).
 */
export function reserveCostUsd(t: Trajectory, judge: Judge, ctx: { budgetChars?: number; minQuoteChars?: number } = {}, viaBatch = false): number {
  return reservationOf(t, judge, ctx, viaBatch).usd;
}

/**
 * {@link reserveCostUsd} (`usd`) and the dearest single request of that conversation (`turn_usd`: its last feedback
 * turn, P + R·(O+F) prompt tokens and O output tokens), for {@link unknownCostCharge}. Both 0 without a price.
 */
export function reservationOf(t: Trajectory, judge: Judge, ctx: { budgetChars?: number; minQuoteChars?: number } = {}, viaBatch = false): { usd: number; turn_usd: number } {
  const oj = judge as Partial<OpenAIJudge>;
  const cfg = oj.config;
  if (!cfg?.price) return { usd: 0, turn_usd: 0 };
  let chars = 0;
  try {
    if (oj.begin && oj.request) chars = JSON.stringify(oj.request(oj.begin(t, { repeat: 0, budgetChars: ctx.budgetChars, minQuoteChars: ctx.minQuoteChars })).messages).length;
  } catch {
    chars = 0;
  }
  if (chars === 0) {
    chars = SYSTEM_TEMPLATE.length + 2000;
    for (const m of t.messages) {
      chars += m.text.length + 40;
      for (const c of m.tool_calls ?? []) chars += c.name.length + JSON.stringify(c.arguments ?? "").length;
    }
    for (const v of Object.values(t.injections ?? {})) chars += v.length;
    if (Array.isArray(t.tools) && t.tools.length > 0) chars += JSON.stringify(t.tools).length;
  }
  const retriesRaw = (judge.verdictConfig as { retries?: unknown } | undefined)?.retries;
  const retries = typeof retriesRaw === "number" && Number.isInteger(retriesRaw) && retriesRaw >= 0 ? retriesRaw : 2;
  const p = Math.ceil(chars / 3);
  const o = cfg.max_tokens ?? 600;
  const f = Math.ceil(RESERVE_FEEDBACK_CHARS / 3);
  const prompt = (retries + 1) * p + ((retries * (retries + 1)) / 2) * (o + f);
  const price = (viaBatch ? batchPrice(cfg.price) : undefined) ?? cfg.price;
  return { usd: tokensCost(prompt, 0, (retries + 1) * o, price), turn_usd: tokensCost(p + retries * (o + f), 0, o, price) };
}

/**
 * What the cost cap counts for a verdict whose cost is unknown (responses answered without usage, or lost after a
 * 200): its reservation, or, when more responses went unpriced than the reservation's turns (a body lost on each of
 * several transport retries: prov37), that many times the dearest single request, so the cap stays an upper bound.
 * @param reservation the verdict's {@link reservationOf}; @param unpriced its `usage.responses_without_usage`.
 */
export function unknownCostCharge(reservation: { usd: number; turn_usd: number }, unpriced: number | undefined): number {
  return Math.max(reservation.usd, (unpriced ?? 0) * reservation.turn_usd);
}
