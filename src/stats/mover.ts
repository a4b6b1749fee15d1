/**
 * Confidence interval for a linear combination of independent binomial proportions, L = Σ c_i · p_i, by the MOVER
 * (method of variance estimates recovery) with a Wilson score interval for each proportion: Zou, Huang & Zhang,
 * "A note on confidence interval estimation for a linear function of binomial proportions", Computational Statistics
 * & Data Analysis 53 (2009) 1080-1085; MOVER: Zou & Donner, "Construction of confidence limits about effect measures:
 * a general approach", Statistics in Medicine 27 (2008) 1693-1702.
 *
 * With p_i = x_i / n_i and Wilson limits (l_i, u_i):
 *   lower = L − sqrt(Σ c_i² (p_i − l*_i)²),  upper = L + sqrt(Σ c_i² (u*_i − p_i)²),
 * where l*_i = l_i and u*_i = u_i for c_i > 0, and l*_i = u_i and u*_i = l_i for c_i < 0 (a term with c_i = 0 adds
 * nothing). Unlike a Wald or bootstrap interval, a proportion of 0/n or n/n keeps a one-sided width (its Wilson limit
 * is away from 0 or 1), so a sparse cell does not collapse the interval with the estimate. The coefficients are taken
 * as fixed (e.g. standardization weights computed from the data are not treated as random).
 */
import { wilsonInterval } from "./confusion.js";

/** One proportion of the combination: x successes out of n (n > 0), with coefficient c. */
export interface MoverTerm {
  c: number;
  x: number;
  n: number;
}

/** The MOVER-Wilson interval of Σ c_i · x_i / n_i. */
export interface MoverInterval {
  estimate: number;
  lower: number;
  upper: number;
  level: number;
  method: "mover_wilson";
}

/**
 * MOVER interval with Wilson limits for Σ c_i · x_i / n_i over independent binomial proportions (module docstring).
 * @param terms the proportions and their coefficients; each n must be > 0 and 0 <= x <= n.
 * @param level confidence level (default 0.95).
 * @throws when there is no term, or a term has n <= 0 or x outside [0, n].
 */
export function moverWilson(terms: readonly MoverTerm[], level = 0.95): MoverInterval {
  if (terms.length === 0) throw new Error("moverWilson: no term");
  let est = 0;
  let lo2 = 0;
  let hi2 = 0;
  for (const { c, x, n } of terms) {
    if (!(n > 0) || !(x >= 0 && x <= n)) throw new Error(`moverWilson: need n > 0 and 0 <= x <= n, got x ${x}, n ${n}`);
    const p = x / n;
    est += c * p;
    if (c === 0) continue;
    const w = wilsonInterval(p, n, level);
    const below = p - w.lower; // distance to the Wilson lower limit
    const above = w.upper - p;
    lo2 += c * c * (c > 0 ? below : above) ** 2;
    hi2 += c * c * (c > 0 ? above : below) ** 2;
  }
  return { estimate: est, lower: est - Math.sqrt(lo2), upper: est + Math.sqrt(hi2), level, method: "mover_wilson" };
}
