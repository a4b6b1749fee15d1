/**
 * One proportion with its 95% Wilson score interval (Wilson 1927; `wilsonInterval`): the figure every rate of
 * `./rates.ts` and `./reference-rates.ts` is shown as (re-exported by `./rates.ts`, where it was first defined).
 */
import { wilsonInterval } from "./confusion.js";

/** One proportion with its interval. `rate` = count / n; null (with `reason`) when n = 0. */
export interface RateFigure {
  count: number;
  n: number;
  rate: number | null;
  reason?: string;
  /** 95% Wilson score interval; null when `rate` is null. */
  ci95: { lower: number; upper: number; method: "wilson" } | null;
}

/** A proportion with its Wilson interval, or null with `no_labelled_attacked`. */
export function rateFigure(count: number, n: number): RateFigure {
  if (!(n > 0)) return { count, n, rate: null, reason: "no_labelled_attacked", ci95: null };
  const rate = count / n;
  const ci = wilsonInterval(rate, n);
  return { count, n, rate, ci95: { lower: ci.lower, upper: ci.upper, method: "wilson" } };
}
