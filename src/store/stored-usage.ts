/**
 * Whether a stored verdict's usage can be counted in token and cost totals (`storedUsageImplausible`): the
 * per-request check of `../providers/plausible-usage.ts` as the verdict recorded it, plus what any stored verdict can be checked
 * for without its requests (counts that are not counts, more tokens per request than any model takes). No imports: the
 * run store's cost cap (`./run-store.ts`) reads it too. It lets a verdict's cost count as unknown rather than paid.
 */
/** A stored verdict's fields {@link storedUsageImplausible} reads. */
export interface StoredUsage {
  cost_basis?: string;
  attempts?: number;
  cost_usd?: unknown;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; cached_tokens?: unknown; reasoning_tokens?: unknown };
}

/**
 * Tokens per request above which a stored verdict's usage is implausible whatever its requests were: 20 x a million
 * (the ratio and the uncapped reply of `../providers/plausible-usage.ts`), beyond any model's context or reply. Catches verdicts
 * stored before the per-request check, or by another build, that kept a server's 1e9 tokens.
 */
export const STORED_TOKENS_PER_REQUEST_BOUND = 20_000_000;

/**
 * Requests per verdict above which a stored `attempts` is not a count `label` could have made (a conversation's turns
 * times the provider's retries are a few dozen at most): a hand-edited 1e9 scaled the token bound by it (task s40).
 */
export const STORED_ATTEMPTS_BOUND = 10_000;

/**
 * Why a stored verdict's usage cannot be counted in token and cost totals, or undefined when it can: flagged when it
 * was judged (`cost_basis: "implausible_usage"`), a count that is negative or not a finite number (a hand-edited or
 * foreign verdict; the reader of a reply already counts those 0), or more prompt or completion tokens than
 * {@link STORED_TOKENS_PER_REQUEST_BOUND} per request (`attempts`, at least 1), a `cost_usd` below 0 or not a finite
 * number, an `attempts` that is not an integer 0 .. {@link STORED_ATTEMPTS_BOUND}. The verdict keeps its raw usage;
 * totals leave it out and say so (`../run/summary.ts`, `../report/run-inputs.ts`).
 */
export function storedUsageImplausible(v: StoredUsage): string | undefined {
  if (v.cost_basis === "implausible_usage") return "implausible usage flagged when it was judged";
  // read with the usage: a cost below 0 lowered what the run has paid (--max-cost) and a count of requests not a
  // count scaled the token bound below (task s40: numeric fields of stored records read without bounds)
  if (v.cost_usd !== undefined && v.cost_usd !== null && (typeof v.cost_usd !== "number" || !Number.isFinite(v.cost_usd) || v.cost_usd < 0)) return `cost_usd ${JSON.stringify(v.cost_usd)} is not a cost`;
  if (v.attempts !== undefined && (!Number.isInteger(v.attempts) || v.attempts < 0 || v.attempts > STORED_ATTEMPTS_BOUND)) return `attempts ${JSON.stringify(v.attempts)} is not a count of requests label could have made (0 .. ${STORED_ATTEMPTS_BOUND})`;
  const u = v.usage;
  if (!u) return undefined;
  for (const k of ["prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens"] as const) {
    const x = u[k];
    if (x !== undefined && x !== null && (typeof x !== "number" || !Number.isFinite(x) || x < 0)) return `${k} ${JSON.stringify(x)} is not a count`;
  }
  const n = Math.max(1, typeof v.attempts === "number" && Number.isFinite(v.attempts) ? v.attempts : 1);
  const bound = n * STORED_TOKENS_PER_REQUEST_BOUND;
  for (const k of ["prompt_tokens", "completion_tokens"] as const)
    if (typeof u[k] === "number" && (u[k] as number) > bound) return `${u[k]} ${k.replace("_", " ")} for ${n} request(s), over ${STORED_TOKENS_PER_REQUEST_BOUND} per request`;
  return undefined;
}
