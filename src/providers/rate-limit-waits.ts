/**
 * The HTTP 429s (rate limited) a judge's requests got and waited out (session 51: a run that spent minutes in
 * rate-limit waits said nothing). `./send.ts` counts them per call ({@link SendResult.rateLimited}); the conversation
 * sums them onto its verdict (`Verdict.rate_limited`), and judge health over a run's verdicts
 * (`../verdict/rate-limit-health.ts`): how many, the seconds waited after them, the largest Retry-After honoured.
 * A 429 whose Retry-After is over the run's limit is not waited out: the judge stops (`JudgeFatalError`
 * `rate_limited`), loud on its own.
 */
import type { RateLimitWaits } from "../types.js";

export type { RateLimitWaits };

/** Nothing yet. */
export function noRateLimitWaits(): RateLimitWaits {
  return { responses: 0, waited_ms: 0, max_retry_after_ms: null };
}

/**
 * Count one 429 into `w` (in place).
 * @param waitedMs the wait taken after it (ms, after scaling; 0 when none was taken: the retries were spent).
 * @param retryAfterMs the wait its Retry-After (or retry-after-ms) asked for and was waited for (ms); undefined: none.
 */
export function addRateLimitWait(w: RateLimitWaits, waitedMs: number, retryAfterMs: number | undefined): void {
  w.responses++;
  w.waited_ms += waitedMs;
  if (retryAfterMs !== undefined && retryAfterMs > 0) w.max_retry_after_ms = Math.max(w.max_retry_after_ms ?? 0, retryAfterMs);
}

/** The sum of two counts (either may be undefined); undefined when both are. Counts, waits add; the largest Retry-After is the larger. */
export function sumRateLimitWaits(a: RateLimitWaits | undefined, b: RateLimitWaits | undefined): RateLimitWaits | undefined {
  if (!a || !b) return a || b ? { ...(a ?? b)! } : undefined;
  const m = [a.max_retry_after_ms, b.max_retry_after_ms].filter((x): x is number => typeof x === "number");
  return { responses: a.responses + b.responses, waited_ms: a.waited_ms + b.waited_ms, max_retry_after_ms: m.length ? Math.max(...m) : null };
}
