/**
 * A confidence interval for a stratified share (or a difference of two shares of one sample) built stratum by stratum,
 * for the design-weighted intervals of `estimate` (../estimate/calibrated.ts) when strata of the group show no variation.
 *
 * Why. The stratified variance V̂ = Σ_c N_c²(1 − f_c)s²_c/n_c gets 0 from a stratum whose labelled items are all alike
 * (p̂_c ∈ {0, 1}): no variation seen is read as none there. When most of a group's weight sits in such strata, V̂ is far
 * too small, the t interval hugs the estimate, and the design effective n p̂(1 − p̂)/V̂ exceeds even the population (new
 * user 49: 5 of 8 strata at 0% or 100%, `human 19.3% [18.0, 20.5]` where the population value was 17.7%, "design
 * effective n 1109.0" for 30 labelled items of 797; 88-93% coverage in their simulation of that design). A group-level
 * guard cannot see it: the group's events are many, only each stratum's are few.
 *
 * The method: the MOVER (method of variance estimates recovery) for a linear function of independent binomial
 * proportions, θ = Σ_c W_c p_c (Zou, Huang & Zhang 2009, "A note on confidence interval estimation for a linear
 * function of binomial proportions", Computational Statistics & Data Analysis 53:1080; Newcombe 2011, "Propagating
 * imprecision: combining confidence intervals from independent sources", Communications in Statistics - Theory and
 * Methods 40:3154): with [l_c, u_c] the Wilson (1927) score interval of stratum c's share,
 *     L = θ̂ − √(Σ_c W_c²(p̂_c − l_c)²),   U = θ̂ + √(Σ_c W_c²(u_c − p̂_c)²).
 * The strata whose labelled items are all alike (p̂_c ∈ {0, 1}, or one constant difference) enter together, as one term:
 * the two-sided Clopper-Pearson bound 1 − (α/2)^{1/n_Z} on the share of their unseen units that differ, 0 seen among
 * their Kish effective n n_Z = (Σ W_c)²/Σ(W_c²/n_c) (the bound `estimate` gives a whole group whose SE is 0), times
 * Σ W_c·√(1 − f_c)·(room to move on that side). So a stratum never drops out of the variance because it showed nothing.
 * (Each such stratum on its own, with its Wilson bound z²/(n_c + z²), was tried first: coverage 99-100% where 95% was
 * asked, widths twice the pooled term's: test/estimate/unvaried-strata.test.ts.) Each stratum's distances are multiplied by √(1 − f_c), the finite-
 * population correction of the stratified variance (a stratum labelled whole adds 0, as there). Where a stratum shows
 * both outcomes often, the Wilson half-width is the Wald one, so the interval is then close to the stratified z
 * interval. For a difference p₁ − p₂ of two shares of one stratum (the calibrated estimator's human-over-judge and
 * judge-over-human parts), each stratum's interval is Newcombe's (1998, Statistics in Medicine 17:2635, method 10)
 * MOVER of the two Wilson intervals with the correlation of two cells of one multinomial (as ./small-count.ts
 * `differenceInterval` does for the group).
 */
import { wilsonInterval } from "./confusion.js";

/** One stratum's part of a design-weighted share of a group (a domain). */
export interface StratumShare {
  /** The stratum's share of the group's estimated size, N̂_{c,g}/N̂_g (the weights sum to 1 over the group's strata). */
  weight: number;
  /** Labelled items of the group in the stratum (> 0). */
  n: number;
  /** The stratum's sampling fraction n_c/N_c over all its labelled items (1: labelled whole, adds nothing). */
  f: number;
  /** The mean of the share over the group's labelled items of the stratum, in [0, 1]. */
  p1: number;
  /** For a difference: the mean of the second share (p1 + p2 <= 1); absent for one share. */
  p2?: number;
  /** Whether the stratum's labelled items of the group all have the same value (default: read from the means). */
  unvaried?: boolean;
}

/**
 * The stratum-wise MOVER interval of Σ_c weight_c·(p1_c − p2_c) (module docstring), not clipped.
 * @param strata one entry per stratum of the group (strata with n 0 are skipped).
 * @param level confidence level (Wilson's z = Φ⁻¹((1 + level)/2)).
 * @param pool whether the unvaried strata enter as one zero-event term (default; false: each with its Wilson bound).
 * @returns the interval and the estimate it is centred on (Σ weight·(p1 − p2)).
 * @throws Error from `wilsonInterval` when a share lies outside [0, 1].
 */
export function stratumMover(strata: readonly StratumShare[], level = 0.95, pool = true): { estimate: number; lower: number; upper: number } {
  let estimate = 0;
  let down = 0;
  let up = 0;
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  // the unvaried strata pooled: 0 differing among their Kish effective n, each moving by its room up and down
  let [zw, zw2, zUp, zDown] = [0, 0, 0, 0];
  for (const s of strata) {
    if (!(s.n > 0)) continue;
    const p1 = clamp(s.p1);
    const p2 = s.p2 === undefined ? 0 : clamp(s.p2);
    estimate += s.weight * (p1 - p2);
    if (s.f >= 1) continue; // labelled whole: no unseen unit
    const d = p1 - p2;
    const flat = s.unvaried ?? (s.p2 === undefined ? p1 === 0 || p1 === 1 : p1 + p2 === 0 || p1 === 1 || p2 === 1);
    if (pool && flat) {
      zw += s.weight;
      zw2 += (s.weight * s.weight) / s.n;
      const k = s.weight * Math.sqrt(1 - s.f);
      zUp += k * (1 - d);
      zDown += k * (s.p2 === undefined ? d : 1 + d);
      continue;
    }
    const b1 = wilsonInterval(p1, s.n, level);
    const [lo1, hi1] = [p1 - b1.lower, b1.upper - p1];
    let [lo, hi] = [lo1, hi1];
    if (s.p2 !== undefined) {
      const b2 = wilsonInterval(p2, s.n, level);
      const [lo2, hi2] = [p2 - b2.lower, b2.upper - p2];
      const rho = p1 > 0 && p2 > 0 && p1 < 1 && p2 < 1 ? -Math.sqrt((p1 * p2) / ((1 - p1) * (1 - p2))) : 0;
      const mover = (a: number, b: number) => Math.sqrt(Math.max(0, a * a + b * b - 2 * rho * a * b));
      [lo, hi] = [mover(lo1, hi2), mover(hi1, lo2)];
    }
    const k = s.weight * Math.sqrt(1 - s.f);
    down += (k * lo) ** 2;
    up += (k * hi) ** 2;
  }
  if (zw > 0) {
    const bound = 1 - Math.pow((1 - level) / 2, 1 / ((zw * zw) / zw2));
    up += (bound * zUp) ** 2;
    down += (bound * zDown) ** 2;
  }
  return { estimate, lower: estimate - Math.sqrt(down), upper: estimate + Math.sqrt(up) };
}
