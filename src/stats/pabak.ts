/**
 * Prevalence- and bias-adjusted kappa (PABAK), the Brennan–Prediger free-marginal coefficient for q declared
 * categories, and Byrt, Bishop & Carlin's prevalence and bias indices (two raters, table form).
 *
 * Sources: Byrt T, Bishop J, Carlin JB (1993) J Clin Epidemiol 46:423–429; Brennan RL, Prediger DJ (1981)
 * Educ Psychol Meas 41:687–699; variance as irrCAC `bp2.table` (Gwet 2014, Handbook 4th ed.).
 * test/data/vectors/NOTES.md §3 "PABAK and Brennan–Prediger".
 */
import { type Estimate, type Table, REASONS, checkTable, studentTInterval, waldInterval } from "./types.js";

/** Brennan–Prediger / PABAK result. */
export interface BrennanPrediger extends Estimate {
  /** Number of declared categories q (the chance term is 1/q). */
  q: number;
  po: number | null;
  pe: number | null;
  /** Byrt et al. prevalence index (a − d)/n; null (reason `binary_table_only`) unless q = 2. */
  prevalence_index: number | null;
  /** Byrt et al. bias index (b − c)/n; null unless q = 2. */
  bias_index: number | null;
  index_reason?: string;
}

/**
 * Brennan–Prediger coefficient BP = (p_o − 1/q)/(1 − 1/q) with Var = p_o(1 − p_o)/(n(1 − 1/q)²); for q = 2
 * this is PABAK = 2p_o − 1, and the prevalence index PI = (a − d)/n and bias index BI = (b − c)/n are
 * reported (a, b, c, d = cells [0][0], [0][1], [1][0], [1][1]).
 *
 * @param table q × q counts over the DECLARED categories (q enters the chance term, so unused declared
 *   categories change the value, test/data/vectors/NOTES.md §0 "Notation and conventions").
 * @param opts.N population size for the finite-population factor (1 − n/N) (default ∞, as irrCAC).
 * @returns `ci_wald` (normal) and `ci_t` (irrCAC, t with n − 1 df, upper capped at 1 in `upper_clipped`).
 *   value null with `fewer_than_2_declared_categories` when q < 2, `empty_input` when n = 0; se null when n < 2.
 * @throws Error on a ragged/non-square/negative table.
 */
export function brennanPrediger(table: Table, opts: { N?: number; level?: number } = {}): BrennanPrediger {
  const q = checkTable(table);
  const level = opts.level ?? 0.95;
  let n = 0;
  let agree = 0;
  for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) n += table[i][j];
  for (let i = 0; i < q; i++) agree += table[i][i];
  const binary = q === 2;
  const res: BrennanPrediger = {
    value: null,
    n,
    q,
    po: n > 0 ? agree / n : null,
    pe: q >= 1 ? 1 / q : null,
    prevalence_index: null,
    bias_index: null,
    se: null,
    ci_wald: null,
    ci_t: null,
  };
  if (binary && n > 0) {
    res.prevalence_index = (table[0][0] - table[1][1]) / n;
    res.bias_index = (table[0][1] - table[1][0]) / n;
  } else {
    res.index_reason = n === 0 ? REASONS.empty : REASONS.notBinary;
  }
  if (q < 2) {
    res.reason = REASONS.qLt2;
    res.se_reason = REASONS.qLt2;
    return res;
  }
  if (n === 0) {
    res.reason = REASONS.empty;
    res.se_reason = REASONS.empty;
    return res;
  }
  const po = agree / n;
  const pe = 1 / q;
  res.value = (po - pe) / (1 - pe);
  if (n < 2) {
    res.se_reason = REASONS.nLt2;
    return res;
  }
  const f = opts.N ? n / opts.N : 0;
  const se = Math.sqrt(((1 - f) * po * (1 - po)) / (n * (1 - pe) * (1 - pe)));
  res.se = se;
  res.ci_wald = waldInterval(res.value, se, level);
  res.ci_t = studentTInterval(res.value, se, n - 1, level);
  if (se === 0) res.flags = ["degenerate_ci"];
  return res;
}

/** PABAK for a binary table: {@link brennanPrediger} restricted to q = 2. @throws Error unless the table is 2 × 2. */
export function pabak(table: Table, opts: { N?: number; level?: number } = {}): BrennanPrediger {
  if (checkTable(table) !== 2) throw new Error("pabak: PABAK is defined on a 2 x 2 table; use brennanPrediger for q categories");
  return brennanPrediger(table, opts);
}
