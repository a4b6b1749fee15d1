/**
 * Distribution functions the agreement statistics need: the standard normal and Student's t (CDF tails and
 * quantiles). Pure double-precision implementations, no dependencies.
 *
 * Sources: the regularised incomplete gamma and beta functions by series and modified-Lentz continued
 * fractions (Press, Teukolsky, Vetterling & Flannery, Numerical Recipes 3rd ed., sections 6.2 and 6.4);
 * log-gamma by the Lanczos approximation (g = 7, 9 terms); the normal quantile by Wichura (1988), Algorithm
 * AS 241 PPND16, Applied Statistics 37:477-484 (relative accuracy about 1e-16).
 */

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/**
 * ln Γ(x) for x > 0 (Lanczos approximation, g = 7; absolute error about 1e-15 for moderate x).
 * @throws RangeError when x <= 0 or not finite.
 */
export function lnGamma(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError(`lnGamma: x must be a positive finite number, got ${x}`);
  if (x < 0.5) {
    // Reflection: Γ(x)Γ(1-x) = π / sin(πx)
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  }
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const EPS = 1e-16;
const FPMIN = 1e-300;

/**
 * Regularised upper incomplete gamma Q(a, x) = Γ(a, x)/Γ(a), for a > 0, x >= 0.
 * Series for x < a + 1, continued fraction otherwise (Numerical Recipes §6.2).
 */
export function gammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`gammaQ: need a > 0 and x >= 0 (a=${a}, x=${x})`);
  if (x === 0) return 1;
  const lnPre = a * Math.log(x) - x - lnGamma(a);
  if (x < a + 1) {
    let ap = a;
    let sum = 1 / a;
    let del = sum;
    for (let n = 0; n < 10000; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * EPS) break;
    }
    return 1 - sum * Math.exp(lnPre);
  }
  let b = x + 1 - a;
  let c = 1 / FPMIN;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = b + an / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return Math.exp(lnPre) * h;
}

/** Complementary error function erfc(x) = Q(1/2, x²) for x >= 0, 2 - erfc(-x) otherwise. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) throw new RangeError("erfc: NaN");
  if (x === Infinity) return 0;
  if (x === -Infinity) return 2;
  if (x >= 0) return gammaQ(0.5, x * x);
  return 2 - gammaQ(0.5, x * x);
}

/** Standard normal CDF Φ(z). */
export function normalCdf(z: number): number {
  if (z >= 0) return 1 - 0.5 * erfc(z / Math.SQRT2);
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Standard normal upper tail 1 − Φ(z), computed without cancellation for large z. */
export function normalUpperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/**
 * Standard normal quantile Φ⁻¹(p) (Wichura 1988, AS 241 PPND16).
 * @throws RangeError when p is not in (0, 1).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0,1), got ${p}`);
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (
      (q *
        (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r +
          45921.953931549871457) *
          r +
          13731.693765509461125) *
          r +
          1971.5909503065514427) *
          r +
          133.14166789178437745) *
          r +
          3.387132872796366608)) /
      (((((((r * 5226.495278852545925 + 28729.085735721942674) * r + 39307.89580009271061) * r +
        21213.794301586595867) *
        r +
        5394.1960214247511077) *
        r +
        687.1870074920579083) *
        r +
        42.313330701600911252) *
        r +
        1)
    );
  }
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let val: number;
  if (r <= 5) {
    r -= 1.6;
    val =
      (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r + 0.24178072517745061177) * r +
        1.27045825245236838258) *
        r +
        3.64784832476320460504) *
        r +
        5.7694972214606914055) *
        r +
        4.6303378461565452959) *
        r +
        1.42343711074968357734) /
      (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r +
        0.14810397642748007459) *
        r +
        0.68976733498510000455) *
        r +
        1.6763848301838038494) *
        r +
        2.05319162663775882187) *
        r +
        1);
  } else {
    r -= 5;
    val =
      (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r +
        0.026532189526576123093) *
        r +
        0.29656057182850489123) *
        r +
        1.7848265399172913358) *
        r +
        5.4637849111641143699) *
        r +
        6.6579046435011037772) /
      (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
        7.868691311456132591e-4) *
        r +
        0.0148753612908506148525) *
        r +
        0.13692988092273580531) *
        r +
        0.59983220655588793769) *
        r +
        1);
  }
  return q < 0 ? -val : val;
}

/**
 * z_{0.975} used by SAS and statsmodels for 95% Wald intervals (test/data/vectors/NOTES.md §1.3 "Confidence
 * intervals").
 */
export const Z975 = 1.959963984540054;

function betacf(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < FPMIN) d = FPMIN;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/**
 * Regularised incomplete beta I_x(a, b) for a, b > 0 and x in [0, 1] (Numerical Recipes §6.4).
 * @throws RangeError on arguments outside that domain.
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) {
    throw new RangeError(`incompleteBeta: need a, b > 0 and 0 <= x <= 1 (x=${x}, a=${a}, b=${b})`);
  }
  if (x === 0) return 0;
  if (x === 1) return 1;
  const lnBt = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
  const bt = Math.exp(lnBt);
  if (x < (a + 1) / (a + b + 2)) return (bt * betacf(a, b, x)) / a;
  return 1 - (bt * betacf(b, a, 1 - x)) / b;
}

/**
 * Upper tail of Student's t with `df` degrees of freedom: P(T > t) (R: `1 - pt(t, df)`, computed without
 * cancellation). df may be non-integer, must be > 0.
 * @throws RangeError when df <= 0 or t is NaN.
 */
export function studentTUpperTail(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`studentT: df must be > 0, got ${df}`);
  if (Number.isNaN(t)) throw new RangeError("studentT: t is NaN");
  if (t === Infinity) return 0;
  if (t === -Infinity) return 1;
  const x = df / (df + t * t);
  const half = 0.5 * incompleteBeta(x, df / 2, 0.5);
  return t >= 0 ? half : 1 - half;
}

/** Student's t CDF P(T <= t). */
export function studentTCdf(t: number, df: number): number {
  return 1 - studentTUpperTail(t, df);
}

/**
 * Student's t quantile (R: `qt(p, df)`), by bisection on the CDF to full double precision.
 * @throws RangeError when p is not in (0, 1) or df <= 0.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0,1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df must be > 0, got ${df}`);
  if (p === 0.5) return 0;
  const upper = p > 0.5;
  const tail = upper ? 1 - p : p; // P(T > t) = tail for the positive quantile
  let lo = 0;
  let hi = 1;
  while (studentTUpperTail(hi, df) > tail) {
    hi *= 2;
    if (hi > 1e300) break;
  }
  for (let i = 0; i < 200; i++) {
    const mid = 0.5 * (lo + hi);
    if (mid === lo || mid === hi) break;
    if (studentTUpperTail(mid, df) > tail) lo = mid;
    else hi = mid;
  }
  const t = 0.5 * (lo + hi);
  return upper ? t : -t;
}
