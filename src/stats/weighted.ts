/**
 * Design-weighted (Hájek / post-stratified) agreement for the two-phase annotation sample (test/data/vectors/NOTES.md
 * §7 "Two-phase / stratified annotation sample"): inclusion probabilities of the design, Horvitz–Thompson and
 * post-stratified weights, the weighted confusion proportions P̂_kl, and plug-in p_o, p_e, κ, AC1, PABAK and
 * prevalences, with Taylor-linearised standard errors from influence values, stratified, with and without the
 * finite-population correction.
 *
 * Sources: Horvitz DG, Thompson DJ (1952) JASA 47:663–685; Hájek J (1971); Särndal, Swensson & Wretman
 * (1992) Model Assisted Survey Sampling (ratio estimators, post-stratification, Taylor linearisation);
 * SAS/STAT PROC SURVEYFREQ "Kappa Coefficients" (design-weighted κ from weighted proportions);
 * Kish L (1965) Survey Sampling (effective sample size). Formulas as written in test/data/vectors/NOTES.md §7
 * "Two-phase / stratified annotation sample".
 *
 * Never apply the FCE (1969) variance to weighted data, and never report unweighted sample statistics as
 * population values: the over-sampled disagreement stratum biases them (test/data/vectors/NOTES.md §7.4 "Linearised
 * (Taylor) variance").
 */
import { stratifiedVariance } from "./stratified.js";
import { type WeightSpec, resolveWeights } from "./weights.js";
import { encodeLabels } from "./labels.js";
import { type Category, type Estimate, REASONS, waldInterval } from "./types.js";

/**
 * Phase-2 design of test/data/vectors/NOTES.md §7.1 "Design": S1 = SRS of n1 from all N; S2 = SRS of n2 from the
 * disagreement stratum D.
 */
export interface TwoPhaseDesign {
  /** Population size N and size N_D of the committee-disagreement stratum D (N_A = N − N_D). */
  N: number;
  N_D: number;
  n1: number;
  n2: number;
  /** `exclude_already_selected`: S2 drawn from D∖S1; `independent`: S2 drawn from D independently of S1. */
  variant: "exclude_already_selected" | "independent";
}

/**
 * First-order inclusion probabilities of the two-phase design (test/data/vectors/NOTES.md §7.1 "Design"):
 * π_A = n1/N; π_D = n1/N + n2/N_D (S2 from D∖S1) or 1 − (1 − n1/N)(1 − n2/N_D) (independent draws).
 * @returns `{A, D}`.
 * @throws Error when sizes are not positive integers, n1 > N, or n2 > N_D (or n2 > N_D − E[hits] is not checked).
 */
export function inclusionProbabilities(d: TwoPhaseDesign): { A: number; D: number } {
  for (const [k, v] of Object.entries({ N: d.N, N_D: d.N_D, n1: d.n1, n2: d.n2 })) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`inclusionProbabilities: ${k} must be a non-negative integer, got ${v}`);
  }
  if (d.N <= 0 || d.N_D <= 0 || d.N_D > d.N) throw new Error("inclusionProbabilities: need 0 < N_D <= N");
  if (d.n1 > d.N || d.n2 > d.N_D) throw new Error("inclusionProbabilities: sample sizes exceed the population");
  const a = d.n1 / d.N;
  const D = d.variant === "independent" ? 1 - (1 - a) * (1 - d.n2 / d.N_D) : a + d.n2 / d.N_D;
  if (D > 1) throw new Error("inclusionProbabilities: π_D > 1 (n2 too large for D∖S1)");
  return { A: a, D };
}

/**
 * Horvitz–Thompson weights w_i = 1/π_i.
 * @throws Error when some π_i is not in (0, 1].
 */
export function horvitzThompsonWeights(pi: readonly number[]): number[] {
  return pi.map((p, i) => {
    if (!(p > 0 && p <= 1)) throw new Error(`horvitzThompsonWeights: π[${i}] = ${p} is not in (0, 1]`);
    return 1 / p;
  });
}

/**
 * Post-stratified (stratified Hájek) weights w_i = N_h/n_h, n_h = realised sample count in stratum h
 * (test/data/vectors/NOTES.md §7.2 "Estimators", the recommended estimator).
 * @param strata stratum of each sampled item.
 * @param populationSizes N_h for every stratum (from phase 1).
 * @throws Error when an item's stratum has no N_h, or n_h > N_h.
 */
export function postStratifiedWeights(strata: readonly string[], populationSizes: Readonly<Record<string, number>>): number[] {
  const nh = new Map<string, number>();
  for (const h of strata) nh.set(h, (nh.get(h) ?? 0) + 1);
  for (const [h, n] of nh) {
    const N = populationSizes[h];
    if (!(typeof N === "number" && N > 0)) throw new Error(`postStratifiedWeights: no population size for stratum ${JSON.stringify(h)}`);
    if (n > N) throw new Error(`postStratifiedWeights: stratum ${JSON.stringify(h)} has ${n} sampled items but N_h = ${N}`);
  }
  return strata.map((h) => populationSizes[h] / (nh.get(h) as number));
}

/**
 * Post-stratified weights N_h/n_h of the items of a domain, n_h counting the stratum's sampled items outside it too
 * (`outside`: one stratum name per such item). Each item keeps its design weight: Σ w estimates the domain's size.
 * @throws Error as {@link postStratifiedWeights}.
 */
function domainWeights(strata: readonly string[], outside: readonly string[], populationSizes: Readonly<Record<string, number>>): number[] {
  const all = postStratifiedWeights([...strata, ...outside], populationSizes);
  return all.slice(0, strata.length);
}

/**
 * Kish effective sample size (Σw)²/Σw² (test/data/vectors/NOTES.md §7.2 "Estimators"). Null when there are no weights
 * or Σw² = 0.
 */
export function kishEffectiveN(weights: readonly number[]): number | null {
  let s = 0;
  let s2 = 0;
  for (const w of weights) {
    s += w;
    s2 += w * w;
  }
  return s2 > 0 ? (s * s) / s2 : null;
}

/** Weighted confusion proportions: P̂_kl = Σ w_i 1[a_i = k, b_i = l] / Σ w_i (rows = judge, columns = human). */
export interface WeightedConfusion {
  categories: Category[];
  /** Weighted proportions P̂ (sum to 1). */
  P: number[][];
  /** Raw (unweighted) counts of the same items. */
  counts: number[][];
  sum_weights: number;
  n: number;
  /** P̂_k+ (judge prevalence) and P̂_+l (human prevalence). */
  row_prevalence: number[];
  col_prevalence: number[];
}

function checkInputs(a: readonly Category[], b: readonly Category[], w: readonly number[]): void {
  if (a.length !== b.length || a.length !== w.length) {
    throw new Error(`weighted: judge (${a.length}), human (${b.length}) and weights (${w.length}) must have the same length`);
  }
  w.forEach((x, i) => {
    if (!(Number.isFinite(x) && x >= 0)) throw new Error(`weighted: weight[${i}] = ${x} must be finite and >= 0`);
  });
}

/**
 * Weighted confusion proportions (test/data/vectors/NOTES.md §7.3 "Weighted agreement, kappa, AC1, PABAK"; SAS
 * SURVEYFREQ).
 * @param judge first rater (rows), human second rater (columns), aligned by item; weights w_i >= 0.
 * @param categories declared category set.
 * @returns P̂ (null-free; all zeros and sum_weights 0 when Σw = 0), raw counts, marginals.
 * @throws Error on length mismatch, negative/non-finite weights, or labels outside the declared set.
 */
export function weightedConfusion(
  judge: readonly Category[],
  human: readonly Category[],
  weights: readonly number[],
  categories: readonly Category[],
): WeightedConfusion {
  checkInputs(judge, human, weights);
  const a = encodeLabels(judge, categories);
  const b = encodeLabels(human, categories);
  const q = categories.length;
  const W = Array.from({ length: q }, () => new Array<number>(q).fill(0));
  const counts = Array.from({ length: q }, () => new Array<number>(q).fill(0));
  let sw = 0;
  for (let i = 0; i < a.length; i++) {
    W[a[i]][b[i]] += weights[i];
    counts[a[i]][b[i]]++;
    sw += weights[i];
  }
  const P = W.map((r) => r.map((x) => (sw > 0 ? x / sw : 0)));
  const row_prevalence = P.map((r) => r.reduce((s, x) => s + x, 0));
  const col_prevalence = Array.from({ length: q }, (_, l) => P.reduce((s, r) => s + r[l], 0));
  return { categories: [...categories], P, counts, sum_weights: sw, n: a.length, row_prevalence, col_prevalence };
}

/** A design-weighted estimate: `se` is the stratified linearised SE with fpc, `se_no_fpc` without it. */
export interface DesignEstimate extends Estimate {
  se_no_fpc?: number | null;
  /** Why `se_no_fpc` is null while `se` is not: a census stratum of one item has no variance without the fpc. */
  se_no_fpc_reason?: string;
}

/** Prevalence of one category under one rater. */
export interface DesignPrevalence extends DesignEstimate {
  category: Category;
}

/** Design-weighted agreement (point estimates; SEs filled by {@link designAgreement}). */
export interface WeightedAgreement {
  categories: Category[];
  n: number;
  sum_weights: number;
  kish_n_eff: number | null;
  confusion: WeightedConfusion;
  /** Percent agreement Σ_k P̂_kk. */
  po: DesignEstimate;
  /** Chance agreement of κ: Σ_kl W_kl P̂_k+ P̂_+l (W = agreement weights, identity by default). */
  pe: number | null;
  kappa: DesignEstimate;
  pe_ac1: number | null;
  ac1: DesignEstimate;
  /** Brennan–Prediger / PABAK (p_o − 1/q)/(1 − 1/q), q = declared categories. */
  pabak: DesignEstimate;
  /** Human prevalence P̂_+c and judge prevalence P̂_c+ for every declared category. */
  prevalence_human: DesignPrevalence[];
  prevalence_judge: DesignPrevalence[];
  weights_used: "given" | "post_stratified";
}

interface Plug {
  q: number;
  a: Int32Array;
  b: Int32Array;
  W: number[][];
  cm: WeightedConfusion;
  /** agreement-weighted p_o and p_e of κ (equal to the diagonal ones when unweighted) */
  po: number;
  pe: number;
  /** diagonal agreement Σ_k P̂_kk */
  poDiag: number;
  kappa: number | null;
  pi: number[];
  peAc1: number | null;
  ac1: number | null;
  pabak: number | null;
}

function plugIn(judge: readonly Category[], human: readonly Category[], weights: readonly number[], categories: readonly Category[], aw?: WeightSpec): Plug {
  const cm = weightedConfusion(judge, human, weights, categories);
  const q = categories.length;
  const W = resolveWeights(aw, q);
  const a = encodeLabels(judge, categories);
  const b = encodeLabels(human, categories);
  let po = 0;
  let pe = 0;
  for (let k = 0; k < q; k++) {
    for (let l = 0; l < q; l++) {
      po += W[k][l] * cm.P[k][l];
      pe += W[k][l] * cm.row_prevalence[k] * cm.col_prevalence[l];
    }
  }
  // shares of one total: a sum of weight fractions can round past 1 (1.0000000000000002 with 28 items of weight 105/40,
  // kappa then 1.0000000000000004 and "-0.0 effective disagreements" in agree --human's small-count note: break47)
  po = Math.min(1, po);
  const kappa = Math.abs(1 - pe) < 1e-14 ? null : (po - pe) / (1 - pe);
  const pi = cm.row_prevalence.map((r, k) => (r + cm.col_prevalence[k]) / 2);
  let peAc1: number | null = null;
  let ac1: number | null = null;
  let pabak: number | null = null;
  // AC1 and PABAK are defined on the unweighted diagonal agreement.
  let poDiag = 0;
  for (let k = 0; k < q; k++) poDiag += cm.P[k][k];
  poDiag = Math.min(1, poDiag); // as po above
  if (q >= 2) {
    peAc1 = pi.reduce((s, x) => s + x * (1 - x), 0) / (q - 1);
    ac1 = (poDiag - peAc1) / (1 - peAc1);
    pabak = (poDiag - 1 / q) / (1 - 1 / q);
  }
  return { q, a, b, W, cm, po, pe, poDiag, kappa, pi, peAc1, ac1, pabak };
}

/**
 * Design-weighted point estimates from given weights (HT, post-stratified, or unit weights): P̂, p_o, p_e,
 * κ (optionally with agreement weights), AC1, PABAK, prevalences (test/data/vectors/NOTES.md §7.3 "Weighted
 * agreement, kappa, AC1, PABAK"). No standard errors: use {@link designAgreement} for the stratified linearised SEs.
 *
 * @param judge, human labels aligned by item (non-labels already removed, see `pairLabels`).
 * @param weights survey weights w_i >= 0 (not all 0).
 * @param categories declared category set (q enters AC1 and PABAK).
 * @param opts.agreementWeights weights for a weighted κ (default unweighted).
 * @returns estimates; κ null with `undefined_single_category` when p̂_e = 1; AC1/PABAK null when q < 2;
 *   everything null with `zero_total_weight` when Σw = 0 (or `empty_input` with no items).
 * @throws Error on length mismatch, bad weights, or labels outside the declared set.
 */
export function weightedAgreement(
  judge: readonly Category[],
  human: readonly Category[],
  weights: readonly number[],
  categories: readonly Category[],
  opts: { agreementWeights?: WeightSpec } = {},
): WeightedAgreement {
  const p = plugIn(judge, human, weights, categories, opts.agreementWeights);
  const n = p.cm.n;
  const dead = n === 0 ? REASONS.empty : p.cm.sum_weights === 0 ? REASONS.zeroWeight : null;
  const est = (v: number | null, reasonIfNull: string): DesignEstimate =>
    dead ? { value: null, reason: dead, n } : v === null ? { value: null, reason: reasonIfNull, n } : { value: v, n };
  return {
    categories: [...categories],
    n,
    sum_weights: p.cm.sum_weights,
    kish_n_eff: kishEffectiveN(weights),
    confusion: p.cm,
    po: est(p.poDiag, REASONS.empty),
    pe: dead ? null : p.pe,
    kappa: est(p.kappa, opts.agreementWeights && opts.agreementWeights !== "unweighted" ? REASONS.pe1 : REASONS.singleCategory),
    pe_ac1: dead ? null : p.peAc1,
    ac1: est(p.ac1, REASONS.qLt2),
    pabak: est(p.pabak, REASONS.qLt2),
    prevalence_human: categories.map((c, k) => ({ category: c, ...est(p.cm.col_prevalence[k], REASONS.empty) })),
    prevalence_judge: categories.map((c, k) => ({ category: c, ...est(p.cm.row_prevalence[k], REASONS.empty) })),
    weights_used: "given",
  };
}

/**
 * Influence values z_i of every statistic at the weighted estimates (test/data/vectors/NOTES.md §7.4 "Linearised
 * (Taylor) variance").
 */
export interface InfluenceValues {
  po: number[];
  kappa: number[] | null;
  ac1: number[] | null;
  pabak: number[] | null;
  prevalence_human: number[][];
  prevalence_judge: number[][];
}

/**
 * Analytic influence values (linearisation) of p̂_o, κ̂ (with agreement weights), AC1, PABAK and the
 * prevalences at the weighted estimates (test/data/vectors/NOTES.md §7.4 "Linearised (Taylor) variance", generalised
 * to agreement weights W for κ:
 * z_i = (W[a_i][b_i] − p_o)/(1 − p_e) − (Σ_l W[a_i][l] P_+l + Σ_k W[k][b_i] P_k+ − 2p_e)(1 − p_o)/(1 − p_e)²).
 * @throws as {@link weightedAgreement}.
 */
export function influenceValues(
  judge: readonly Category[],
  human: readonly Category[],
  weights: readonly number[],
  categories: readonly Category[],
  opts: { agreementWeights?: WeightSpec } = {},
): InfluenceValues {
  return influenceFromPlug(plugIn(judge, human, weights, categories, opts.agreementWeights));
}

function influenceFromPlug(p: Plug): InfluenceValues {
  const { q, a, b, W, cm, po, pe, pi, poDiag } = p;
  const rowsP = cm.row_prevalence;
  const colsP = cm.col_prevalence;
  const n = a.length;
  const zPo: number[] = [];
  const zK: number[] | null = p.kappa === null ? null : [];
  const zA: number[] | null = p.ac1 === null ? null : [];
  const zB: number[] | null = p.pabak === null ? null : [];
  const wRowCol = Array.from({ length: q }, (_, k) => W[k].reduce((s, x, l) => s + x * colsP[l], 0)); // Σ_l W[k][l] P_+l
  const wColRow = Array.from({ length: q }, (_, l) => W.reduce((s, r, k) => s + r[l] * rowsP[k], 0)); // Σ_k W[k][l] P_k+
  const sumTerm = pi.reduce((s, x) => s + (1 - 2 * x) * x, 0);
  for (let i = 0; i < n; i++) {
    const d = a[i] === b[i] ? 1 : 0;
    zPo.push(d - poDiag);
    if (zK) {
      const dw = W[a[i]][b[i]];
      zK.push((dw - po) / (1 - pe) - ((wRowCol[a[i]] + wColRow[b[i]] - 2 * pe) * (1 - po)) / ((1 - pe) * (1 - pe)));
    }
    if (zA && p.peAc1 !== null) {
      const g = ((1 - 2 * pi[a[i]]) + (1 - 2 * pi[b[i]])) / (2 * (q - 1)) - sumTerm / (q - 1);
      zA.push((d - poDiag) / (1 - p.peAc1) - (g * (1 - poDiag)) / ((1 - p.peAc1) * (1 - p.peAc1)));
    }
    if (zB) zB.push((d - poDiag) / (1 - 1 / q));
  }
  const prevalence_human = Array.from({ length: q }, (_, c) => Array.from(b, (bi) => (bi === c ? 1 : 0) - colsP[c]));
  const prevalence_judge = Array.from({ length: q }, (_, c) => Array.from(a, (ai) => (ai === c ? 1 : 0) - rowsP[c]));
  return { po: zPo, kappa: zK, ac1: zA, pabak: zB, prevalence_human, prevalence_judge };
}

/**
 * Stratified linearised variance of a mean, V̂ = Σ_h (N_h/N)²(1 − f_h) s²_{z,h}/n_h with s²_{z,h} the sample variance
 * of z in stratum h and f_h = n_h/N_h (`fpc: false` drops (1 − f_h)) (test/data/vectors/NOTES.md §7.4 "Linearised
 * (Taylor) variance"): {@link stratifiedVariance} (`./stratified.ts`, the one function `estimate` uses too) of z/N,
 * N = Σ_h N_h. A census stratum adds 0 with the fpc.
 * @returns the variance, or null when a stratum that needs a within-stratum variance has fewer than 2 items.
 * @throws Error when a stratum has no population size.
 */
export function stratifiedLinearizedVariance(
  z: readonly number[],
  strata: readonly string[],
  populationSizes: Readonly<Record<string, number>>,
  opts: { fpc: boolean },
): number | null {
  if (z.length !== strata.length) throw new Error("stratifiedLinearizedVariance: z and strata differ in length");
  let N = 0;
  for (const h of Object.keys(populationSizes)) N += populationSizes[h];
  const v = stratifiedVariance(z.map((x) => x / N), strata, populationSizes, { fpc: opts.fpc });
  return typeof v === "number" ? v : null;
}

/** One annotated item of the two-phase sample. */
export interface DesignRecord {
  judge: Category;
  human: Category;
  /** Phase-1 stratum (e.g. `A` = judges unanimous, `D` = committee disagreement). */
  stratum: string;
}

/**
 * Population estimates from the two-phase annotation sample with post-stratified weights w_i = N_h/n_h,
 * stratified linearised SEs with the fpc (`se`) and without (`se_no_fpc`), and 95% Wald intervals
 * θ̂ ± 1.96·SE (test/data/vectors/NOTES.md §7.2 "Estimators" to §7.5 "Wald CI for design estimates"). Kish n_eff
 * reported.
 *
 * @param records annotated items (judge label, human label, stratum), non-labels already removed.
 * @param populationSizes N_h for every stratum (phase 1 knows them).
 * @param categories declared category set.
 * @param opts.agreementWeights for a weighted κ (default unweighted).
 * @param opts.outOfDomain per stratum, how many sampled items of the same design lie outside the rater's domain
 *   (a judge that labelled only some trajectories, a committee without quorum on some): a domain estimate
 *   (Särndal, Swensson & Wretman 1992 §10.3). The weights are N_h/n_h with n_h counting them, the estimates are
 *   Hájek ratios over the domain (Σ w over its items = N̂_D), and the influence values are 0 outside it and divided
 *   by N̂_D, not N. Without it the rater's items stood for their whole strata: a judge that labelled one suite of
 *   eight read a design SE 8.5 times too small (new user 37: 0.0084 against 0.0714 recomputed).
 * @returns as {@link weightedAgreement} with SEs; SE null with `stratum_n_lt_2` when a sampled (not census) stratum
 *   has < 2 items (a census stratum adds no variance: the same rule as `estimate`, `./stratified.ts`).
 * @throws Error on unknown strata, n_h > N_h, or labels outside the declared set.
 */
export function designAgreement(
  records: readonly DesignRecord[],
  populationSizes: Readonly<Record<string, number>>,
  categories: readonly Category[],
  opts: { agreementWeights?: WeightSpec; level?: number; outOfDomain?: Readonly<Record<string, number>> } = {},
): WeightedAgreement {
  const strata = records.map((r) => r.stratum);
  const judge = records.map((r) => r.judge);
  const human = records.map((r) => r.human);
  const out = opts.outOfDomain ?? {};
  const outside: string[] = [];
  for (const h of Object.keys(out).sort()) for (let k = 0; k < out[h]; k++) outside.push(h);
  const w = outside.length ? domainWeights(strata, outside, populationSizes) : postStratifiedWeights(strata, populationSizes);
  const res = weightedAgreement(judge, human, w, categories, opts);
  res.weights_used = "post_stratified";
  if (records.length === 0) return res;
  const z = influenceFromPlug(plugIn(judge, human, w, categories, opts.agreementWeights));
  const level = opts.level ?? 0.95;
  // the domain's estimated size: Σ w over its items (= Σ N_h over its strata when nothing lies outside)
  const ND = outside.length ? w.reduce((a, b) => a + b, 0) : null;
  const allStrata = outside.length ? [...strata, ...outside] : strata;
  const variance = (zi: number[], fpc: boolean): number | null => {
    if (ND === null) return stratifiedLinearizedVariance(zi, strata, populationSizes, { fpc });
    const v = stratifiedVariance([...zi.map((x) => x / ND), ...outside.map(() => 0)], allStrata, populationSizes, { fpc });
    return typeof v === "number" ? v : null;
  };
  const fill = (e: DesignEstimate, zi: number[] | null, clipLo: number): void => {
    if (e.value === null || zi === null) return;
    const v = variance(zi, true);
    const v0 = variance(zi, false);
    if (v === null) {
      e.se = null;
      e.se_no_fpc = null;
      e.se_reason = "stratum_n_lt_2";
      e.ci_wald = null;
      return;
    }
    e.se = Math.sqrt(Math.max(0, v));
    // without the fpc a census stratum of one item has no variance estimate: that SE alone is undefined
    e.se_no_fpc = v0 === null ? null : Math.sqrt(Math.max(0, v0));
    if (v0 === null) e.se_no_fpc_reason = "stratum_n_lt_2 (a census stratum with one item: no variance estimate without the fpc)";
    e.ci_wald = waldInterval(e.value, e.se, level, clipLo, 1);
    if (e.se === 0) e.flags = ["degenerate_ci"];
  };
  fill(res.po, z.po, 0);
  fill(res.kappa, z.kappa, -1);
  fill(res.ac1, z.ac1, -1);
  fill(res.pabak, z.pabak, -1);
  res.prevalence_human.forEach((e, c) => fill(e, z.prevalence_human[c], 0));
  res.prevalence_judge.forEach((e, c) => fill(e, z.prevalence_judge[c], 0));
  return res;
}
