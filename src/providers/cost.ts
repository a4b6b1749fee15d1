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

/**
 * How a verdict's `cost_usd` was priced, when not simply at the judge's online price (`Verdict.cost_basis`):
 * `batch` at its Batch API price; `online_upper_bound` sent through the Batch API but priced at the online price
 * (no batch price was configured when it was stored): an upper bound, the Batch API bills about half; `implausible_usage` no cost
 * (null): the server reported more tokens than the requests could hold (`./plausible-usage.ts`).
 */
export type CostBasis = "batch" | "online_upper_bound" | "implausible_usage";

/**
 * The basis a stored verdict's cost is read at: its own {@link CostBasis}, or for a verdict without one (stored by a
 * build older than `cost_basis`, which priced Batch API verdicts at the online price) what the run's Batch API chunk
 * files tell of it (`../run/batch-basis.ts`): `old_batch` (it went through a Batch API chunk: priced at the online
 * price, an upper bound), `unknown_basis` (its judge sent Batch API chunks whose files are gone: the online price may
 * be the bill or about twice it).
 */
export type StoredBasis = CostBasis | "old_batch" | "unknown_basis";

/**
 * The price of a judge's Batch API requests: its `batch_*` prices (`batch_cached_input_per_mtok` defaulting to
 * `batch_input_per_mtok`); undefined when the config gives none (then a batch verdict is priced at the online price,
 * an upper bound, and says so: `cost_basis: "online_upper_bound"`).
 */
export function batchPrice(price: JudgePrice | undefined): JudgePrice | undefined {
  if (price?.batch_input_per_mtok === undefined || price.batch_output_per_mtok === undefined) return undefined;
  return {
    input_per_mtok: price.batch_input_per_mtok,
    cached_input_per_mtok: price.batch_cached_input_per_mtok ?? price.batch_input_per_mtok,
    output_per_mtok: price.batch_output_per_mtok,
  };
}

/** A running sum of verdict costs that remembers what it could not count. */
export interface CostTotal {
  /** Sum of the known costs (USD); `null` when no verdict had a known cost. */
  usd: number | null;
  /** Verdicts with a known cost. */
  counted: number;
  /** Verdicts whose cost is unknown (no price, a response without usage, implausible usage). */
  unknown: number;
  /** True when `unknown > 0`: the real total is higher than `usd`. */
  incomplete: boolean;
  /**
   * Of `counted`, the verdicts sent through the Batch API whose cost is at the online price (no batch price in the
   * judge's config): `usd` is then an upper bound. Absent when none.
   */
  upper_bound?: number;
  /** Of `unknown`, the verdicts whose server reported implausible usage (`cost_basis: "implausible_usage"`). Absent when none. */
  implausible?: number;
  /**
   * Which price each of the `counted` verdicts was costed at, as the verdict records it (its `cost_basis`): `online`
   * (no `cost_basis`: the judge's online price when it was stored; a verdict of a build older than `cost_basis` was
   * priced there even when it went through the Batch API), `batch` (the batch price), `online_upper_bound` (the Batch
   * API without a batch price). Absent when none was counted. {@link pricedAtText} says it in words.
   */
  priced_at?: Partial<Record<CountedAt, number>>;
  /**
   * Of `upper_bound`, the verdicts stored without `cost_basis` by an older build that the run's Batch API chunk files
   * show went through a batch: that build priced them at the online price (`StoredBasis` `old_batch`). Absent when none.
   */
  old_batch?: number;
  /**
   * Of `counted`, the verdicts stored without `cost_basis` whose judge sent Batch API chunks whose files cannot be read
   * (`StoredBasis` `unknown_basis`): priced at the online price, which is their bill if they were sent online and about
   * twice it if they went through a batch; it cannot be told (priced_at `unknown`). Absent when none.
   */
  basis_unknown?: number;
  /**
   * Why `usd` is a lower bound whatever the verdicts say: requests sent and recorded by no verdict (an earlier label
   * invocation killed with conversations in flight: break55 #3). Absent when none is known.
   */
  lower_bound?: string;
}

/** The price a counted verdict's cost is at ({@link CostTotal.priced_at}). */
export type PricedAt = "online" | "batch" | "online_upper_bound";

/**
 * {@link PricedAt}, or `unknown`: the online price of a verdict that may have gone through the Batch API
 * ({@link CostTotal.basis_unknown}), or `unbilled`: a $0 verdict (a request that failed unbilled, a Batch API line never
 * sent, an offline judge), exact at any price, so at none (break49 F5: a batch item never sent read "priced at the
 * online price" beside 19 batch-priced verdicts, "a mix of prices").
 */
export type CountedAt = PricedAt | "unknown" | "unbilled";

const PRICED_AT_WORDS: Record<CountedAt, string> = {
  online: "the online price",
  batch: "the batch price",
  online_upper_bound: "the online price for Batch API requests (no batch price: an upper bound)",
  unknown: "the online price, sent online or through the Batch API: cannot be told (an older build's verdict, its judge's Batch API chunk files gone)",
  unbilled: "no price: $0, nothing billed",
};

/**
 * The price a cost total is at, in words: "priced at the online price (5 verdicts)", or each price with its count when
 * the verdicts mix them ($0 verdicts under `unbilled`, which is not a price of its own: not "a mix"); "" when no verdict
 */
export function pricedAtText(t: CostTotal): string {
  const keys = (Object.keys(PRICED_AT_WORDS) as CountedAt[]).filter((k) => (t.priced_at?.[k] ?? 0) > 0);
  const priced = keys.filter((k) => k !== "unbilled");
  if (!priced.length) return "";
  const parts = keys.map((k) => `${PRICED_AT_WORDS[k]} (${t.priced_at![k]} verdict(s))`);
  return `priced at ${parts.join(", ")}${priced.length > 1 ? ": a mix of prices" : ""}, as each verdict recorded it (cost_basis)`;
}

/** An empty {@link CostTotal}. */
export function emptyCost(): CostTotal {
  return { usd: null, counted: 0, unknown: 0, incomplete: false };
}

/**
 * Add one verdict's `cost_usd` (a number, or null/undefined = unknown) to a total, in place.
 * @param basis the verdict's `cost_basis`, or what its run's Batch API chunks tell of one without it ({@link StoredBasis}:
 *   counted in `upper_bound`, `old_batch`, `basis_unknown` / `implausible`).
 */
export function addCost(t: CostTotal, cost: number | null | undefined, basis?: StoredBasis): CostTotal {
  if (typeof cost === "number" && Number.isFinite(cost)) {
    t.usd = (t.usd ?? 0) + cost;
    t.counted++;
    // an older build's Batch API verdict was priced at the online price: an upper bound, as one without a batch price
    const b = basis === "old_batch" ? "online_upper_bound" : basis;
    // $0 (a line that failed unbilled) is exact at any price: not an upper bound, nor of unknown basis (verify 33 L3)
    const at: CountedAt = cost === 0 && (basis === undefined || basis === "unknown_basis") ? "unbilled" : b === "batch" || b === "online_upper_bound" ? b : b === "unknown_basis" ? "unknown" : "online";
    (t.priced_at ??= {})[at] = (t.priced_at[at] ?? 0) + 1;
    if (b === "online_upper_bound" && cost > 0) t.upper_bound = (t.upper_bound ?? 0) + 1;
    if (basis === "old_batch" && cost > 0) t.old_batch = (t.old_batch ?? 0) + 1;
    if (at === "unknown") t.basis_unknown = (t.basis_unknown ?? 0) + 1;
  } else {
    t.unknown++;
    t.incomplete = true;
    if (basis === "implausible_usage") t.implausible = (t.implausible ?? 0) + 1;
  }
  return t;
}

/** Format a USD amount for a terminal or a report: `$0.0123`, `$12.35`; null -> `unknown`. */
export function formatUsd(x: number | null): string {
  if (x === null) return "unknown";
  if (x === 0) return "$0";
  return x < 1 ? `$${x.toPrecision(3)}` : `$${x.toFixed(2)}`;
}

/** Why a verdict without `cost_basis` has an unknown basis (the words of {@link describeCost} and {@link costWarnings}). */
export const BASIS_UNKNOWN =
  "stored without cost_basis by an older build for a judge whose Batch API chunk files are gone: priced at the online price, their bill if sent online, about twice it if sent through the Batch API (it cannot be told)";

/** Why the Batch API verdicts' figure is an upper bound (the words of {@link describeCost} and the summary's warning). */
export const BATCH_UPPER_BOUND =
  "sent through the Batch API and priced at the online price: no batch price (price.batch_input_per_mtok / batch_output_per_mtok) was configured when they were stored, and the Batch API bills about half";

/**
 * "$1.23" or "at least $1.23 (INCOMPLETE: 4 verdicts without a known cost)" or "unknown (...)"; a total over Batch
 * API verdicts priced at the online price is "at most $1.23 (UPPER BOUND: ...)" (never printed as the bill).
 */
export function describeCost(t: CostTotal, why = "no price, or a response without usage"): string {
  const reason = t.implausible ? `${why}${why.includes("implausible") ? "" : `; ${t.implausible} with implausible usage`}` : why;
  if (t.usd === null) return t.unknown ? `unknown (${t.unknown} verdict(s) without a known cost: ${reason})` : "$0 (no verdicts)";
  const bound = t.upper_bound ? `${t.upper_bound} verdict(s) ${BATCH_UPPER_BOUND}${t.old_batch ? ` (${t.old_batch} of them stored by an older build, without cost_basis: found in the run's Batch API chunks)` : ""}` : "";
  const basis = t.basis_unknown ? ` (BASIS UNKNOWN: ${t.basis_unknown} verdict(s) ${BASIS_UNKNOWN})` : "";
  const lower = t.lower_bound ? `LOWER BOUND: ${t.lower_bound}` : "";
  if (lower && !bound) return `at least ${formatUsd(t.usd)} (${t.incomplete ? `INCOMPLETE: ${t.unknown} verdict(s) without a known cost: ${reason}; ` : ""}${lower})${basis}`;
  return describeCounted(t, reason, bound) + (lower ? ` (${lower})` : "") + basis;
}

/** {@link describeCost} without the unknown-basis note. */
function describeCounted(t: CostTotal, reason: string, bound: string): string {
  if (t.usd === null) return "";
  // some costs unknown and some an upper bound: the figure is neither a floor nor a ceiling
  if (t.incomplete && bound) return `${formatUsd(t.usd)} counted, NOT the bill (INCOMPLETE: ${t.unknown} verdict(s) without a known cost: ${reason}; UPPER BOUND: ${bound})`;
  if (t.incomplete) return `at least ${formatUsd(t.usd)} (INCOMPLETE: ${t.unknown} verdict(s) without a known cost: ${reason})`;
  return bound ? `at most ${formatUsd(t.usd)} (UPPER BOUND: ${bound})` : formatUsd(t.usd);
}

/**
 * The warnings of a judge's cost total that a reader must not miss: Batch API verdicts priced at the online price (the
 * figure is an upper bound, not the bill), verdicts whose basis cannot be told (an older build's, its Batch API chunk
 * files gone) and verdicts without a cost because their usage was implausible.
 */
export function costWarnings(judgeId: string, t: CostTotal): string[] {
  const out: string[] = [];
  if (t.upper_bound)
    out.push(
      `judge "${judgeId}": its cost is an UPPER BOUND, not the bill: ${t.upper_bound} verdict(s) ${BATCH_UPPER_BOUND}` +
        (t.old_batch ? ` (${t.old_batch} of them stored by an older build without cost_basis, found in the run's Batch API chunks)` : "") +
        `: give the batch prices in the judges config for the verdicts stored next (verdicts already stored keep the price they were stored with)`,
    );
  if (t.basis_unknown) out.push(`judge "${judgeId}": the basis of its cost is UNKNOWN for ${t.basis_unknown} verdict(s) ${BASIS_UNKNOWN}`);
  if (t.implausible)
    out.push(`judge "${judgeId}": ${t.implausible} verdict(s) have no cost: the server reported usage far beyond what their requests could hold (each verdict's provider_notes names the figures): check the server; the run's cost leaves them out`);
  return out;
}
