/**
 * Many-rater agreement coefficients with missing ratings, in Gwet's generalised (irrCAC) form, with Gwet's
 * linearised standard errors: percent agreement, Gwet's AC1, generalised Fleiss' kappa, Brennan–Prediger,
 * Krippendorff's alpha (Gwet's formulation and SE) and Conger's kappa. Unweighted (nominal) only.
 *
 * Input is the items × categories rating-count matrix (`ratingCounts`), except Conger's kappa which needs
 * to know which rater gave which rating. Items nobody rated (r_i = 0) are dropped and counted.
 *
 * Sources: Gwet KL (2008) Br J Math Stat Psychol 61:29–48; Gwet KL (2014) Handbook of Inter-Rater
 * Reliability, 4th ed.; Fleiss JL (1971) Psychol Bull 76:378–382; Brennan & Prediger (1981) Educ Psychol
 * Meas 41:687–699; Conger AJ (1980) Psychol Bull 88:322–328; Krippendorff K (2011) Computing Krippendorff's
 * alpha-reliability. Code: github kgwet/irrCAC R/agree.coeff3.raw.r (`pa.coeff.raw`, `gwet.ac1.raw`,
 * `fleiss.kappa.raw`, `bp.coeff.raw`, `krippen.alpha.raw`, `conger.kappa.raw`) and R/agree.coeff3.dist.r
 * (`krippen.alpha.dist`). Formulas as written in test/data/vectors/NOTES.md §4 "Gwet's AC1".
 *
 * Inference as irrCAC: SE from the linearised per-item values, Var = (1 − f)/(n(n − 1)) Σ (x_i − θ)² with
 * f = n/N (N = ∞ by default); t interval θ ± t_{0.975, n−1}·SE with the upper end capped at 1
 * (`ci_t.upper_clipped`); one-sided p = P(T_{n−1} > θ/SE) (R irrCAC) and two-sided = 2× that.
 */
import { categoryIndex } from "./labels.js";
import { studentTUpperTail } from "./distributions.js";
import { type Category, type Estimate, type Table, REASONS, checkCounts, sqrtVar, studentTInterval, waldInterval } from "./types.js";

/** Result of a many-rater coefficient (irrCAC form). */
export interface MultiRaterEstimate extends Estimate {
  coefficient: "percent_agreement" | "gwet_ac1" | "fleiss_kappa_generalized" | "brennan_prediger" | "krippendorff_alpha" | "conger_kappa";
  /** Observed agreement p_a (pairwise, averaged over items with ≥ 2 ratings). */
  pa: number | null;
  /** Chance agreement p_e of this coefficient (0 for percent agreement). */
  pe: number | null;
  q: number;
  /** Items with at least one rating (n) and with at least two (n₂, the items that carry agreement). */
  n_pairable: number;
  /** Items given with no rating at all, dropped. */
  n_dropped_unrated: number;
  /** t = value/se with df = n − 1; p-values as irrCAC (one-sided) and its double. */
  t: number | null;
  df: number | null;
  p_one_sided: number | null;
  p_two_sided: number | null;
}

/** Options shared by the many-rater coefficients. */
export interface MultiRaterOptions {
  /** Population size for the finite-population factor (1 − n/N). Default ∞. */
  N?: number;
  level?: number;
}

interface Prepared {
  /** brand: a table already prepared (`prepareCounts`) */
  readonly prepared: true;
  counts: ReadonlyArray<readonly number[]>;
  q: number;
  n: number;
  nDropped: number;
  r: number[];
  n2: number;
  /** p_a|i (0 when r_i < 2) */
  paI: number[];
  pa: number;
  /** π_k = (1/n) Σ_i r_ik / r_i */
  pi: number[];
}

function prepare(countsIn: Table): Prepared {
  const q = checkCounts(countsIn);
  // the rated rows, only read: no copy of a row (rows may be shared, a million items), and the table itself when
  // no row is unrated (a million row references not copied)
  const rated = (row: readonly number[]) => row.reduce((s, x) => s + x, 0) > 0;
  let nDropped = 0;
  for (const row of countsIn) if (!rated(row)) nDropped++;
  const counts: ReadonlyArray<readonly number[]> = nDropped === 0 ? countsIn : countsIn.filter(rated);
  const n = counts.length;
  const r = counts.map((row) => row.reduce((s, x) => s + x, 0));
  const paI = counts.map((row, i) => {
    if (r[i] < 2) return 0;
    let s = 0;
    for (const x of row) s += x * (x - 1);
    return s / (r[i] * (r[i] - 1));
  });
  let n2 = 0;
  let paSum = 0;
  for (let i = 0; i < n; i++) {
    if (r[i] >= 2) {
      n2++;
      paSum += paI[i];
    }
  }
  const pi = new Array<number>(q).fill(0);
  for (let i = 0; i < n; i++) for (let k = 0; k < q; k++) pi[k] += counts[i][k] / r[i] / n;
  return { prepared: true, counts, q, n, nDropped, r, n2, paI, pa: n2 > 0 ? paSum / n2 : NaN, pi };
}

/**
 * A rating-count table checked and reduced once (rated rows, per-item totals and pairwise agreement, category
 * shares), for several coefficients of the same table: `percentAgreementRaw`, `gwetAC1Raw`,
 * `fleissKappaGeneralized`, `brennanPredigerRaw` and `krippendorffAlphaGwet` take it in place of the table and give
 * the same results, without each re-reducing the table (on a million items each pass allocated ~24 MB of
 * per-item arrays). The table's rows must not change while it is in use.
 * @throws Error on a ragged or negative matrix.
 */
export type PreparedCounts = Readonly<Prepared>;
export function prepareCounts(counts: Table): PreparedCounts {
  return prepare(counts);
}

const prepared = (c: Table | PreparedCounts): Prepared =>
  typeof c === "object" && c !== null && !Array.isArray(c) && (c as Prepared).prepared === true ? (c as Prepared) : prepare(c as Table);

function emptyResult(coefficient: MultiRaterEstimate["coefficient"], p: Prepared, reason: string): MultiRaterEstimate {
  return {
    coefficient,
    value: null,
    reason,
    n: p.n,
    q: p.q,
    n_pairable: p.n2,
    n_dropped_unrated: p.nDropped,
    pa: p.n2 > 0 ? p.pa : null,
    pe: null,
    se: null,
    se_reason: reason,
    ci_wald: null,
    ci_t: null,
    t: null,
    df: null,
    p_one_sided: null,
    p_two_sided: null,
  };
}

/** Fill SE, intervals and tests from linearised per-item values x_i around `center` (irrCAC). */
function inference(
  res: MultiRaterEstimate,
  x: { n: number; at: (i: number) => number },
  center: number,
  nVar: number,
  df: number,
  opts: MultiRaterOptions,
): MultiRaterEstimate {
  const level = opts.level ?? 0.95;
  if (nVar < 2) {
    res.se_reason = REASONS.nLt2;
    return res;
  }
  const f = opts.N ? res.n / opts.N : 0;
  let ss = 0;
  for (let i = 0; i < x.n; i++) {
    const xi = x.at(i);
    ss += (xi - center) * (xi - center);
  }
  const se = sqrtVar(((1 - f) * ss) / (nVar * (nVar - 1)));
  const value = res.value as number;
  res.se = se;
  res.df = df;
  res.ci_t = studentTInterval(value, se, df, level);
  res.ci_wald = waldInterval(value, se, level);
  if (se === 0) {
    res.flags = ["degenerate_ci"];
    return res;
  }
  res.t = value / se;
  res.p_one_sided = studentTUpperTail(res.t, df);
  res.p_two_sided = Math.min(1, 2 * studentTUpperTail(Math.abs(res.t), df));
  return res;
}

function base(coefficient: MultiRaterEstimate["coefficient"], p: Prepared, value: number, pe: number): MultiRaterEstimate {
  return {
    coefficient,
    value,
    n: p.n,
    q: p.q,
    n_pairable: p.n2,
    n_dropped_unrated: p.nDropped,
    pa: p.pa,
    pe,
    se: null,
    ci_wald: null,
    ci_t: null,
    t: null,
    df: null,
    p_one_sided: null,
    p_two_sided: null,
  };
}

/** Generic chance-corrected coefficient with p_e and per-item p_e|i (irrCAC structure shared by AC1/Fleiss/BP). */
function chanceCorrected(
  coefficient: MultiRaterEstimate["coefficient"],
  p: Prepared,
  pe: number,
  peI: ((i: number) => number) | null,
  opts: MultiRaterOptions,
  undefinedReason: string,
): MultiRaterEstimate {
  if (Math.abs(1 - pe) < 1e-14) {
    const r = emptyResult(coefficient, p, undefinedReason);
    r.pe = pe;
    return r;
  }
  const value = (p.pa - pe) / (1 - pe);
  const res = base(coefficient, p, value, pe);
  // per-item linearised values, made as the variance reads them (no array of a million numbers)
  const at = (i: number) => {
    const ci = ((p.n / p.n2) * (p.paI[i] - (p.r[i] >= 2 ? pe : 0))) / (1 - pe);
    return peI ? ci - (2 * (1 - value) * (peI(i) - pe)) / (1 - pe) : ci;
  };
  return inference(res, { n: p.paI.length, at }, value, p.n, p.n - 1, opts);
}

function guard(coefficient: MultiRaterEstimate["coefficient"], p: Prepared, needQ2: boolean): MultiRaterEstimate | null {
  if (p.n === 0) return emptyResult(coefficient, p, REASONS.empty);
  if (p.n2 === 0) return emptyResult(coefficient, p, REASONS.noPairable);
  if (needQ2 && p.q < 2) return emptyResult(coefficient, p, REASONS.qLt2);
  return null;
}

/**
 * Many-rater percent agreement p_a = mean over items with r_i >= 2 of Σ_k r_ik(r_ik − 1)/(r_i(r_i − 1))
 * (pairwise agreement P̄, not the unanimity rate), with irrCAC `pa.coeff.raw` SE.
 * @param counts items × categories rating counts (rows may have different totals; 0-rows are dropped).
 * @returns value null with `empty_input` or `no_pairable_units` (no item has two ratings).
 * @throws Error on a ragged or negative matrix.
 */
export function percentAgreementRaw(counts: Table | PreparedCounts, opts: MultiRaterOptions = {}): MultiRaterEstimate {
  const p = prepared(counts);
  const g = guard("percent_agreement", p, false);
  if (g) return g;
  const res = base("percent_agreement", p, p.pa, 0);
  return inference(res, { n: p.paI.length, at: (i) => (p.n / p.n2) * p.paI[i] }, p.pa, p.n, p.n - 1, opts);
}

/**
 * Gwet's AC1 for any number of raters with missing ratings (irrCAC `gwet.ac1.raw`; test/data/vectors/NOTES.md §4
 * "Gwet's AC1"): p_e = Σ π_k(1 − π_k)/(q − 1), π_k = (1/n) Σ_i r_ik/r_i;
 * SE from AC1*_i = AC1_i − 2(1 − AC1)(p_e|i − p_e)/(1 − p_e).
 * @param counts items × DECLARED categories rating counts (q = number of columns enters p_e).
 * @returns value null with `empty_input`, `no_pairable_units` or `fewer_than_2_declared_categories`.
 * @throws Error on a ragged or negative matrix.
 */
export function gwetAC1Raw(counts: Table | PreparedCounts, opts: MultiRaterOptions = {}): MultiRaterEstimate {
  const p = prepared(counts);
  const g = guard("gwet_ac1", p, true);
  if (g) return g;
  const q = p.q;
  let pe = 0;
  for (const x of p.pi) pe += x * (1 - x);
  pe /= q - 1;
  const peI = (i: number) => {
    let s = 0;
    for (let k = 0; k < q; k++) s += p.counts[i][k] * (1 - p.pi[k]);
    return s / (p.r[i] * (q - 1));
  };
  return chanceCorrected("gwet_ac1", p, pe, peI, opts, REASONS.pe1);
}

/**
 * Generalised Fleiss' kappa for any number of raters with missing ratings (irrCAC `fleiss.kappa.raw`):
 * p_e = Σ π_k², p_e|i = Σ_k r_ik π_k / r_i. Equals classic Fleiss' kappa when every item has the same m.
 * @returns value null with `undefined_single_category` when p_e = 1 (every rating in one category).
 * @throws Error on a ragged or negative matrix.
 */
export function fleissKappaGeneralized(counts: Table | PreparedCounts, opts: MultiRaterOptions = {}): MultiRaterEstimate {
  const p = prepared(counts);
  const g = guard("fleiss_kappa_generalized", p, false);
  if (g) return g;
  let pe = 0;
  for (const x of p.pi) pe += x * x;
  const peI = (i: number) => {
    let s = 0;
    for (let k = 0; k < p.q; k++) s += p.counts[i][k] * p.pi[k];
    return s / p.r[i];
  };
  return chanceCorrected("fleiss_kappa_generalized", p, pe, peI, opts, REASONS.singleCategory);
}

/**
 * Brennan–Prediger coefficient for any number of raters (irrCAC `bp.coeff.raw`): p_e = 1/q with q the number
 * of DECLARED categories (columns); SE without the p_e correction term.
 * @returns value null with `empty_input`, `no_pairable_units` or `fewer_than_2_declared_categories`.
 * @throws Error on a ragged or negative matrix.
 */
export function brennanPredigerRaw(counts: Table | PreparedCounts, opts: MultiRaterOptions = {}): MultiRaterEstimate {
  const p = prepared(counts);
  const g = guard("brennan_prediger", p, true);
  if (g) return g;
  return chanceCorrected("brennan_prediger", p, 1 / p.q, null, opts, REASONS.pe1);
}

/**
 * Krippendorff's alpha (nominal) in Gwet's formulation with Gwet's linearised SE. The point value equals
 * Krippendorff's α (see `krippendorffAlpha`): units with fewer than 2 ratings are dropped, r̄ = mean r_i,
 * ε = 1/Σ r_i, p_a' = mean_i Σ_k r_ik(r_ik − 1)/(r̄(r_i − 1)), p_a = (1 − ε)p_a' + ε, π_k = mean_i r_ik/r̄,
 * p_e = Σ π_k², α = (p_a − p_e)/(1 − p_e).
 *
 * The SE has two published irrCAC variants (Gwet K L 2014, Handbook of Inter-Rater Reliability, 4th ed., ch. 5; the
 * irrCAC R package's functions): `raw` (`krippen.alpha.raw`: unit values α_i = (p_a,i − p_e)/(1 − p_e) −
 * 2(1 − α')(p_e,i − p_e)/(1 − p_e), centred at α' = (p_a' − p_e)/(1 − p_e); checked against irrCAC on
 * test/data/vectors/krippendorff_canonical_4coders_12units.json) and `dist` (`krippen.alpha.dist`: centred at α,
 * factor 1 and ε kept in p_a,i; checked on multirater_distrib6raters_irrcac.json, SE 0.08243 where `raw` gives
 * 0.08119). SE² = (1 − f) Σ(α_i − centre)²/(n(n − 1)) over the n pairable units; the t interval uses n₀ − 1 df
 * (`raw`; n₀ = units with at least one rating) or n − 1 (`dist`). The CLI (`agreement`, `committee`)
 * prints the `raw` SE and interval (docs/agreement.md).
 *
 * @param opts.variant `raw` (default) or `dist`.
 * @returns value null with `empty_input`, `no_pairable_units` or `undefined_single_value` (p_e = 1).
 * @throws Error on a ragged or negative matrix.
 */
export function krippendorffAlphaGwet(
  counts: Table | PreparedCounts,
  opts: MultiRaterOptions & { variant?: "raw" | "dist" } = {},
): MultiRaterEstimate {
  const all = prepared(counts);
  const g = guard("krippendorff_alpha", all, false);
  if (g) return g;
  const n0 = all.n;
  // the units: the rated items with r_i >= 2, in order, read in place (no per-unit arrays: a million items made
  // ~40 MB of them); every sum below runs over the units in the same order as before, so the values are the same
  const rows = all.counts;
  const rOf = all.r;
  let n = 0;
  let rSum = 0;
  for (let i = 0; i < rows.length; i++) {
    if (rOf[i] < 2) continue;
    n++;
    rSum += rOf[i];
  }
  const q = all.q;
  const rbar = rSum / n;
  const eps = 1 / rSum;
  const sumQ = (row: readonly number[]) => {
    let s = 0;
    for (const x of row) s = s + x * (x - 1);
    return s;
  };
  const paI0 = (i: number) => sumQ(rows[i]) / (rbar * (rOf[i] - 1));
  let paSum = 0;
  for (let i = 0; i < rows.length; i++) if (rOf[i] >= 2) paSum += paI0(i);
  const paPrime = paSum / n;
  const pa = (1 - eps) * paPrime + eps;
  const pi = new Array<number>(q).fill(0);
  for (let i = 0; i < rows.length; i++) {
    if (rOf[i] < 2) continue;
    const row = rows[i];
    for (let k = 0; k < q; k++) pi[k] += row[k] / rbar / n;
  }
  let pe = 0;
  for (const x of pi) pe += x * x;
  if (Math.abs(1 - pe) < 1e-14) {
    const res = emptyResult("krippendorff_alpha", all, REASONS.singleValue);
    res.pa = pa;
    res.pe = pe;
    return res;
  }
  const alpha = (pa - pe) / (1 - pe);
  const alphaPrime = (paPrime - pe) / (1 - pe);
  const res = base("krippendorff_alpha", all, alpha, pe);
  res.pa = pa;
  res.n_pairable = n;
  const piSum = pi.reduce((s, x) => s + x, 0);
  // item i's linearised value (i a unit)
  const x = (i: number) => {
    const row = rows[i];
    const ri = rOf[i];
    let wpi = 0;
    for (let k = 0; k < q; k++) wpi += row[k] * pi[k];
    if (opts.variant === "dist") {
      const paI = (1 - eps) * (paI0(i) - (paPrime * (ri - rbar)) / rbar) + eps;
      const peI = wpi / rbar - (piSum * (ri - rbar)) / rbar;
      return (paI - pe) / (1 - pe) - ((1 - alpha) * (peI - pe)) / (1 - pe);
    }
    const paI = paI0(i) - (paPrime * (ri - rbar)) / rbar;
    const peI = wpi / rbar - (pe * (ri - rbar)) / rbar;
    return (paI - pe) / (1 - pe) - (2 * (1 - alphaPrime) * (peI - pe)) / (1 - pe);
  };
  const center = opts.variant === "dist" ? alpha : alphaPrime;
  // irrCAC: variance over the n pairable units (fpc f = n0/N), t with n0 − 1 df.
  const level = opts.level ?? 0.95;
  if (n < 2) {
    res.se_reason = REASONS.nLt2;
    return res;
  }
  const f = opts.N ? n0 / opts.N : 0;
  let ss = 0;
  for (let i = 0; i < rows.length; i++) {
    if (rOf[i] < 2) continue;
    const xi = x(i);
    ss += (xi - center) * (xi - center);
  }
  const se = sqrtVar(((1 - f) * ss) / (n * (n - 1)));
  res.se = se;
  const df = opts.variant === "dist" ? n - 1 : n0 - 1;
  res.df = df;
  res.ci_t = studentTInterval(alpha, se, df, level);
  res.ci_wald = waldInterval(alpha, se, level);
  if (se === 0) res.flags = ["degenerate_ci"];
  else {
    res.t = alpha / se;
    res.p_one_sided = studentTUpperTail(res.t, df);
    res.p_two_sided = Math.min(1, 2 * studentTUpperTail(Math.abs(res.t), df));
  }
  return res;
}

/**
 * Conger's (1980) kappa for any number of raters with missing ratings, with Gwet's SE (irrCAC
 * `conger.kappa.raw`, unweighted). Chance agreement uses each rater's own marginals:
 * p_e = Σ_k (p̄_k² − s²_k/r), p̄_k = mean over raters of p_gk, s²_k their variance.
 *
 * @param ratings items × raters (`null`/`undefined` = not rated); all rows must have the same number of raters.
 * @param categories declared category set.
 * @returns value null with `empty_input`, `no_pairable_units` or `undefined_chance_agreement_1`.
 * @throws Error on ragged rows, fewer than 2 raters, or a rating outside the declared set.
 */
export function congerKappa(
  ratings: readonly (readonly (Category | null | undefined)[])[],
  categories: readonly Category[],
  opts: MultiRaterOptions = {},
): MultiRaterEstimate {
  const index = categoryIndex(categories);
  const q = categories.length;
  const raters = ratings.length > 0 ? ratings[0].length : 0;
  if (ratings.some((row) => row.length !== raters)) throw new Error("congerKappa: every item needs the same number of rater columns");
  const rows = ratings.filter((row) => row.some((v) => v !== null && v !== undefined));
  const codes = rows.map((row, i) =>
    row.map((v, g) => {
      if (v === null || v === undefined) return -1;
      const k = index.get(v);
      if (k === undefined) throw new Error(`congerKappa: item ${i}, rater ${g}: rating ${JSON.stringify(v)} outside the declared categories`);
      return k;
    }),
  );
  const counts = codes.map((row) => {
    const c = new Array<number>(q).fill(0);
    for (const k of row) if (k >= 0) c[k]++;
    return c;
  });
  const p = prepare(counts);
  p.nDropped = ratings.length - rows.length;
  const g = guard("conger_kappa", p, false);
  if (g) return g;
  if (raters < 2) throw new Error("congerKappa: need at least 2 raters");
  const n = p.n;
  const R = raters;
  // classif[g][k]: items rater g put in k; ng[g]: items rater g rated; pgk = classif/ng
  const classif = Array.from({ length: R }, () => new Array<number>(q).fill(0));
  for (const row of codes) row.forEach((k, gi) => k >= 0 && classif[gi][k]++);
  const ng = classif.map((c) => c.reduce((s, x) => s + x, 0));
  const pgk = classif.map((c, gi) => c.map((x) => (ng[gi] > 0 ? x / ng[gi] : 0)));
  const pbar = Array.from({ length: q }, (_, k) => pgk.reduce((s, row) => s + row[k], 0) / R);
  let pe = 0;
  for (let k = 0; k < q; k++) {
    let ss = 0;
    for (let gi = 0; gi < R; gi++) ss += pgk[gi][k] * pgk[gi][k];
    const s2kk = (ss - R * pbar[k] * pbar[k]) / (R - 1);
    pe += pbar[k] * pbar[k] - s2kk / R;
  }
  if (Math.abs(1 - pe) < 1e-14) {
    const res = emptyResult("conger_kappa", p, REASONS.pe1);
    res.pe = pe;
    return res;
  }
  const kappa = (p.pa - pe) / (1 - pe);
  const res = base("conger_kappa", p, kappa, pe);
  // pe.ivec (irrCAC): λ_ig = Σ_k [(δ_ig,k − (ε_ig − n_g/n) p_gk) n/n_g] (Σ_g' p_g'k − p_gk); pe_i = Σ_g λ_ig / (r(r−1))
  const colSum = Array.from({ length: q }, (_, k) => pgk.reduce((s, row) => s + row[k], 0));
  const x = codes.map((row, i) => {
    let lam = 0;
    for (let gi = 0; gi < R; gi++) {
      if (ng[gi] === 0) continue;
      const rated = row[gi] >= 0 ? 1 : 0;
      for (let k = 0; k < q; k++) {
        const delta = row[gi] === k ? 1 : 0;
        const l = ((delta - (rated - ng[gi] / n) * pgk[gi][k]) * n) / ng[gi];
        lam += l * (colSum[k] - pgk[gi][k]);
      }
    }
    const peI = lam / (R * (R - 1));
    const ci = ((n / p.n2) * (p.paI[i] - (p.r[i] >= 2 ? pe : 0))) / (1 - pe);
    return ci - (2 * (1 - kappa) * (peI - pe)) / (1 - pe);
  });
  return inference(res, { n: x.length, at: (i) => x[i] }, kappa, n, n - 1, opts);
}
