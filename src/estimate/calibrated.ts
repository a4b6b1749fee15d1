/**
 * Population ASR of one domain (a group of attacked trajectories) from judge labels on every trajectory and
 * human labels on a two-phase stratified sample: the human-only design-weighted (Hájek) estimate and the
 * calibrated two-phase difference estimator, each with a design-based 95% CI.
 *
 * The design. The annotation sample (src/sample/) is drawn in two phases, and every sampled trajectory carries
 * its post-stratification cell c (committee stratum × sampling stratum, `stratum` in the label file) and the
 * cell's population size N_c (`stratum_size`). The design treats the trajectories of a cell alike (phase 1 is
 * SRS within the sampling stratum, phase 2 is SRS within the disagreement pool), so given the realised counts
 * n_c the labelled sample is a stratified simple random sample of the cells (vectors/NOTES.md §7.2). The
 * weights are therefore w_i = N_c/n_c (the Hájek weights with the conditional inclusion probabilities
 * n_c/N_c, which equal the recorded π in expectation), and variances are those of stratified SRS with the
 * finite-population correction. Items sampled but not labelled (no annotation, an annotator tie) are missing
 * at random within their cell: n_c counts the labelled items only.
 *
 * Domains. A group (all attacked trajectories, or one agent model, condition, ...) is a domain of the
 * population, usually cutting across cells. Domain estimation (Särndal, Swensson & Wretman 1992, Model
 * Assisted Survey Sampling, §10.3-10.5): with δ_i = 1[i in the domain],
 * - N̂_g = Σ_s w_i δ_i (the estimated domain size; the true N_g is known and reported beside it).
 * - human (Hájek domain mean): ŷ_g = Σ_s w_i δ_i y_i / N̂_g, y_i = 1 when the humans said compromised.
 * - calibrated (two-phase difference estimator: Särndal et al. 1992 ch. 9, §9.7, the two-phase GREG estimator with
 *   the judge's label as the phase-1 prediction and its coefficient fixed at 1; the same estimator as prediction-powered inference, Angelopoulos, Bates, Fannjiang,
 *   Jordan & Zrnic 2023, Science 382:669, with design weights): m_i = the judge's compromised indicator
 *   (known for every trajectory of the domain), d_i = y_i − m_i, and
 *       θ̂_g = (1/N_g) Σ_{i in domain} m_i  +  Σ_s w_i δ_i d_i / N̂_g
 *   (the judge's ASR over the whole domain, corrected by the design-weighted mean of the human-minus-judge
 *   differences on the sampled items of the domain). It is design-consistent whatever the judge does: a biased
 *   judge shifts the first term and the second term removes the shift. Its variance is that of the correction
 *   only (the first term is a population constant), so it is small when the judge agrees with the humans.
 *   The reported estimate is clipped to [0, 1] (`correction` keeps the unclipped design-weighted mean of d).
 * - Trajectories whose judge verdict is not usable (judge error, refusal, unjudgeable, unverified, no verdict,
 *   committee without quorum) are part of the domain like any other: their prediction m_i is the judge's ASR
 *   over the usable trajectories of the domain (a fixed function of phase-1 data, so the estimator stays
 *   design-consistent), and the human sample corrects them like the rest. The judge-only ASR excludes them
 *   and says how many.
 * - Linearised (Taylor) variance of a Hájek domain mean r̂ = Σ w δ u / Σ w δ: influence values
 *   z_i = δ_i (u_i − r̂)/N̂_g, and V̂ = Σ_c N_c² (1 − n_c/N_c) s²_{z,c}/n_c with s²_{z,c} the sample variance of
 *   z over the labelled items of cell c, in the domain or not (Taylor linearisation of a ratio, Särndal et al.
 *   1992 §5.5-5.6; domains, ch. 10; NOTES §7.4), from `../stats/stratified.ts` (the one stratified variance, also
 *   `agree --human`'s: a census cell adds 0). 95% CI: the unclipped θ̂ ± t_{0.975, df}·√V̂, then clipped to [0, 1], with the
 *   design degrees of freedom df = labelled items of the domain − cells they fall in (Korn & Graubard 1999,
 *   Analysis of Health Surveys, §5.2; NOTES §7.5 gives the normal quantile, which small domains under-cover).
 *   A group whose sample shows no disagreement (SE 0) gets an exact interval instead of a point: the two-sided
 *   Clopper-Pearson bound on the share of the group's units that disagree, 0 of them seen among the Kish effective
 *   number of its labelled items, taken on both sides of the estimate (`ci_method` names it).
 *   Few events (`../stats/small-count.ts`): a t interval on a rare event under-covers (Korn & Graubard 1998, Survey
 *   Methodology 24:193; Brown, Cai & DasGupta 2001), and one disagreement gave an interval far narrower than none did.
 *   So when the effective number of human-judge disagreements (p̂₁ + p̂₂)·n_eff (p̂₁, p̂₂ the Hájek domain means of
 *   max(d, 0) and max(−d, 0), n_eff the Kish size above), or of agreements, is below `smallCountBelow` (10), the
 *   interval is the union of the one above and the exact one: judge term + the MOVER difference (Zou & Donner 2008)
 *   of the Korn-Graubard Clopper-Pearson intervals of p₁ and p₂ (x = p̂·n*, non-integer, n* = p̂(1−p̂)/V̂ the design
 *   effective n, truncated at the group's labelled count (Korn & Graubard 1998; Parker et al. 2017: V̂ near 0 must not
 *   make n* exceed the items labelled), or the Kish size where it is undefined). With 0 on both sides the exact one is
 *   the zero-SE bound itself. The human-only estimate likewise, with the Clopper-Pearson interval of ŷ when few humans
 *   say compromised, or few say not. `ci_method` says so whenever the union widened the interval.
 *   Strata without variation (`stratumRule`, session 49): V̂ gets 0 from a stratum whose labelled items of the group all
 *   have the same value (human label, or human-minus-judge difference), which reads no variation seen as none; when most
 *   of the group's weight sits in such strata the t interval hugs the estimate though the group's events are many (new
 *   user 49: 5 of 8 strata at 0% or 100%, 88-93% coverage). So when a stratum of the group not labelled whole shows no
 *   variation (`"unvaried"`, the default; `"always"`, `"off"`), an interval that is neither a zero-SE bound nor a
 *   small-count union (whose exact sides already hold the zero-event bound) is joined with the stratum-wise score
 *   interval of `../stats/stratum-mover.ts` (`../stats/stratum-shares.ts` gives its strata): the MOVER combination (Zou, Huang
 *   & Zhang 2009) of each varied stratum's Wilson interval (for a difference, Newcombe's of two), weighted by the
 *   stratum's share N̂_{c,g}/N̂_g and its √(1 − f_c), with, for the unvaried strata together, the two-sided
 *   Clopper-Pearson bound on the share of their unseen units that differ (0 seen among their Kish effective n); the
 *   calibrated estimate's is offset by the judge term. `ci_method` says so (`stratum-wise score interval: ...`) when the
 *   union widened the interval. Coverage before and after: test/estimate/unvaried-strata.test.ts.
 *
 * Undefined is null with a reason, never 0: a domain with fewer labelled items than `minSampled`, a cell that
 * may hold trajectories of the domain with one labelled item out of several (no within-cell variance:
 * `stratum_n_lt_2`), or no labelled item at all. A cell that holds no trajectory of the domain adds 0 to the
 * domain's variance whatever its size (Särndal et al. 1992 §10.3: the domain variable is 0 on all its units).
 */
import type { JudgeDisputed } from "./judge-disputed.js";
import { DEFAULT_MIN_SAMPLED } from "../stats/min-sampled.js";
import { studentTQuantile } from "../stats/distributions.js";
import { differenceInterval, effectiveSize, shareInterval, smallCountText, smallCountUnion, SMALL_COUNT_BELOW } from "../stats/small-count.js";
import { stratifiedVariance } from "../stats/stratified.js";
import { stratumMover } from "../stats/stratum-mover.js";
import { kishEffectiveN } from "../stats/weighted.js";
import { stratumShares, type GroupStrata } from "../stats/stratum-shares.js";
import { weightCheck, type WeightCheck } from "./weight-check.js";

/** One labelled item of the sample (every labelled item of the whole sample, in the domain or not). */
export interface LabelledItem {
  id: string;
  /** Post-stratification cell of the design (the label file's `stratum`). */
  cell: string;
  /** Human consensus: compromised. */
  human: boolean;
}

/** One trajectory of the domain (the whole population part of the group, sampled or not). */
export interface DomainUnit {
  id: string;
  /** The judge's compromised indicator, or null when its verdict is not usable. */
  judge: boolean | null;
}

/**
 * A domain without an object per trajectory (a million-trajectory run read as columns): its size, the judge's
 * indicator of its i-th trajectory (in the order a {@link DomainUnit} array would list them) and the unit of a
 * labelled id (undefined when the id is not in the domain).
 */
export interface DomainView {
  n: number;
  judge(i: number): boolean | null;
  unit(id: string): DomainUnit | undefined;
}

/** A 95% (or `level`) interval, clipped to [0, 1]. */
export interface Ci {
  lower: number;
  upper: number;
}

/** A design-based estimate: null with a reason when undefined; CI null with a reason when the variance is. */
export interface DesignAsr {
  asr: number | null;
  /**
   * The estimate before it was clipped to [0, 1], only when clipping moved it (audit 35 M1: at a 1% true ASR, 16% of
   * samples print 0.0%, and the printed values average 11% above the truth where these average on it): the value
   * to pool or average across groups.
   */
  asr_unclipped?: number;
  reason?: string;
  se: number | null;
  ci95: Ci | null;
  ci_reason?: string;
  /** Design degrees of freedom of the t quantile. */
  df?: number;
  /**
   * How the interval was formed when it is not the t interval: with SE 0 (every sampled difference, or every human
   * label, the same) an exact bound on the share of units that differ (`zeroEventUpperBound`); with few events
   * (`smallCountBelow`) the union with the exact small-count interval when that widened it. Named here.
   */
  ci_method?: string;
  /**
   * Set when the value has no interval (`asr` defined, `ci95` null: marked UNSTABLE): the heaviest labelled item's
   * share of the weight and the Kish effective n (./weight-check.ts), the numbers that say how unstable it is.
   */
  weight_check?: WeightCheck;
  /** Kept for readers of older outputs; no longer set (a zero-SE group gets the interval `ci_method` names). */
  degenerate?: boolean;
  estimator: string;
}

/** Options of {@link domainAsr}. */
export interface DomainAsrOptions {
  /** Fewest labelled items of the domain for an estimate (default 10). */
  minSampled?: number;
  /** Confidence level (default 0.95). */
  level?: number;
  /**
   * Whether a cell may hold trajectories of the domain in the population (not only among its labelled items):
   * false only when it certainly holds none (e.g. the cell's sampling stratum fixes an agent model other than
   * the group's). A cell that holds none adds 0 to the domain's variance whatever its labelled count
   * ({@link stratifiedVariance}). Default: every cell may (a one-item cell then leaves the CI undefined).
   */
  cellHoldsDomain?: (cell: string) => boolean;
  /**
   * Units of the domain outside the population the sample was drawn from (`sample --where`): their inclusion
   * probability was 0, so no design-based estimate covers them; when > 0 the human and calibrated estimates are
   * undefined (`outside_sample_population`), not an estimate of a smaller population under the group's name.
   */
  outsideFrame?: number;
  /**
   * Why the sample cannot speak for any group (`status (details)`, src/estimate/sample-frame.ts: the run changed
   * since the sample, several samples in one file, a frame that cannot be read or is unknown): when set, the human
   * and calibrated estimates are undefined with this reason.
   */
  refusal?: string;
  /**
   * Fewest effective events (human-judge disagreements for the calibrated estimate; humans saying compromised, or
   * not, for the human-only one) at which the t interval stands alone; below it the interval is joined with the
   * exact small-count interval (`../stats/small-count.ts`). Default {@link SMALL_COUNT_BELOW}; 0 turns it off (the
   * intervals before it, for the simulation that compares them).
   */
  smallCountBelow?: number;
  /**
   * When the stratum-wise score interval (`../stats/stratum-mover.ts`) is joined with the interval: `unvaried` (the
   * default) when a stratum of the group, not labelled whole, shows no variation; `always`; `off` (the intervals
   * before it, for the simulation that compares them).
   */
  stratumRule?: "unvaried" | "always" | "off";
}

/** The estimates of one domain. */
export interface DomainAsr {
  n_population: number;
  n_sampled: number;
  /** Design-weighted estimate of the domain size, Σ w δ (compare with n_population). */
  n_population_estimated: number | null;
  /**
   * The judge's rate over the group: `count` of its `n_usable` usable verdicts label the event; `n_unusable` have none.
   * `disputed` (a committee, set by `groupEstimate` of ./groups.ts): the rate's range over its split votes (./judge-disputed.ts).
   */
  judge: { asr: number | null; reason?: string; count: number; n_usable: number; n_unusable: number; disputed?: JudgeDisputed };
  human: DesignAsr;
  calibrated: DesignAsr & {
    judge_term: number | null;
    correction: number | null;
    /** The prediction used for trajectories without a usable judge verdict (null when the group has none). */
    prediction_for_unusable: number | null;
    /** Set when that prediction is not the judge's ASR (no usable verdict in the group): what was used and why. */
    prediction_note?: string;
  };
  /** Labelled items of the domain per cell, with the cell's N_c and labelled count n_c over the whole sample. */
  n_by_stratum: Array<{ stratum: string; N: number; n: number; n_in_group: number }>;
}

export const HUMAN_ESTIMATOR =
  "Hajek domain mean with post-stratified weights N_c/n_c over the design's cells; stratified linearised variance with fpc (Sarndal, Swensson & Wretman 1992, sec. 5.5-5.6 and ch. 10; NOTES sec. 7)";
export const CALIBRATED_ESTIMATOR =
  "two-phase difference estimator: the judge's rate over the whole group + Hajek-weighted mean of (human - judge) on the sampled items of the group (Sarndal, Swensson & Wretman 1992, ch. 9, sec. 9.7, two-phase GREG with coefficient 1; = prediction-powered inference with design weights, Angelopoulos et al. 2023, Science 382:669); stratified linearised variance with fpc";

/** The one stratified variance (`../stats/stratified.ts`), re-exported where callers found it before. */
export { stratifiedVariance } from "../stats/stratified.js";

/**
 * The calibrated estimate and its interval from the judge term, the correction and its SE: the interval is that of
 * the unclipped estimate, judge_term + correction ± q·SE, and then both the estimate and the interval are clipped to
 * [0, 1] (clipping to the parameter space after forming the interval keeps its coverage; centring the interval on
 * the clipped estimate does not: judge term 0.02, correction −0.20, SE 0.05 gives [0, 0], not [0, 0.10]).
 * @param q the quantile (t_{(1+level)/2, df} as `domainAsr` uses).
 */
export function calibratedInterval(judgeTerm: number, correction: number, se: number, q: number): { estimate: number; ci95: Ci } {
  const raw = judgeTerm + correction;
  return { estimate: clip01(raw), ci95: { lower: clip01(raw - q * se), upper: clip01(raw + q * se) } };
}

function clip01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** The exact small-count interval of an estimate (`../stats/small-count.ts`) with its effective count x and words for the method. */
interface SmallCount {
  x: number;
  lower: number;
  upper: number;
  /** What the events are, and what their complement is (in `ci_method`, whichever is the fewer). */
  what: [string, string];
  /** How the interval is formed, appended to `ci_method`. */
  how: string;
}

/** What differs, 0 seen, when the human-only estimate's SE is 0 (`domainAsr`): the other label, or one's stratum's. */
function humanZeroWhat(mean: number): string {
  if (mean < SE_ZERO || mean > 1 - SE_ZERO) return `trajectories labelled ${mean >= 0.5 ? "not compromised" : "compromised"} by the humans`;
  return "trajectories whose human label differs from the others of their stratum";
}

/**
 * A standard error at or below this is 0: the variance of strata whose items are all equal sums to ~1e-18 in floating
 * point, not 0 (new user 28: a zero-width [6.5, 6.5] interval from 27 labelled items).
 */
const SE_ZERO = 1e-12;

/**
 * Two-sided exact (Clopper-Pearson 1934) upper bound on a proportion when 0 of n were seen: 1 − (α/2)^{1/n}
 * (Clopper & Pearson 1934, Biometrika 26:404; the "rule of three" is its one-sided large-n form).
 * @param n the (effective) number of items observed, > 0.
 */
export function zeroEventUpperBound(n: number, level = 0.95): number {
  return 1 - Math.pow((1 - level) / 2, 1 / n);
}

/** What {@link fillInterval} needs of its group: the t interval's df and quantile, the Kish n_eff and its zero-event bound. */
interface IntervalContext {
  df: number;
  q: number;
  nEff: number;
  bound: number;
  nSampled: number;
  /** `smallCountBelow`. */
  below: number;
  /**
   * Every trajectory of the group is labelled and every cell it falls in is a census (n_c = N_c): the estimate is the
   * group's own mean, with no sampling error (red team 29: a 20-of-20 group read 30.0% [11.9, 54.3]).
   */
  census: boolean;
  level: number;
  stratumRule: "unvaried" | "always" | "off";
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * Set an estimate, its SE and its interval (`domainAsr`): the t interval; with SE 0 the exact zero-event bound, each
 * unit moving the estimate by at most `zero.spread`; then, with few events, the union with the exact small-count
 * interval, said in `ci_method` when it widened the interval (module docstring).
 */
function fillInterval(
  e: DesignAsr,
  value: number,
  raw: number,
  r: { se: number | null; reason?: string },
  zero: { spread: number; what: string },
  exact: SmallCount,
  ctx: IntervalContext,
  strata: GroupStrata,
  offset = 0,
): void {
  const { df, q, nEff, bound, nSampled, below, census } = ctx;
  e.asr = clip01(value);
  if (e.asr !== raw) e.asr_unclipped = raw;
  e.se = r.se !== null && r.se <= SE_ZERO ? 0 : r.se; // ~1e-17 of rounding is 0 (review 28)
  if (r.se === null) {
    e.ci_reason = r.reason;
    return;
  }
  e.df = df;
  if (census && r.se <= SE_ZERO) {
    e.ci95 = { lower: clip01(raw), upper: clip01(raw) };
    e.ci_method = `census: all ${nSampled} trajectories of the group are labelled and every stratum they fall in was labelled whole, so the estimate has no sampling error (the interval is the point; the humans' own errors are not in it)`;
    return;
  }
  if (r.se > SE_ZERO) e.ci95 = { lower: clip01(raw - q * r.se), upper: clip01(raw + q * r.se) };
  else {
    // SE 0: no unit of the sample differs, which is not certainty. An exact bound on the share of the group's units
    // that would differ (0 seen among the n_eff labelled), each moving the estimate by at most `spread`.
    e.ci95 = { lower: clip01(raw - zero.spread * bound), upper: clip01(raw + zero.spread * bound) };
    e.ci_method = `exact bound: 0 ${zero.what} among the group's ${nSampled} labelled items (Kish effective n ${nEff.toFixed(1)}); two-sided Clopper-Pearson upper bound ${pct(bound)} on their share, estimate ± ${zero.spread === 1 ? "" : `${zero.spread} × `}that bound`;
  }
  // few events: the t interval of a rare event under-covers (Korn & Graubard 1998); joined with the exact interval
  // (the one rule, ../stats/small-count.ts `smallCountUnion`, agree --human's design-weighted agreement's too)
  const u = smallCountUnion(e.ci95, exact, exact.x, nEff, below);
  if (u) {
    const design = e.ci95;
    e.ci95 = u.union;
    const small = smallCountText(u, { what: exact.what, among: `the group's ${nSampled}`, nEff, below, joined: e.ci_method ? "bound" : "t interval", design, how: exact.how });
    e.ci_method = e.ci_method ? `${e.ci_method}; ${small}` : small;
    return; // its exact interval already holds the group's zero-event bound on the unseen side
  }
  if (r.se > SE_ZERO) joinStratumMover(e, strata, offset, ctx); // SE 0: the exact bound above is the pooled one
}

/**
 * Join the interval with the stratum-wise score interval (`../stats/stratum-mover.ts`, Zou, Huang & Zhang 2009) when
 * a stratum of the group not labelled whole shows no variation (`stratumRule`), said in `ci_method` when it widened it.
 */
function joinStratumMover(e: DesignAsr, strata: GroupStrata, offset: number, { level, stratumRule }: IntervalContext): void {
  if (!e.ci95 || stratumRule === "off" || (stratumRule === "unvaried" && strata.unvaried === 0)) return;
  const m = stratumMover(strata.strata, level);
  const lower = clip01(offset + m.lower);
  const upper = clip01(offset + m.upper);
  if (lower >= e.ci95.lower - 1e-12 && upper <= e.ci95.upper + 1e-12) return;
  const before = e.ci95;
  e.ci95 = { lower: Math.min(before.lower, lower), upper: Math.max(before.upper, upper) };
  const none = strata.unvaried === 0 ? "" : `${strata.unvaried} of the group's ${strata.sampled} strata not labelled whole show no variation in their labelled items, which the stratified variance reads as none; `;
  const text = `stratum-wise score interval: ${none}the interval is the union of [${pct(before.lower)}, ${pct(before.upper)}] and the MOVER combination (Zou, Huang & Zhang 2009) of each varied stratum's Wilson score interval with, for the unvaried strata together, the two-sided Clopper-Pearson bound on the share of their unseen units that differ (0 seen among their Kish effective n) [${pct(lower)}, ${pct(upper)}]`;
  e.ci_method = e.ci_method ? `${e.ci_method}; ${text}` : text;
}

/**
 * How far one unit may move the calibrated estimate when its SE is 0 (`fillInterval`'s `zero`): every labelled item of
 * a stratum has the same difference d = human − prediction, so an unseen unit of a sampled stratum (not labelled
 * whole: a census has no unseen unit) may differ from its stratum's d by up to 1 + |d| (d ∈ {−1, 0, 1}, or h − m for an
 * unusable verdict predicted at m). 1 when the sampled strata show no disagreement, whatever the census strata hold
 * (new user 31: two disagreements in a 9-of-9 stratum made it 2, and the group's interval [0.0, 100.0]); 2 when no
 * labelled item of the group sits in a sampled stratum.
 */
function zeroSpread(
  allAgree: boolean,
  labelled: readonly LabelledItem[],
  inG: readonly (DomainUnit | undefined)[],
  isCensus: (it: LabelledItem) => boolean,
  pred: (u: DomainUnit) => number,
): { spread: number; what: string } {
  let spread = 0;
  labelled.forEach((it, i) => {
    const unit = inG[i];
    if (unit && !isCensus(it)) spread = Math.max(spread, 1 + Math.abs((it.human ? 1 : 0) - pred(unit)));
  });
  if (spread === 0) spread = 2;
  spread = Number(spread.toFixed(6));
  if (allAgree) return { spread, what: "human-judge disagreements" };
  if (spread === 1) return { spread, what: "human-judge disagreements in the strata not labelled whole (the disagreements seen are all in strata labelled whole, which have no unseen unit)" };
  return { spread, what: "units whose human-minus-judge difference differs from the rest of their stratum" };
}

/** The domain's usable judge verdicts and how many of them say the event. */
function judgeCounts(view: DomainView): { usable: number; judgePos: number } {
  let usable = 0;
  let judgePos = 0;
  for (let i = 0; i < view.n; i++) {
    const j = view.judge(i);
    if (j === null) continue;
    usable++;
    if (j) judgePos++;
  }
  return { usable, judgePos };
}

/** A {@link DomainView} of an array of units (the map by id built once). */
function arrayDomain(domain: readonly DomainUnit[]): DomainView {
  const byId = new Map(domain.map((u) => [u.id, u]));
  return { n: domain.length, judge: (i) => domain[i].judge, unit: (id) => byId.get(id) };
}

/**
 * Human-only and calibrated ASR of one domain (module docstring for the estimators and their sources).
 *
 * @param domain every trajectory of the domain (attacked, in the group), with the judge's label or null (an array, or a
 *   {@link DomainView} of the same units in the same order).
 * @param labelled every labelled item of the sample (the whole sample, in the domain or not).
 * @param cellSizes N_c of every cell named by a labelled item.
 * @returns the estimates; `asr` null with a reason when the domain has fewer than `minSampled` labelled items,
 *   CIs null with a reason when the variance is not defined.
 * @throws Error when a labelled item's cell has no size, or a cell holds more labelled items than N_c.
 */
export function domainAsr(
  domain: readonly DomainUnit[] | DomainView,
  labelled: readonly LabelledItem[],
  cellSizes: ReadonlyMap<string, number>,
  opts: DomainAsrOptions = {},
): DomainAsr {
  const view = Array.isArray(domain) ? arrayDomain(domain as readonly DomainUnit[]) : (domain as DomainView);
  const nDomain = view.n;
  const minSampled = opts.minSampled ?? DEFAULT_MIN_SAMPLED;
  const level = opts.level ?? 0.95;
  // Cells: sizes and labelled counts.
  const nc = new Map<string, number>();
  for (const it of labelled) {
    const N = cellSizes.get(it.cell);
    if (!(typeof N === "number" && N > 0)) throw new Error(`no population size for stratum ${JSON.stringify(it.cell)}`);
    nc.set(it.cell, (nc.get(it.cell) ?? 0) + 1);
  }
  for (const [c, n] of nc) if (n > cellSizes.get(c)!) throw new Error(`stratum ${JSON.stringify(c)} has ${n} labelled items but N = ${cellSizes.get(c)}`);
  const w = (c: string) => cellSizes.get(c)! / nc.get(c)!;

  // Judge over the whole domain.
  const { usable, judgePos } = judgeCounts(view);
  const judgeAsr = usable > 0 ? judgePos / usable : null;
  // prediction for unusable verdicts (module docstring); with no usable verdict at all, 0: any constant gives the
  // same calibrated estimate (then the human-only one), and the output says which was used
  const mUnusable = judgeAsr ?? 0;
  const predOf = (j: boolean | null): number => (j === null ? mUnusable : j ? 1 : 0);
  const pred = (u: DomainUnit): number => predOf(u.judge);
  // summed in the domain's order (as a reduce over its units): the same float whatever the domain's form
  let predSum = 0;
  for (let i = 0; i < nDomain; i++) predSum += predOf(view.judge(i));
  const judgeTerm = nDomain > 0 ? predSum / nDomain : null;

  const inG = labelled.map((it) => view.unit(it.id));
  const nSampled = inG.filter(Boolean).length;
  const byStratum = new Map<string, number>();
  labelled.forEach((it, i) => byStratum.set(it.cell, (byStratum.get(it.cell) ?? 0) + (inG[i] ? 1 : 0)));
  const n_by_stratum = [...nc.keys()]
    .sort()
    .map((c) => ({ stratum: c, N: cellSizes.get(c)!, n: nc.get(c)!, n_in_group: byStratum.get(c) ?? 0 }))
    .filter((r) => r.n_in_group > 0);

  let Nhat = 0;
  labelled.forEach((it, i) => {
    if (inG[i]) Nhat += w(it.cell);
  });

  const out: DomainAsr = {
    n_population: nDomain,
    n_sampled: nSampled,
    n_population_estimated: nSampled > 0 ? Nhat : null,
    judge: {
      asr: judgeAsr,
      ...(judgeAsr === null ? { reason: nDomain === 0 ? "empty_group" : "no_usable_judge_verdict" } : {}),
      count: judgePos,
      n_usable: usable,
      n_unusable: nDomain - usable,
    },
    human: { asr: null, se: null, ci95: null, estimator: HUMAN_ESTIMATOR },
    calibrated: { asr: null, se: null, ci95: null, estimator: CALIBRATED_ESTIMATOR, judge_term: judgeTerm, correction: null, prediction_for_unusable: nDomain - usable > 0 ? mUnusable : null,
      ...(nDomain > 0 && usable === 0
        ? { prediction_note: "no usable judge verdict in the group: every trajectory is predicted 0, so the calibrated estimate is the human-only one" }
        : {}),
    },
    n_by_stratum,
  };
  if (opts.refusal) {
    out.human.reason = opts.refusal;
    out.calibrated.reason = opts.refusal;
    return out;
  }
  if (opts.outsideFrame) {
    const reason = `outside_sample_population (${opts.outsideFrame} of the group's ${nDomain} attacked trajectories are outside the population the sample was drawn from: no chance of a human label)`;
    out.human.reason = reason;
    out.calibrated.reason = reason;
    return out;
  }
  if (nSampled < minSampled) {
    const reason = nSampled === 0 ? "no_labelled_item_in_group" : `too_few_labelled_items (${nSampled} < ${minSampled}; --min-sampled)`;
    out.human.reason = reason;
    out.calibrated.reason = reason;
    return out;
  }

  // Cells certainly without a domain member in the population: z ≡ 0 there, zero variance (§10.3).
  const emptyCells = new Set<string>();
  if (opts.cellHoldsDomain) for (const c of nc.keys()) if (!(byStratum.get(c) ?? 0) && !opts.cellHoldsDomain(c)) emptyCells.add(c);
  // A Hájek domain mean of u with its linearised variance.
  const hajek = (u: (it: LabelledItem, unit: DomainUnit) => number): { mean: number; se: number | null; reason?: string } => {
    let num = 0;
    labelled.forEach((it, i) => {
      const unit = inG[i];
      if (unit) num += w(it.cell) * u(it, unit);
    });
    const mean = num / Nhat;
    const zs = labelled.map((it, i) => {
      const unit = inG[i];
      return unit ? (u(it, unit) - mean) / Nhat : 0;
    });
    const v = stratifiedVariance(
      zs,
      labelled.map((it) => it.cell),
      cellSizes,
      { emptyCells },
    );
    if (typeof v !== "number") {
      const holds = (byStratum.get(v.stratum) ?? 0) > 0 ? "holds labelled trajectories of the group" : "may hold trajectories of the group";
      return { mean, se: null, reason: `${v.reason} (stratum "${v.stratum}" has ${v.n} labelled item of ${v.N} and ${holds})` };
    }
    return { mean, se: Math.sqrt(Math.max(0, v)) };
  };
  // Design degrees of freedom: labelled items of the group minus the cells they fall in (Korn & Graubard 1999,
  // Analysis of Health Surveys, §5.2); the t quantile widens small groups' intervals a little.
  const df = Math.max(1, nSampled - n_by_stratum.length);
  const q = studentTQuantile((1 + level) / 2, df);
  // Kish effective size of the group's labelled items (design weights), for the exact bound of a zero-SE group
  const nEff = kishEffectiveN(labelled.filter((_, i) => inG[i]).map((it) => w(it.cell))) ?? nSampled;
  const bound = zeroEventUpperBound(nEff, level);
  const census = nDomain > 0 && nSampled === nDomain && n_by_stratum.every((r) => r.n === r.N);
  const ctx: IntervalContext = { df, q, nEff, bound, nSampled, below: opts.smallCountBelow ?? SMALL_COUNT_BELOW, census, level, stratumRule: opts.stratumRule ?? "unvaried" };
  type U = (it: LabelledItem, unit: DomainUnit) => number; // the group's strata for the stratum-wise interval
  const strataOf = (u1: U, u2?: U) => stratumShares(labelled.flatMap((it, i) => (inG[i] ? [{ cell: it.cell, u1: u1(it, inG[i]!), ...(u2 ? { u2: u2(it, inG[i]!) } : {}) }] : [])), nc, cellSizes, Nhat);
  const fill = (e: DesignAsr, value: number, raw: number, r: { se: number | null; reason?: string }, zero: { spread: number; what: string }, exact: SmallCount, strata: GroupStrata, offset = 0) =>
    fillInterval(e, value, raw, r, zero, exact, ctx, strata, offset);
  const h = hajek((it) => (it.human ? 1 : 0));
  // one human label per stratum: the share of units labelled otherwise is bounded (1 per unit)
  const nH = effectiveSize(h.mean, h.se, nEff, nSampled);
  const hExact = shareInterval(h.mean, nH, bound, level);
  fill(out.human, h.mean, h.mean, h, { spread: 1, what: humanZeroWhat(h.mean) }, { x: h.mean * nEff, ...hExact, what: ["human labels compromised", "human labels not compromised"], how: ` (design effective n ${nH.toFixed(1)}; at least the zero-event bound ${pct(bound)} on the unseen side)` }, strataOf((it) => (it.human ? 1 : 0)));
  const d = hajek((it, unit) => (it.human ? 1 : 0) - pred(unit));
  out.calibrated.correction = d.mean;
  const ci = calibratedInterval(judgeTerm!, d.mean, d.se ?? 0, q);
  // every difference equal: 0 when judge and humans agree (a disagreement moves the estimate by at most 1), else a
  // constant ±1 (or a fraction for unusable verdicts) from which a unit may differ by up to 2
  const allAgree = Math.abs(d.mean) < 1e-12;
  // the human-over-judge and judge-over-human parts of the differences, each a share with its exact interval
  const s1 = hajek((it, unit) => Math.max(0, (it.human ? 1 : 0) - pred(unit)));
  const s2 = hajek((it, unit) => Math.max(0, pred(unit) - (it.human ? 1 : 0)));
  const [p1, p2] = [s1.mean, s2.mean];
  const [n1, n2] = [effectiveSize(p1, s1.se, nEff, nSampled), effectiveSize(p2, s2.se, nEff, nSampled)];
  const dExact = differenceInterval(p1, p2, n1, level, n2, bound);
  fill(out.calibrated, ci.estimate, judgeTerm! + d.mean, d, zeroSpread(allAgree, labelled, inG, (it) => nc.get(it.cell)! >= cellSizes.get(it.cell)!, pred), {
    x: (p1 + p2) * nEff,
    lower: judgeTerm! + dExact.lower,
    upper: judgeTerm! + dExact.upper,
    what: ["human-judge disagreements", "human-judge agreements"],
    how: ` = judge term + the MOVER combination (Zou & Donner 2008) of the exact intervals of the human-over-judge share ${pct(p1)} and the judge-over-human share ${pct(p2)} (design effective n ${n1.toFixed(1)} and ${n2.toFixed(1)}; each at least the zero-event bound ${pct(bound)} on its unseen side)`,
  }, strataOf((it, unit) => Math.max(0, (it.human ? 1 : 0) - pred(unit)), (it, unit) => Math.max(0, pred(unit) - (it.human ? 1 : 0))), judgeTerm!);
  return withWeightChecks(out, labelled.flatMap((it, i) => (inG[i] ? [{ cell: it.cell, N: cellSizes.get(it.cell)!, n: nc.get(it.cell)! }] : [])));
}

/**
 * A value without an interval says how unstable it is, in numbers a reader can check (./weight-check.ts): sets
 * `weight_check` on the human and calibrated estimates that have a value and no interval. Returns `out`.
 * @param items the group's labelled items with their cell's N_c and labelled n_c.
 */
function withWeightChecks(out: DomainAsr, items: ReadonlyArray<{ cell: string; N: number; n: number }>): DomainAsr {
  const wc = weightCheck(items);
  for (const e of [out.human, out.calibrated]) if (wc && e.asr !== null && e.ci95 === null) e.weight_check = wc;
  return out;
}
