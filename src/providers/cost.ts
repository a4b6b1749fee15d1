/**
 * Money: the cost of a verdict from its token usage and the judge's `price` (USD per million tokens), and the
 * sums a run summary shows. Unknown is never 0: a verdict whose judge has no price, or one of whose responses
 * carried no usage, has `cost_usd: null`, and any total over such a verdict is marked incomplete.
 *
 * Billing model (OpenAI's, followed by most OpenAI-compatible providers): prompt tokens served from the prompt
 * cache (`usage.prompt_tokens_details.cached_tokens`) at `cached_input_per_mtok` (default `input_per_mtok`), the
 * other prompt tokens at `input_per_mtok`, completion tokens (reasoning tokens included: they are part of
 * `completion_tokens`) at `output_per_mtok`.
 */
import type { JudgePrice } from "../config/judges.js";

/** Token usage as a verdict records it (see `Usage` in `src/providers/send.ts`). */
export interface PricedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  /** Responses that carried no usable usage (their tokens are unknown). */
  missing?: number;
  responses_without_usage?: number;
}

/**
 * USD cost of some usage at a price.
 * @returns the cost in USD (>= 0), or `null` when `price` is undefined or any response carried no usage.
 */
export function usageCost(usage: PricedUsage, price: JudgePrice | undefined): number | null {
  if (!price) return null;
  if ((usage.missing ?? 0) > 0 || (usage.responses_without_usage ?? 0) > 0) return null;
  return tokensCost(usage.prompt_tokens, usage.cached_tokens ?? 0, usage.completion_tokens, price);
}

/**
 * USD cost of `prompt` prompt tokens (of which `cached` from the cache) and `completion` completion tokens.
 * `cached` is clamped to [0, prompt].
 */
export function tokensCost(prompt: number, cached: number, completion: number, price: JudgePrice): number {
  const c = Math.max(0, Math.min(prompt, cached));
  return ((prompt - c) * price.input_per_mtok + c * (price.cached_input_per_mtok ?? price.input_per_mtok) + completion * price.output_per_mtok) / 1e6;
}

/** A running sum of verdict costs that remembers what it could not count. */
export interface CostTotal {
  /** Sum of the known costs (USD); `null` when no verdict had a known cost. */
  usd: number | null;
  /** Verdicts with a known cost. */
  counted: number;
  /** Verdicts whose cost is unknown (no price, or a response without usage). */
  unknown: number;
  /** True when `unknown > 0`: the real total is higher than `usd`. */
  incomplete: boolean;
}

/** An empty {@link CostTotal}. */
export function emptyCost(): CostTotal {
  return { usd: null, counted: 0, unknown: 0, incomplete: false };
}

/** Add one verdict's `cost_usd` (a number, or null/undefined = unknown) to a total, in place. */
export function addCost(t: CostTotal, cost: number | null | undefined): CostTotal {
  if (typeof cost === "number" && Number.isFinite(cost)) {
    t.usd = (t.usd ?? 0) + cost;
    t.counted++;
  } else {
    t.unknown++;
    t.incomplete = true;
  }
  return t;
}

/** Format a USD amount for a terminal or a report: `$0.0123`, `$12.35`; null -> `unknown`. */
export function formatUsd(x: number | null): string {
  if (x === null) return "unknown";
  if (x === 0) return "$0";
  return x < 1 ? `$${x.toPrecision(3)}` : `$${x.toFixed(2)}`;
}

/** "$1.23" or "$1.23+ (incomplete: 4 verdicts without a known cost)" or "unknown (...)". */
export function describeCost(t: CostTotal, why = "no price, or a response without usage"): string {
  if (t.usd === null) return t.unknown ? `unknown (${t.unknown} verdict(s) without a known cost: ${why})` : "$0 (no verdicts)";
  return t.incomplete ? `at least ${formatUsd(t.usd)} (INCOMPLETE: ${t.unknown} verdict(s) without a known cost: ${why})` : formatUsd(t.usd);
}
