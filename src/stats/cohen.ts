/**
 * Cohen's kappa for two raters: unweighted and weighted (linear, quadratic, custom agreement weights), the
 * Fleiss–Cohen–Everitt (1969) large-sample non-null standard error (SAS PROC FREQ "ASE"), the null standard
 * error and z test, and the 95% Wald interval. Also Scott's pi (the m = 2 case of Fleiss' kappa).
 *
 * Sources: Cohen J (1960) Educ Psychol Meas 20:37–46; Cohen J (1968) Psychol Bull 70:213–220;
 * Fleiss JL, Cohen J, Everitt BS (1969) Psychol Bull 72:323–327; SAS/STAT PROC FREQ "Tests and Measures of
 * Agreement"; Cicchetti & Allison (1971) linear weights; Fleiss & Cohen (1973) quadratic weights;
 * Scott WA (1955) Public Opinion Quarterly 19:321–325. Formulas as written in test/data/vectors/NOTES.md §1 "Cohen's
 * kappa".
 */
import { normalUpperTail } from "./distributions.js";
import { type BootstrapOptions, bootstrapKappa } from "./bootstrap.js";
import { type WeightSpec, resolveWeights } from "./weights.js";
import { confusionMatrix } from "./confusion.js";
import { type PairLabelsOptions, pairLabels } from "./labels.js";
import {
  type Category,
  type Estimate,
  type Table,
  REASONS,
  cancelSafeDiff,
  checkTable,
  sqrtVar,
  studentTInterval,
  waldInterval,
} from "./types.js";

function weightName(spec: WeightSpec | undefined): string {
  return spec === undefined ? "unweighted" : typeof spec === "string" ? spec : "custom";
}

/** Cohen's kappa result (the shared {@link Estimate} plus the pieces reported by SAS/irr). */
export interface CohenKappa extends Estimate {
  weights: string;
  /** Observed (weighted) agreement p_o; null when n = 0. */
  po: number | null;
  /** Chance (weighted) agreement p_e; null when n = 0. */
  pe: number | null;
  /** Null-hypothesis (κ = 0) standard error, for the z test only (test/data/vectors/NOTES.md §1.2 "Null variance"). */
  se0: number | null;
  se0_reason?: string;
  /** z = κ / se0 (R irr's z; SAS "Z"). */
  z: number | null;
  z_reason?: string;
  /** 1 − Φ(z) (SAS "One-sided Pr > Z") and 2(1 − Φ(|z|)). */
  p_one_sided: number | null;
  p_two_sided: number | null;
}

/** Raw large-sample variances of κ̂ from the FCE (1969) formulas, before any n >= 2 guard. */
export interface KappaVariances {
  kappa: number;
  po: number;
  pe: number;
  /** Non-null variance (SAS ASE²). */
  var: number;
  /** Null variance (ASE₀²). */
  var0: number;
}

interface Core {
  q: number;
  n: number;
  p: number[][];
  rows: number[];
  cols: number[];
  w: number[][];
  po: number;
  pe: number;
}

function core(table: Table, spec: WeightSpec | undefined): Core {
  const q = checkTable(table);
  const w = resolveWeights(spec, q);
  let n = 0;
  for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) n += table[i][j];
  const p = table.map((r) => r.map((x) => (n > 0 ? x / n : 0)));
  const rows = p.map((r) => r.reduce((s, x) => s + x, 0));
  const cols = Array.from({ length: q }, (_, j) => p.reduce((s, r) => s + r[j], 0));
  let po = 0;
  let pe = 0;
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      po += w[i][j] * p[i][j];
      pe += w[i][j] * rows[i] * cols[j];
    }
  }
  return { q, n, p, rows, cols, w, po, pe };
}

function isOne(x: number): boolean {
  return Math.abs(1 - x) < 1e-14;
}

function variances(c: Core, kappa: number): { v: number; v0: number } {
  const { q, n, p, rows, cols, w, pe } = c;
  const wRow = Array.from({ length: q }, (_, i) => w[i].reduce((s, x, j) => s + x * cols[j], 0)); // w̄_i+
  const wCol = Array.from({ length: q }, (_, j) => w.reduce((s, r, i) => s + r[j] * rows[i], 0)); // w̄_+j
  let a = 0;
  let a0 = 0;
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      const d = w[i][j] - (wRow[i] + wCol[j]) * (1 - kappa);
      a += p[i][j] * d * d;
      const d0 = w[i][j] - (wRow[i] + wCol[j]);
      a0 += rows[i] * cols[j] * d0 * d0;
    }
  }
  const b = kappa - pe * (1 - kappa);
  const den = n * (1 - pe) * (1 - pe);
  return { v: cancelSafeDiff(a, b * b) / den, v0: cancelSafeDiff(a0, pe * pe) / den };
}

/**
 * The FCE (1969) non-null and null variances of (weighted) kappa exactly as the formulas give them, with no
 * guard on n (for n = 1 they are numbers without meaning; {@link cohenKappa} reports SE null there).
 * @returns null when n = 0 or p_e = 1 (κ undefined).
 * @throws Error on a bad table or weights.
 */
export function kappaVariances(table: Table, weights?: WeightSpec): KappaVariances | null {
  const c = core(table, weights);
  if (c.n === 0 || isOne(c.pe)) return null;
  const kappa = (c.po - c.pe) / (1 - c.pe);
  const { v, v0 } = variances(c, kappa);
  return { kappa, po: c.po, pe: c.pe, var: v, var0: v0 };
}

/**
 * Cohen's kappa κ = (p_o − p_e)/(1 − p_e) with p_o = Σ w_ij p_ij, p_e = Σ w_ij p_i+ p_+j (test/data/vectors/NOTES.md
 * §1 "Cohen's kappa"), its FCE (1969) non-null ASE, null ASE₀, z = κ/ASE₀ with one- and two-sided normal p-values,
 * and the Wald CI κ ± 1.959964·ASE (unclipped in `lower`/`upper`, clipped to [−1, 1] in `*_clipped`).
 *
 * @param table q × q counts over the declared categories (rows = first rater, columns = second).
 * @param opts.weights `unweighted` (default), `linear`, `quadratic`, or a q × q agreement-weight matrix.
 * @returns `value` null with `empty_input` (n = 0), `undefined_single_category` (unweighted p_e = 1: both
 *   raters used one and the same category), `undefined_chance_agreement_1` (weighted p_e = 1) or
 *   `fewer_than_2_declared_categories` (linear/quadratic with q = 1). `se` null with `n_lt_2` when n < 2.
 *   When ASE = 0 the Wald CI is degenerate: `ci_wald.degenerate` and flag `degenerate_ci`. When ASE₀ = 0,
 *   z is null with `se_zero` (e.g. one rater constant: κ = 0 and z = 0/0). `ci_t` is the irrCAC variant
 *   (`kappa2.table`): κ ± t_{0.975, n−1}·ASE, irrCAC capping only the upper end at 1 (`upper_clipped`).
 * @param opts.bootstrap when given ({B, seed, resampling}), also a percentile bootstrap CI over items in
 *   `ci_bootstrap` (see `bootstrapKappa`: seed recorded, undefined resamples counted, type-1 quantiles).
 * @throws Error on a ragged/non-square/negative table or invalid weights.
 */
export function cohenKappa(
  table: Table,
  opts: { weights?: WeightSpec; level?: number; bootstrap?: Omit<BootstrapOptions, "level"> } = {},
): CohenKappa {
  const res = cohenKappaCore(table, opts);
  if (opts.bootstrap && res.reason !== REASONS.qLt2) {
    const { replicates: _omit, ...ci } = bootstrapKappa(table, { ...opts.bootstrap, weights: opts.weights, level: opts.level });
    res.ci_bootstrap = ci;
  }
  return res;
}

function cohenKappaCore(table: Table, opts: { weights?: WeightSpec; level?: number }): CohenKappa {
  const level = opts.level ?? 0.95;
  const q = checkTable(table);
  const name = weightName(opts.weights);
  const base = (n: number, reason: string, po: number | null, pe: number | null): CohenKappa => ({
    value: null,
    reason,
    n,
    weights: name,
    po,
    pe,
    se: null,
    se_reason: reason,
    se0: null,
    se0_reason: reason,
    z: null,
    z_reason: reason,
    p_one_sided: null,
    p_two_sided: null,
    ci_wald: null,
    ci_t: null,
  });
  if (q < 2 && typeof opts.weights === "string" && opts.weights !== "unweighted") {
    let n = 0;
    for (const r of table) for (const x of r) n += x;
    return base(n, REASONS.qLt2, null, null);
  }
  const c = core(table, opts.weights);
  if (c.n === 0) return base(0, REASONS.empty, null, null);
  if (isOne(c.pe)) return base(c.n, name === "unweighted" ? REASONS.singleCategory : REASONS.pe1, c.po, c.pe);

  const kappa = (c.po - c.pe) / (1 - c.pe);
  const res: CohenKappa = {
    value: kappa,
    n: c.n,
    weights: name,
    po: c.po,
    pe: c.pe,
    se: null,
    se0: null,
    z: null,
    p_one_sided: null,
    p_two_sided: null,
    ci_wald: null,
    ci_t: null,
  };
  if (c.n < 2) {
    res.se_reason = REASONS.nLt2;
    res.se0_reason = REASONS.nLt2;
    res.z_reason = REASONS.nLt2;
    return res;
  }
  const { v, v0 } = variances(c, kappa);
  const se = sqrtVar(v);
  const se0 = sqrtVar(v0);
  res.se = se;
  res.se0 = se0;
  res.ci_wald = waldInterval(kappa, se, level);
  res.ci_t = studentTInterval(kappa, se, c.n - 1, level);
  const flags: string[] = [];
  if (se === 0) flags.push("degenerate_ci");
  if (se0 === 0) {
    res.z_reason = REASONS.seZero;
    flags.push("z_undefined");
  } else {
    const z = kappa / se0;
    res.z = z;
    res.p_one_sided = normalUpperTail(z);
    res.p_two_sided = Math.min(1, 2 * normalUpperTail(Math.abs(z)));
  }
  if (flags.length) res.flags = flags;
  return res;
}

/** Result of {@link cohenKappaFromLabels}: kappa plus the table and the pairing report. */
export interface CohenKappaFromLabels extends CohenKappa {
  table: number[][];
  categories: Category[];
  n_total: number;
  n_excluded: number;
  excluded: Record<string, number>;
}

/**
 * Cohen's kappa straight from two raters' labels: drops non-label pairs with {@link pairLabels} (listwise
 * deletion; judge errors/refusals/missing are counted, never labels), builds the table over the declared
 * categories, and calls {@link cohenKappa}.
 *
 * @param a first rater's labels (rows), b second rater's (columns), aligned by item.
 * @param categories declared category set in order.
 * @param opts weights/level as {@link cohenKappa}; pairing options as {@link PairLabelsOptions} (`categories` is set from the argument).
 * @throws Error when lengths differ or a label is outside the declared set (unless `onUnknown: "drop"`).
 */
export function cohenKappaFromLabels(
  a: readonly (Category | null | undefined)[],
  b: readonly (Category | null | undefined)[],
  categories: readonly Category[],
  opts: { weights?: WeightSpec; level?: number; bootstrap?: Omit<BootstrapOptions, "level"> } & Omit<PairLabelsOptions, "categories"> = {},
): CohenKappaFromLabels {
  const paired = pairLabels(a, b, { ...opts, categories });
  const cm = confusionMatrix(paired.a, paired.b, categories);
  const k = cohenKappa(cm.table, opts);
  return {
    ...k,
    table: cm.table,
    categories: [...categories],
    n_total: paired.n_total,
    n_excluded: paired.n_excluded,
    excluded: paired.excluded,
  };
}

/** Scott's pi result. */
export interface ScottPi extends Estimate {
  po: number | null;
  pe: number | null;
}

/**
 * Scott's pi for two raters: π_k = (p_k+ + p_+k)/2, p_e = Σ π_k², π = (p_o − p_e)/(1 − p_e)
 * (Scott 1955; equals Fleiss' kappa with m = 2, test/data/vectors/NOTES.md §5 "Fleiss' kappa"). Point estimate only.
 * @returns value null with `empty_input` or `undefined_single_category` (p_e = 1).
 * @throws Error on a bad table.
 */
export function scottPi(table: Table): ScottPi {
  const c = core(table, "unweighted");
  if (c.n === 0) return { value: null, reason: REASONS.empty, n: 0, po: null, pe: null };
  let pe = 0;
  for (let k = 0; k < c.q; k++) {
    const pi = (c.rows[k] + c.cols[k]) / 2;
    pe += pi * pi;
  }
  if (isOne(pe)) return { value: null, reason: REASONS.singleCategory, n: c.n, po: c.po, pe };
  return { value: (c.po - pe) / (1 - pe), n: c.n, po: c.po, pe };
}
