/**
 * Confusion matrices over a declared category set, marginals and prevalence, and two-rater percent agreement
 * with a Wilson interval (test/data/vectors/NOTES.md §0 "Notation and conventions", §2 "Percent agreement and
 * confusion matrices").
 */
import { Z975, normalQuantile } from "./distributions.js";
import { encodeLabels } from "./labels.js";
import { type Category, type Estimate, type Interval, type Table, REASONS, checkTable } from "./types.js";

/** A confusion matrix with its marginals. Rows = first rater (A), columns = second rater (B). */
export interface ConfusionMatrix {
  categories: Category[];
  /** `table[i][j]` = items with A = categories[i] and B = categories[j] (counts, or weights if weighted). */
  table: number[][];
  n: number;
  /** Row totals (A's use of each category) and column totals (B's). */
  row_totals: number[];
  col_totals: number[];
  /** Prevalence = totals / n for each rater; `null` when n = 0. */
  row_prevalence: number[] | null;
  col_prevalence: number[] | null;
}

/**
 * Build the confusion matrix of two raters over the declared categories.
 *
 * @param a first rater's labels (rows), one per item; must all be declared categories (use `pairLabels` to drop non-labels first).
 * @param b second rater's labels (columns), same items, same order.
 * @param categories declared category set, in order; unused categories keep their zero row/column.
 * @throws Error when lengths differ, a label is outside the declared set, or categories are empty/duplicated.
 * Source: test/data/vectors/NOTES.md §0 "Notation and conventions" (same orientation as sklearn
 * `confusion_matrix(y_true=A, y_pred=B)`, SAS, irr).
 */
export function confusionMatrix(a: readonly Category[], b: readonly Category[], categories: readonly Category[]): ConfusionMatrix {
  if (a.length !== b.length) {
    throw new Error(`confusionMatrix: raters have different numbers of items (${a.length} vs ${b.length}); pair items by id first`);
  }
  const ca = encodeLabels(a, categories);
  const cb = encodeLabels(b, categories);
  const q = categories.length;
  const table = Array.from({ length: q }, () => new Array<number>(q).fill(0));
  for (let i = 0; i < ca.length; i++) table[ca[i]][cb[i]]++;
  return withMarginals(table, categories);
}

/**
 * Marginals and prevalence of an existing square table.
 * @param table q × q non-negative table (counts or weights).
 * @param categories optional labels of the q categories (default 0..q-1).
 * @throws Error on a ragged/non-square/negative table or a category list of the wrong length.
 */
export function withMarginals(table: Table, categories?: readonly Category[]): ConfusionMatrix {
  const q = checkTable(table);
  if (categories && categories.length !== q) throw new Error(`withMarginals: ${categories.length} categories for a ${q} x ${q} table`);
  const row_totals = new Array<number>(q).fill(0);
  const col_totals = new Array<number>(q).fill(0);
  let n = 0;
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      row_totals[i] += table[i][j];
      col_totals[j] += table[i][j];
      n += table[i][j];
    }
  }
  return {
    categories: categories ? [...categories] : Array.from({ length: q }, (_, i) => i),
    table: table.map((r) => [...r]),
    n,
    row_totals,
    col_totals,
    row_prevalence: n > 0 ? row_totals.map((x) => x / n) : null,
    col_prevalence: n > 0 ? col_totals.map((x) => x / n) : null,
  };
}

/**
 * Wilson score interval for a binomial proportion p̂ = x/n (Wilson 1927; Agresti & Coull 1998).
 * @throws Error when n <= 0 or p is outside [0, 1].
 */
export function wilsonInterval(p: number, n: number, level = 0.95): Interval {
  if (!(n > 0)) throw new Error("wilsonInterval: n must be > 0");
  if (!(p >= 0 && p <= 1)) throw new Error(`wilsonInterval: p must be in [0,1], got ${p}`);
  const z = level === 0.95 ? Z975 : normalQuantile((1 + level) / 2);
  const z2 = z * z;
  const den = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / den;
  // p̂ = 0 (or 1) has the bound 0 (or 1) exactly: centre − half leaves float residue (5.551115123125783e-17 for 0/3,
  // new user 32) that a CSV prints as it is
  const lower = p === 0 ? 0 : Math.max(0, centre - half);
  const upper = p === 1 ? 1 : Math.min(1, centre + half);
  return { lower, upper, lower_clipped: lower, upper_clipped: upper, level, method: "wilson", degenerate: false };
}

/** Two-rater percent agreement. */
export interface PercentAgreement extends Estimate {
  /** Number of agreeing items (Σ diagonal). */
  agree: number;
  /**
   * Wilson score interval (preferred for a proportion, test/data/vectors/NOTES.md §2 "Percent agreement and confusion
   * matrices").
   */
  ci_wilson: Interval | null;
}

/**
 * Percent agreement p_o = Σ_i table[i][i] / n for two raters, with SE √(p_o(1−p_o)/n) (test/data/vectors/NOTES.md §2
 * "Percent agreement and confusion matrices"), a Wald interval clipped to [0, 1] and a Wilson interval.
 *
 * @param table q × q counts over the declared categories (rows = first rater).
 * @returns `value` null with reason `empty_input` when n = 0; `se` null with `n_lt_2` when n < 2.
 * @throws Error on a ragged/non-square/negative table.
 */
export function percentAgreement(table: Table, level = 0.95): PercentAgreement {
  const q = checkTable(table);
  let n = 0;
  let agree = 0;
  for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) n += table[i][j];
  for (let i = 0; i < q; i++) agree += table[i][i];
  if (n === 0) return { value: null, reason: REASONS.empty, n, agree, se: null, se_reason: REASONS.empty, ci_wilson: null, ci_wald: null };
  const p = agree / n;
  const res: PercentAgreement = { value: p, n, agree, ci_wilson: wilsonInterval(p, n, level) };
  if (n < 2) {
    res.se = null;
    res.se_reason = REASONS.nLt2;
    res.ci_wald = null;
  } else {
    const se = Math.sqrt((p * (1 - p)) / n);
    res.se = se;
    const z = level === 0.95 ? Z975 : normalQuantile((1 + level) / 2);
    const lower = p - z * se;
    const upper = p + z * se;
    res.ci_wald = {
      lower,
      upper,
      lower_clipped: Math.max(0, lower),
      upper_clipped: Math.min(1, upper),
      level,
      method: "wald_normal",
      degenerate: se === 0,
    };
    if (se === 0) res.flags = ["degenerate_ci"];
  }
  return res;
}
