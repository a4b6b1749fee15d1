/**
 * Fleiss' kappa for m raters per item (complete data), its per-category kappas, the Fleiss–Nee–Landis null
 * standard error and z test, Randolph's free-marginal kappa, and the two many-rater "percent agreements":
 * the pairwise agreement P̄ and the unanimity rate (labelled separately, never confused).
 *
 * Sources: Fleiss JL (1971) Measuring nominal scale agreement among many raters. Psychol Bull 76:378–382;
 * Fleiss JL, Nee JCM, Landis JR (1979) Psychol Bull 86:974–977 (null variance, R irr's z);
 * Randolph JJ (2005) Free-marginal multirater kappa. Formulas as written in test/data/vectors/NOTES.md §2 "Percent
 * agreement and confusion matrices", §5 "Fleiss' kappa". For unequal numbers of raters per item use
 * `fleissKappaGeneralized` (multirater.ts) or Krippendorff's alpha.
 */
import { normalUpperTail } from "./distributions.js";
import { type Estimate, type Table, REASONS, cancelSafeDiff, checkCounts, sqrtVar } from "./types.js";

/** Per-category Fleiss kappa κ_j (null with a reason when category j is unused or used by every rating). */
export interface CategoryKappa {
  index: number;
  value: number | null;
  reason?: string;
  /** Overall share p_j of ratings in category j. */
  p: number;
}

/** Fleiss' kappa result. */
export interface FleissKappa extends Estimate {
  /** Raters per item. */
  m: number;
  q: number;
  /** Pairwise agreement P̄ = mean_i P_i (the "observed agreement" of Fleiss' kappa). */
  pairwise_agreement: number | null;
  /** Unanimity rate: share of items on which all m raters chose the same category. Not P̄. */
  unanimity_rate: number | null;
  /** Chance agreement P̄_e = Σ_j p_j². */
  pe: number | null;
  /** P_i = (Σ_j n_ij² − m)/(m(m − 1)) per item. */
  p_i: number[];
  /** Category shares p_j = Σ_i n_ij/(N m). */
  p_j: number[];
  /** Null standard error (Fleiss, Nee & Landis 1979), z = κ/se0 and normal p-values. Not for CIs. */
  se0: number | null;
  se0_reason?: string;
  z: number | null;
  p_one_sided: number | null;
  p_two_sided: number | null;
  per_category: CategoryKappa[];
  /** Randolph's free-marginal kappa (P̄ − 1/q)/(1 − 1/q), q = number of declared categories. */
  randolph: Estimate;
}

/**
 * The result of a Fleiss' kappa that is not defined: every figure null (or empty) with `reason`.
 * @param reason why (a `REASONS` value, e.g. `empty_input`).
 * @param n items; @param q declared categories.
 */
export function emptyFleissKappa(reason: string, n: number, q: number): FleissKappa {
  return {
    value: null,
    reason,
    n,
    m: 0,
    q,
    pairwise_agreement: null,
    unanimity_rate: null,
    pe: null,
    p_i: [],
    p_j: [],
    se: null,
    se_reason: reason,
    se0: null,
    se0_reason: reason,
    z: null,
    p_one_sided: null,
    p_two_sided: null,
    per_category: [],
    randolph: { value: null, reason, n },
  };
}

/**
 * Fleiss' kappa κ = (P̄ − P̄_e)/(1 − P̄_e) for N items each rated by the same number m of raters
 * (test/data/vectors/NOTES.md §5 "Fleiss' kappa"), with per-category
 * κ_j = 1 − Σ_i n_ij(m − n_ij)/(N m(m − 1) p_j q_j), the null variance
 * Var0 = 2/(N m(m−1)(Σ p_j q_j)²)·[(Σ p_j q_j)² − Σ p_j q_j(q_j − p_j)], z and p-values, Randolph's
 * free-marginal kappa, the pairwise agreement P̄ and the unanimity rate.
 *
 * `se` is not reported here (null, reason `use_fleissKappaGeneralized_for_nonnull_se`): the non-null SE is
 * Gwet's linearisation in `fleissKappaGeneralized`, or a bootstrap over items.
 *
 * @param counts items × DECLARED categories: counts[i][j] = raters who put item i in category j. Counts may be
 *   non-integer (statsmodels' Randolph tables use 6.99/0.01), but every row must sum to the same m >= 2.
 * @returns value null with `empty_input` (no items) or `undefined_single_category` (P̄_e = 1).
 * @throws Error when rows sum to different totals (the classic formula is invalid: test/data/vectors/NOTES.md §5
 *   "Fleiss' kappa"), when m < 2, or on a ragged/negative matrix.
 */
export function fleissKappa(counts: Table): FleissKappa {
  const q = checkCounts(counts);
  const N = counts.length;
  const empty = (reason: string): FleissKappa => emptyFleissKappa(reason, N, q);
  if (N === 0 || q === 0) return empty(REASONS.empty);
  const m = counts[0].reduce((s, x) => s + x, 0);
  for (let i = 1; i < N; i++) {
    const mi = counts[i].reduce((s, x) => s + x, 0);
    if (Math.abs(mi - m) > 1e-9 * Math.max(1, m)) {
      throw new Error(
        `fleissKappa: item ${i} has ${mi} ratings but item 0 has ${m}; classic Fleiss' kappa needs the same m for every item (use fleissKappaGeneralized or krippendorffAlpha)`,
      );
    }
  }
  if (!(m >= 2)) throw new Error(`fleissKappa: need at least 2 ratings per item, got ${m}`);

  const p_i = counts.map((row) => (row.reduce((s, x) => s + x * x, 0) - m) / (m * (m - 1)));
  const pBar = p_i.reduce((s, x) => s + x, 0) / N;
  const p_j = Array.from({ length: q }, (_, j) => counts.reduce((s, row) => s + row[j], 0) / (N * m));
  const pe = p_j.reduce((s, x) => s + x * x, 0);
  const unanimous = counts.filter((row) => row.some((x) => Math.abs(x - m) <= 1e-9 * m)).length;

  const randolph: Estimate =
    q < 2
      ? { value: null, reason: REASONS.qLt2, n: N }
      : { value: (pBar - 1 / q) / (1 - 1 / q), n: N };

  const per_category: CategoryKappa[] = p_j.map((pj, j) => {
    if (pj === 0) return { index: j, value: null, reason: REASONS.categoryUnused, p: pj };
    if (Math.abs(1 - pj) < 1e-14) return { index: j, value: null, reason: REASONS.categoryUniversal, p: pj };
    let s = 0;
    for (const row of counts) s += row[j] * (m - row[j]);
    return { index: j, value: 1 - s / (N * m * (m - 1) * pj * (1 - pj)), p: pj };
  });

  const res: FleissKappa = {
    value: null,
    n: N,
    m,
    q,
    pairwise_agreement: pBar,
    unanimity_rate: unanimous / N,
    pe,
    p_i,
    p_j,
    se: null,
    se_reason: "use_fleissKappaGeneralized_for_nonnull_se",
    se0: null,
    z: null,
    p_one_sided: null,
    p_two_sided: null,
    per_category,
    randolph,
  };
  if (Math.abs(1 - pe) < 1e-14) {
    res.reason = REASONS.singleCategory;
    res.se0_reason = REASONS.singleCategory;
    return res;
  }
  const kappa = (pBar - pe) / (1 - pe);
  res.value = kappa;
  let spq = 0;
  let spqqp = 0;
  for (const pj of p_j) {
    const qj = 1 - pj;
    spq += pj * qj;
    spqqp += pj * qj * (qj - pj);
  }
  const v0 = (2 / (N * m * (m - 1) * spq * spq)) * cancelSafeDiff(spq * spq, spqqp);
  const se0 = sqrtVar(v0);
  res.se0 = se0;
  if (se0 === 0) {
    res.se0_reason = REASONS.seZero;
    res.flags = ["z_undefined"];
  } else {
    res.z = kappa / se0;
    res.p_one_sided = normalUpperTail(res.z);
    res.p_two_sided = Math.min(1, 2 * normalUpperTail(Math.abs(res.z)));
  }
  return res;
}
