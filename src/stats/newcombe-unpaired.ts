/**
 * The difference between two independent binomial proportions, p1 − p2, with Newcombe's hybrid score interval
 * (Newcombe RG, "Interval estimation for the difference between independent proportions: comparison of eleven
 * methods", Stat Med 1998;17:873-890, method 10): each proportion's Wilson score interval [l_i, u_i], then
 *   L = (p1 − p2) − sqrt((p1 − l1)² + (u2 − p2)²),   U = (p1 − p2) + sqrt((u1 − p1)² + (p2 − l2)²).
 * Checked against the paper's own worked examples (test/data/vectors/newcombe_1998_differences.json).
 */
import { wilsonInterval } from "./confusion.js";

/** A difference of two proportions with its interval; `difference` null (with `reason`) when a side has no observation. */
export interface ProportionDifference {
  /** p1 − p2, or null when undefined. */
  difference: number | null;
  /** The interval's bounds (null when undefined). */
  lower: number | null;
  upper: number | null;
  level: number;
  /** Why the difference is undefined (absent when defined). */
  reason?: string;
}

/**
 * Newcombe's unpaired hybrid score interval (method 10, Stat Med 17:873-890) for x1/n1 − x2/n2.
 * @param x1 events of the first sample, of n1; @param x2 events of the second, of n2.
 * @returns the difference and its interval; null with reason `empty_sample` when n1 or n2 is 0 (undefined is not zero).
 * @throws Error when a count is negative, not an integer, or above its n.
 */
export function newcombeUnpaired(x1: number, n1: number, x2: number, n2: number, level = 0.95): ProportionDifference {
  for (const [x, n] of [[x1, n1], [x2, n2]]) {
    if (!Number.isInteger(x) || !Number.isInteger(n) || x < 0 || n < 0 || x > n) throw new Error(`newcombeUnpaired: bad counts ${x}/${n}`);
  }
  if (n1 === 0 || n2 === 0) return { difference: null, lower: null, upper: null, level, reason: "empty_sample" };
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const w1 = wilsonInterval(p1, n1, level);
  const w2 = wilsonInterval(p2, n2, level);
  const d = p1 - p2;
  const lower = d - Math.sqrt((p1 - w1.lower) ** 2 + (w2.upper - p2) ** 2);
  const upper = d + Math.sqrt((w1.upper - p1) ** 2 + (p2 - w2.lower) ** 2);
  return { difference: d, lower: Math.max(-1, lower), upper: Math.min(1, upper), level };
}
