/**
 * Distribution functions the agreement statistics need: the standard normal and Student's t (CDF tails and
 * quantiles), and the special functions under them. Thin wrappers over the stdlib-js packages (`@stdlib/*`,
 * Apache-2.0), which port Boost.Math and Cephes: they turn stdlib's `NaN` for an argument outside the domain
 * into a RangeError naming the function and the argument (never a silent NaN in a report), and compute every
 * upper tail without the cancellation of `1 - cdf`.
 *
 * Sources (through stdlib): the regularised incomplete gamma and beta functions (Boost.Math `gamma_q`,
 * `ibeta`; DiDonato & Morris 1986, 1992); log-gamma (Boost, Lanczos); erfc (FreeBSD msun / Sun); the normal
 * quantile through `erfcinv` (Boost rational approximations); the t quantile by
 * inverting the incomplete beta (Boost `ibeta_inv`; Hill 1970, Applied Statistics algorithm 396). Checked
 * against R's `qt`, `pt`, `qnorm` in test/stats/api.test.ts and the published vectors under test/stats.
 * Before, these were hand-written (Numerical Recipes 6.2 and 6.4, Wichura AS 241, t quantile by bisection).
 */
import gammaln from "@stdlib/math-base-special-gammaln";
import gammainc from "@stdlib/math-base-special-gammainc";
import betainc from "@stdlib/math-base-special-betainc";
import stdErfc from "@stdlib/math-base-special-erfc";
import erfcinv from "@stdlib/math-base-special-erfcinv";
import tCdf from "@stdlib/stats-base-dists-t-cdf";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/**
 * ln Γ(x) for x > 0 (stdlib `gammaln`).
 * @throws RangeError when x <= 0 or not finite.
 */
export function lnGamma(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError(`lnGamma: x must be a positive finite number, got ${x}`);
  return gammaln(x);
}

/**
 * Regularised upper incomplete gamma Q(a, x) = Γ(a, x)/Γ(a), for a > 0, x >= 0 (stdlib `gammainc`, upper).
 * `Q(df/2, x/2)` is the chi-square upper tail with df degrees of freedom.
 * @throws RangeError when a <= 0 or x < 0 (or either is NaN).
 */
export function gammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`gammaQ: need a > 0 and x >= 0 (a=${a}, x=${x})`);
  if (x === 0) return 1;
  return gammainc(x, a, true, true);
}

/**
 * Complementary error function erfc(x) = 1 - erf(x), in [0, 2] (stdlib `erfc`).
 * @throws RangeError when x is NaN.
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) throw new RangeError("erfc: NaN");
  return stdErfc(x);
}

/** Standard normal CDF Φ(z) = erfc(-z/√2) / 2 (no cancellation in either tail). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Standard normal upper tail 1 − Φ(z) = erfc(z/√2) / 2, computed without cancellation for large z. */
export function normalUpperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/**
 * Standard normal quantile Φ⁻¹(p) = -√2 · erfcinv(2p) (R: `qnorm(p)`; stdlib `erfcinv`). Not stdlib's
 * `normal-quantile`: it goes through `erfinv(2p - 1)`, which cancels in the lower tail (p = 1e-10 came out
 * -6.3613408897 against R's -6.3613409024, and p = 1e-300 as -Infinity); erfcinv keeps about 1e-13 there.
 * @throws RangeError when p is not in (0, 1).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0,1), got ${p}`);
  return -Math.SQRT2 * erfcinv(2 * p);
}

/**
 * z_{0.975} used by SAS and statsmodels for 95% Wald intervals (test/data/vectors/NOTES.md §1.3 "Confidence
 * intervals").
 */
export const Z975 = 1.959963984540054;

/**
 * Regularised incomplete beta I_x(a, b) for a, b > 0 and x in [0, 1] (stdlib `betainc`).
 * @throws RangeError on arguments outside that domain.
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) {
    throw new RangeError(`incompleteBeta: need a, b > 0 and 0 <= x <= 1 (x=${x}, a=${a}, b=${b})`);
  }
  if (x === 0) return 0;
  if (x === 1) return 1;
  return betainc(x, a, b, true, false);
}

function checkT(t: number, df: number): void {
  if (!(df > 0)) throw new RangeError(`studentT: df must be > 0, got ${df}`);
  if (Number.isNaN(t)) throw new RangeError("studentT: t is NaN");
}

/**
 * Upper tail of Student's t with `df` degrees of freedom: P(T > t) (R: `pt(t, df, lower.tail = FALSE)`),
 * computed as the CDF at -t (symmetry), so without cancellation. df may be non-integer, must be > 0.
 * @throws RangeError when df <= 0 or t is NaN.
 */
export function studentTUpperTail(t: number, df: number): number {
  checkT(t, df);
  return tCdf(-t, df);
}

/**
 * Student's t CDF P(T <= t) (R: `pt(t, df)`).
 * @throws RangeError when df <= 0 or t is NaN.
 */
export function studentTCdf(t: number, df: number): number {
  checkT(t, df);
  return tCdf(t, df);
}

/**
 * Student's t quantile (R: `qt(p, df)`; stdlib `t-quantile`). df may be non-integer.
 * @throws RangeError when p is not in (0, 1) or df <= 0.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0,1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df must be > 0, got ${df}`);
  return tQuantile(p, df);
}

/**
 * Quantile of the Beta(a, b) distribution: the x in [0, 1] with I_x(a, b) = p (R: `qbeta(p, a, b)`), a and b
 * > 0 and not necessarily integers. By bisection on {@link incompleteBeta} (monotone in x) to the last
 * representable digit: slower than Boost's `ibeta_inv`, which stdlib ships only as an internal kernel, but never
 * off its bracket. p = 0 gives 0, p = 1 gives 1.
 * @throws RangeError when p is not in [0, 1] or a, b are not > 0.
 */
export function betaQuantile(p: number, a: number, b: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`betaQuantile: p must be in [0,1], got ${p}`);
  if (!(a > 0 && b > 0) || !Number.isFinite(a) || !Number.isFinite(b)) throw new RangeError(`betaQuantile: need finite a, b > 0 (a=${a}, b=${b})`);
  if (p === 0) return 0;
  if (p === 1) return 1;
  let lo = 0;
  let hi = 1;
  // halving down to adjacent doubles: at most ~1100 steps near 0, ~60 for a quantile of order 1e-3
  for (let i = 0; i < 2200; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (incompleteBeta(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}
