/**
 * Exact small-count intervals for design-weighted proportions and for a difference of two such proportions from
 * one sample, for the groups where a Wald-type interval (estimate ± t·SE) under-covers: few events seen.
 *
 * Why. A Wald-type interval on a rare event is known to under-cover, in simple random samples (Brown, Cai &
 * DasGupta 2001, "Interval estimation for a binomial proportion", Statistical Science 16:101) and in survey samples
 * (Korn & Graubard 1998, "Confidence intervals for proportions with small expected number of positive counts
 * estimated from survey data", Survey Methodology 24:193). With 0 events its SE is 0 and the interval a point
 * (src/estimate/calibrated.ts has long given that case an exact bound instead); with 1 to a few events it is a
 * number again, and much narrower than the exact bound of 0 (new user M: 0 human-judge disagreements among 17
 * labelled gave ±19.5 points, 1 disagreement 4.7% [0.0, 16.8]), and it misses more than α where the true rate
 * would give a few events (test/estimate/small-count.test.ts: 0.87-0.92 at 3-5 expected events among 17-25).
 *
 * The interval of one proportion (Korn & Graubard 1998, their modified Clopper-Pearson interval): with p̂ the
 * design-weighted mean and n* an effective sample size, x = p̂·n* (not necessarily an integer) and
 *     lower = B⁻¹(α/2; x, n* − x + 1)   (0 when x = 0),   upper = B⁻¹(1 − α/2; x + 1, n* − x)   (1 when x = n*),
 * the Clopper & Pearson (1934, Biometrika 26:404) bounds with the beta quantile B⁻¹ in place of the binomial
 * inversion, which allows a non-integer x. With x = 0 the upper bound is 1 − (α/2)^{1/n*}, the closed form the
 * zero-SE case of src/estimate/calibrated.ts has used (`zeroEventUpperBound`): the two agree to the last digit.
 * n* is Korn-Graubard's p̂(1−p̂)/V̂ with the design variance V̂ ({@link effectiveSize}), which carries the strata
 * and the finite-population correction, truncated at the number labelled (Korn & Graubard 1998; Parker et al. 2017); where that is undefined (p̂ = 0, SE 0) Kish's effective size (Σw)²/Σw² of
 * the group's labelled items (Kish 1965, Survey Sampling §11.7; what the zero case uses). It is not shrunk by
 * Korn-Graubard's degrees-of-freedom factor (t/z)², so that the zero case stays as it was. (Kish's n* throughout was
 * tried first: it ignores stratification and the fpc and gave ±24 points where the t interval had ±3 on the real
 * AgentDojo sample, whose disagreements sit in a near-census stratum.)
 *
 * The interval of a difference p₁ − p₂ of two such shares of one sample (the calibrated estimator's correction:
 * p₁ the weighted share of the human-over-judge part max(d, 0) of d = human − judge, p₂ of the judge-over-human part
 * max(−d, 0)): the method of variance estimates recovery (MOVER, Zou & Donner 2008, Statistics in Medicine
 * 27:1693; Newcombe 1998, Statistics in Medicine 17:2635, for paired proportions), which adds the two exact
 * intervals' half-widths in quadrature with the correlation of two cells of one multinomial ({@link differenceInterval}).
 * With nothing seen on one side that side contributes its exact bound; with nothing seen on either it is
 * [−u₂, u₁] = ± (1 − (α/2)^{1/n*}), again the zero case. (The plain sum [l₁ − u₂, u₁ − l₂], a Bonferroni
 * combination, is valid without any assumption but covered 1.000 in the simulation, widths +60%.)
 *
 * When it is used ({@link needsSmallCountInterval}): when the effective number of events x is below
 * {@link SMALL_COUNT_BELOW}, and then it is joined with the design interval (the union: never narrower than
 * either). Above it the Wald-t interval is kept as it was: with many events it is the better-calibrated one, and
 * the exact interval would only add its own conservatism.
 */
import { betaQuantile } from "./distributions.js";

/**
 * Fewest effective events (x = p̂·n*, or for a difference x₁ + x₂; or as many non-events) at which the design
 * interval stands alone. 10: the usual np ≥ 5 rule leaves the Wald interval well below nominal (Brown, Cai &
 * DasGupta 2001, §2 and §4), and test/estimate/small-count.test.ts finds the calibrated t interval of a one-sided
 * disagreement share, by exact enumeration, at 0.87-0.92 with 3-5 expected events (n 17-25) and 0.88-0.90 with 5-8
 * (n 50-80), 0.94-0.95 from about 10 on, where the union would only widen it.
 */
export const SMALL_COUNT_BELOW = 10;

/** An interval [lower, upper]. */
export interface Bounds {
  lower: number;
  upper: number;
}

/**
 * Two-sided exact (Clopper-Pearson) interval of a proportion from x events among n, x and n not necessarily
 * integers (Korn & Graubard 1998: x = p̂·n_eff). x = 0 gives [0, 1 − (α/2)^{1/n}] in closed form.
 * @param x effective number of events, clamped to [0, n].
 * @param n effective sample size, > 0.
 * @throws RangeError when n <= 0 or x is not a number.
 */
export function clopperPearson(x: number, n: number, level = 0.95): Bounds {
  if (!(n > 0) || !Number.isFinite(n)) throw new RangeError(`clopperPearson: n must be a positive number, got ${n}`);
  if (Number.isNaN(x)) throw new RangeError("clopperPearson: x is NaN");
  const a = (1 - level) / 2;
  const k = Math.min(n, Math.max(0, x));
  // the closed forms at the ends (B(1, n) and B(n, 1)): exactly today's zero-event bound
  const lower = k <= 0 ? 0 : k >= n ? Math.pow(a, 1 / n) : betaQuantile(a, k, n - k + 1);
  const upper = k >= n ? 1 : k <= 0 ? 1 - Math.pow(a, 1 / n) : betaQuantile(1 - a, k + 1, n - k);
  return { lower, upper };
}

/**
 * The exact interval of one design-weighted share p̂ (in [0, 1]): the Korn-Graubard {@link clopperPearson} interval
 * with the design effective size `nDesign` ({@link effectiveSize}), its bound on the side of the rarer outcome never
 * closer to p̂ than `floor` (the upper bound at least p̂ + floor when p̂ <= 1/2, else the lower at most p̂ − floor;
 * clipped to [0, 1]), where `floor` is the zero-event bound of the group (`zeroEventUpperBound` of its Kish effective size in
 * src/estimate/calibrated.ts: the half-width the group gets when nothing is seen).
 *
 * Why the floor. The design variance carries the strata: a stratum labelled whole adds none. So when the few events
 * seen all sit in a census (or near-census) stratum and the sampled strata show none, V̂ is tiny, n* = p̂(1−p̂)/V̂
 * huge, and the interval hugs p̂, while with no event at all the group gets ± the zero-event bound. One event then gave
 * an interval far narrower than none (new user 31: a judge-over-human disagreement in a 9-of-9 stratum moved the
 * calibrated lower bound from 4.9% to 38.5%, 3.4 points under the estimate). What the census shows is exact; what
 * the sampled strata did not show is as unknown as in the zero case: p̂ plus the zero-event bound is the reading
 * that is monotone in the events seen (a seen event never narrows the interval below the unseen case).
 * @param p the share, in [0, 1].
 * @param nDesign the design effective size, > 0.
 * @param floor the zero-event half-width, >= 0 (0: the plain Clopper-Pearson interval).
 * @throws RangeError from {@link clopperPearson} when nDesign <= 0.
 */
export function shareInterval(p: number, nDesign: number, floor: number, level = 0.95): Bounds {
  const b = clopperPearson(p * nDesign, nDesign, level);
  // the floor is the unseen side of the rarer outcome: events above p̂ when p̂ <= 1/2, non-events below it otherwise
  return p <= 0.5 ? { lower: b.lower, upper: Math.max(b.upper, Math.min(1, p + floor)) } : { lower: Math.min(b.lower, Math.max(0, p - floor)), upper: b.upper };
}

/**
 * Interval of p₁ − p₂ from the two shares p₁, p₂ (in [0, 1], p₁ + p₂ <= 1) of one sample of effective size n (n₂ for
 * p₂ when the effective sizes differ: {@link effectiveSize}), by the
 * method of variance estimates recovery (MOVER; Zou & Donner 2008, Statistics in Medicine 27:1693, eq. for
 * correlated estimates; Newcombe 1998, Statistics in Medicine 17:2635, method 10 for paired data) from each share's
 * {@link shareInterval} [lᵢ, uᵢ] at `level` (the Clopper-Pearson interval, its rarer side at least `floor` from pᵢ):
 *     lower = p₁ − p₂ − √((p₁ − l₁)² + (u₂ − p₂)² − 2ρ(p₁ − l₁)(u₂ − p₂)),
 *     upper = p₁ − p₂ + √((u₁ − p₁)² + (p₂ − l₂)² − 2ρ(u₁ − p₁)(p₂ − l₂)),
 * ρ = −√(p₁p₂/((1 − p₁)(1 − p₂))) the correlation of two cells of one multinomial (negative: it widens). With 0 on
 * one side it is that side's exact bound added in quadrature; with 0 on both, [−u₂, u₁] (module docstring).
 */
export function differenceInterval(p1: number, p2: number, n: number, level = 0.95, n2 = n, floor = 0): Bounds {
  const b1 = shareInterval(p1, n, floor, level);
  const b2 = shareInterval(p2, n2, floor, level);
  const rho = p1 > 0 && p2 > 0 && p1 < 1 && p2 < 1 ? -Math.sqrt((p1 * p2) / ((1 - p1) * (1 - p2))) : 0;
  const mover = (a: number, b: number) => Math.sqrt(Math.max(0, a * a + b * b - 2 * rho * a * b));
  return { lower: p1 - p2 - mover(p1 - b1.lower, b2.upper - p2), upper: p1 - p2 + mover(b1.upper - p1, p2 - b2.lower) };
}

/**
 * The effective size n* of a design-weighted share p̂ with design SE `se` (Korn & Graubard 1998): p̂(1 − p̂)/SE², the
 * size of a simple random sample with the same variance, which carries the design's stratification and finite-
 * population correction (a stratum labelled whole adds no uncertainty); Kish's size `kish` when that is undefined
 * (p̂ 0 or 1, SE 0 or unknown: the zero case). Truncated at `nMax`, the number of items actually labelled, as Korn &
 * Graubard (1998) and the NCHS Data Presentation Standards for Proportions (Parker et al. 2017, Vital and Health
 * Statistics 2(175), "n_eff ... set to n when greater than n") do: a V̂ made small by strata whose labelled items
 * all agree (they add 0 to it) gave "design effective n 1109.0" for 30 labelled items of 797 (new user 49), an exact
 * interval as narrow as that many items would allow. (Truncation at the Kish size instead, tried first, threw away
 * what a near-census disagreement stratum shows: ±24 points where the t interval had ±3 on the real AgentDojo
 * sample of test/estimate/real.test.ts; the labelled count keeps it.)
 */
export function effectiveSize(p: number, se: number | null, kish: number, nMax = Infinity): number {
  return Math.min(nMax, p > 0 && p < 1 && se !== null && se > 1e-12 ? (p * (1 - p)) / (se * se) : kish);
}

/** Whether x effective events (among n) are few enough for the exact interval ({@link SMALL_COUNT_BELOW}); either tail. */
export function needsSmallCountInterval(x: number, n: number, below = SMALL_COUNT_BELOW): boolean {
  return Math.min(x, n - x) < below;
}

/** What {@link smallCountUnion} gives when the exact interval widened the design interval. */
export interface SmallCountUnion {
  /** The interval to read: the union of the design interval and the exact one (never narrower than either). */
  union: Bounds;
  /** The exact small-count interval, clipped to [0, 1]. */
  exact: Bounds;
  /** Effective count of the fewer outcome (events x, or non-events n − x), and which it is (0: events, 1: non-events). */
  fewer: number;
  side: 0 | 1;
}

/**
 * The one small-count rule of `estimate`'s intervals and `agree --human`'s design-weighted agreement (module docstring,
 * "When it is used"): when x effective events (or n − x non-events) are fewer than `below` ({@link needsSmallCountInterval}),
 * the design interval is joined with the exact one, `exact` ({@link shareInterval} or a {@link differenceInterval}),
 * clipped to [0, 1]. Null when the events are not few, or when the exact interval lies inside the design one (the
 * design interval stands, as it was).
 * @param design the design interval (a t or Wald interval, or the zero-event bound of an SE-0 estimate).
 * @param x effective events (x = p̂·n_eff with the Kish size, or the sum of two sides for a difference).
 * @param nEff the Kish effective size the events are counted among.
 */
export function smallCountUnion(design: Bounds, exact: Bounds, x: number, nEff: number, below = SMALL_COUNT_BELOW): SmallCountUnion | null {
  if (!needsSmallCountInterval(x, nEff, below)) return null;
  const lo = Math.min(1, Math.max(0, exact.lower));
  const up = Math.min(1, Math.max(0, exact.upper));
  if (lo >= design.lower && up <= design.upper) return null; // inside: the design interval is the one
  const side = x <= nEff - x ? 0 : 1;
  return { union: { lower: Math.min(design.lower, lo), upper: Math.max(design.upper, up) }, exact: { lower: lo, upper: up }, fewer: Math.max(0, side ? nEff - x : x), side }; // never -0.0 from rounding (break47)
}

/**
 * How a {@link smallCountUnion} was formed, in words (estimate's `ci_method`, agree --human's note): `exact small-count
 * interval: 2.0 effective human-judge disagreements among the group's 60 labelled items (Kish effective n 60.0), fewer
 * than 10; the interval is the union of the t interval [46.9%, 55.6%] and the Korn-Graubard exact interval
 * (Clopper-Pearson with the design effective n) [43.7%, 57.9%]<how>`.
 * @param what the events and their complement (the fewer is named); @param among whose labelled items (`the group's 60`);
 * @param joined the design interval's name (`t interval`, `bound`, `Wald interval`) and its bounds; @param how appended.
 */
export function smallCountText(u: SmallCountUnion, o: { what: readonly [string, string]; among: string; nEff: number; below?: number; joined: string; design: Bounds; how: string }): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return `exact small-count interval: ${u.fewer.toFixed(1)} effective ${o.what[u.side]} among ${o.among} labelled items (Kish effective n ${o.nEff.toFixed(1)}), fewer than ${o.below ?? SMALL_COUNT_BELOW}; the interval is the union of the ${o.joined} [${pct(o.design.lower)}, ${pct(o.design.upper)}] and the Korn-Graubard exact interval (Clopper-Pearson with the design effective n) [${pct(u.exact.lower)}, ${pct(u.exact.upper)}]${o.how}`;
}
