/**
 * A judge's rate limits waited out, over its verdicts (session 51: a run that spent minutes in rate-limit waits said
 * nothing): the HTTP 429s (and rate limits inside a 200) its requests got, the seconds waited after them, and the
 * largest Retry-After honoured, summed from each verdict's `rate_limited` (`../providers/rate-limit-waits.ts`). Of every
 * repeat, as the other counts of judge health. No flag: the waits cost time, not labels. Said in the health line
 * (`formatHealth`: label's summary, committee, agree), in `--json` (`health.rate_limited`) and on the report page.
 */
import type { RateLimitWaits, Verdict } from "../types.js";
import { sumRateLimitWaits } from "../providers/rate-limit-waits.js";

/** A judge's figures: the sum over its verdicts, and how many verdicts met a rate limit. */
export interface RateLimitHealth extends RateLimitWaits {
  verdicts: number;
}

/** A verdict's `rate_limited` when it is well formed (a count > 0, non-negative numbers), else undefined (a hand-edited line counts as none). */
function waitsOf(v: Verdict): RateLimitWaits | undefined {
  const r = v.rate_limited as Partial<RateLimitWaits> | undefined;
  if (!r || typeof r !== "object" || typeof r.responses !== "number" || !(r.responses > 0)) return undefined;
  const waited = typeof r.waited_ms === "number" && r.waited_ms >= 0 ? r.waited_ms : 0;
  const max = typeof r.max_retry_after_ms === "number" && r.max_retry_after_ms > 0 ? r.max_retry_after_ms : null;
  return { responses: r.responses, waited_ms: waited, max_retry_after_ms: max };
}

/**
 * Count one verdict's rate limits into a judge's figures.
 * @returns the new figures (undefined stays undefined when the verdict met none).
 */
export function addRateLimits(h: RateLimitHealth | undefined, v: Verdict): RateLimitHealth | undefined {
  const w = waitsOf(v);
  if (!w) return h;
  const sum = sumRateLimitWaits(h, w)!;
  return { verdicts: (h?.verdicts ?? 0) + 1, responses: sum.responses, waited_ms: sum.waited_ms, max_retry_after_ms: sum.max_retry_after_ms };
}

/** `1 min 5 s`, `12 s`, `0.4 s`: a duration in ms for a reader. */
export function durationText(ms: number): string {
  const s = ms / 1000;
  if (s < 10) return `${Number(s.toFixed(1))} s`;
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - 60 * m);
  return m < 60 ? `${m} min${rest ? ` ${rest} s` : ""}` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * The sentence: `rate limited 12 times (HTTP 429) on 5 verdicts, 3 min 4 s waited in all, largest Retry-After honoured
 * 20 s` ("no Retry-After given" when none had one); "" when none.
 */
export function rateLimitText(h: RateLimitHealth | undefined): string {
  if (!h || h.responses <= 0) return "";
  const ra = h.max_retry_after_ms === null ? "no Retry-After given (backoff)" : `largest Retry-After honoured ${durationText(h.max_retry_after_ms)}`;
  return `rate limited ${h.responses} time${h.responses === 1 ? "" : "s"} (HTTP 429 or a rate limit in a 200) over ${h.verdicts} verdict${h.verdicts === 1 ? "" : "s"}: ${durationText(h.waited_ms)} waited in all, ${ra}`;
}
