/**
 * Gwet's AC1 for two raters from their contingency table, with Gwet's (2008) variance (irrCAC
 * `gwet.ac1.table`). The many-rater, missing-data form (irrCAC `gwet.ac1.raw`) is in `multirater.ts`.
 *
 * Source: Gwet KL (2008) Computing inter-rater reliability and its variance in the presence of high
 * agreement. Br J Math Stat Psychol 61:29–48; Gwet KL (2014) Handbook of Inter-Rater Reliability, 4th ed.;
 * github kgwet/irrCAC R/agree.coeff2.r. Formulas as written in test/data/vectors/NOTES.md §4 "Gwet's AC1".
 */
import { type Estimate, type Table, REASONS, cancelSafeDiff, checkTable, sqrtVar, studentTInterval, waldInterval } from "./types.js";

/** Gwet AC1 result (two raters). */
export interface GwetAC1 extends Estimate {
  q: number;
  po: number | null;
  /** Chance agreement p_e^γ = Σ π_k(1 − π_k)/(q − 1). */
  pe: number | null;
}

/**
 * Gwet's AC1 for two raters: π_k = (p_k+ + p_+k)/2, p_e = Σ π_k(1 − π_k)/(q − 1), AC1 = (p_o − p_e)/(1 − p_e),
 * Var = (1−f)/(n(1−p_e)²)·[Σ_kl p_kl(δ_kl − 2(1−AC1)(1 − (π_k+π_l)/2)/(q−1))² − (p_o − 2(1−AC1)p_e)²].
 *
 * @param table q × q counts over the DECLARED categories (q enters p_e: unused declared categories change AC1).
 * @param opts.N population size for the factor (1 − n/N) (default ∞).
 * @returns `ci_wald` and the irrCAC `ci_t` (t, n − 1 df). value null with `fewer_than_2_declared_categories`
 *   (q < 2) or `empty_input` (n = 0); se null when n < 2. All items in one category gives p_e = 0, AC1 = p_o = 1.
 * @throws Error on a ragged/non-square/negative table.
 */
export function gwetAC1(table: Table, opts: { N?: number; level?: number } = {}): GwetAC1 {
  const q = checkTable(table);
  const level = opts.level ?? 0.95;
  let n = 0;
  for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) n += table[i][j];
  const res: GwetAC1 = { value: null, n, q, po: null, pe: null, se: null, ci_wald: null, ci_t: null };
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
  const p = table.map((r) => r.map((x) => x / n));
  const rows = p.map((r) => r.reduce((s, x) => s + x, 0));
  const cols = Array.from({ length: q }, (_, j) => p.reduce((s, r) => s + r[j], 0));
  const pi = rows.map((r, k) => (r + cols[k]) / 2);
  let po = 0;
  for (let k = 0; k < q; k++) po += p[k][k];
  let pe = 0;
  for (let k = 0; k < q; k++) pe += pi[k] * (1 - pi[k]);
  pe /= q - 1;
  const ac1 = (po - pe) / (1 - pe);
  res.po = po;
  res.pe = pe;
  res.value = ac1;
  if (n < 2) {
    res.se_reason = REASONS.nLt2;
    return res;
  }
  let a = 0;
  for (let k = 0; k < q; k++) {
    for (let l = 0; l < q; l++) {
      if (p[k][l] === 0) continue;
      const d = (k === l ? 1 : 0) - (2 * (1 - ac1) * (1 - (pi[k] + pi[l]) / 2)) / (q - 1);
      a += p[k][l] * d * d;
    }
  }
  const b = po - 2 * (1 - ac1) * pe;
  const f = opts.N ? n / opts.N : 0;
  const v = ((1 - f) * cancelSafeDiff(a, b * b)) / (n * (1 - pe) * (1 - pe));
  const se = sqrtVar(v);
  res.se = se;
  res.ci_wald = waldInterval(ac1, se, level);
  res.ci_t = studentTInterval(ac1, se, n - 1, level);
  if (se === 0) res.flags = ["degenerate_ci"];
  return res;
}
