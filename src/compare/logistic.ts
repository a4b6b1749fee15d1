/**
 * Binomial logistic regression by iteratively reweighted least squares (IRLS), with a singular-safe solver,
 * and the likelihood-ratio test of a model x condition interaction.
 *
 * The solver is Householder QR with column pivoting (Businger & Golub 1965; Golub & Van Loan, Matrix
 * Computations, 4th ed., section 5.4.2): columns whose remaining norm falls below `tol` times the largest
 * column norm are declared aliased and get a zero coefficient, so a rank-deficient design (empty cells,
 * dummies that are linear combinations of others: suite and suite-qualified injection task) never fails. No
 * ridge: the fit is the plain maximum-likelihood fit on the estimable columns.
 *
 * Data are grouped binomial: row r has `trials[r]` Bernoulli outcomes of which `successes[r]` are 1. Grouping
 * identical covariate patterns gives the same maximum-likelihood estimates and the same deviance differences
 * as one row per trajectory (the saturated-model terms cancel in a difference), and is much faster.
 *
 * IRLS (McCullagh & Nelder 1989, Generalized Linear Models, 2nd ed., section 4.4; as R's `glm.fit`):
 * start μ = (y + 0.5)/(n + 1); each step w = n·μ(1−μ), z = η + (y/n − μ)/(μ(1−μ)), β = argmin ‖√w (z − Xβ)‖;
 * stop when |D − D_old| / (|D| + 0.1) < `epsilon` (R's rule) or after `maxIter` steps. A step that raises the
 * deviance is halved (up to 30 times). Binomial deviance: D = 2 Σ [y log(y/(nμ)) + (n−y) log((n−y)/(n(1−μ)))],
 * with 0·log 0 = 0.
 */
import { gammaQ } from "../stats/distributions.js";

/** A dense n x p design matrix, row-major (`x[r * p + c]`). */
export interface Design {
  n: number;
  p: number;
  x: Float64Array;
  /** Column names, length p. */
  names: string[];
}

/** Result of a pivoted QR factorization (Householder vectors stored below the diagonal of `qr`). */
export interface PivotedQR {
  m: number;
  p: number;
  /** Column-major m x p: R on and above the diagonal, Householder vectors below. */
  qr: Float64Array;
  /** Householder scalars (one per reflection). */
  beta: Float64Array;
  /** `perm[k]` = original column index now in position k. */
  perm: number[];
  /** Numerical rank: number of leading columns kept. */
  rank: number;
}

/**
 * Householder QR with column pivoting of an m x p matrix (column-major copy made internally).
 * At step k the remaining column with the largest norm is swapped in; the factorization stops when that norm
 * is <= tol·(largest initial column norm), and the rank is k. Source: Golub & Van Loan, Algorithm 5.4.1.
 * @param a column-major m x p matrix (not modified).
 * @param tol relative tolerance for rank (default 1e-9).
 * @returns {@link PivotedQR}; rank 0 for an all-zero matrix.
 */
export function qrPivoted(a: Float64Array, m: number, p: number, tol = 1e-9): PivotedQR {
  const qr = Float64Array.from(a);
  const perm = Array.from({ length: p }, (_, i) => i);
  const beta = new Float64Array(Math.min(m, p));
  const norms = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += qr[j * m + i] ** 2;
    norms[j] = s;
  }
  let maxNorm0 = 0;
  for (let j = 0; j < p; j++) maxNorm0 = Math.max(maxNorm0, Math.sqrt(norms[j]));
  let rank = 0;
  const steps = Math.min(m, p);
  for (let k = 0; k < steps; k++) {
    // recompute remaining norms exactly (cheap at our sizes; avoids downdating error)
    let best = -1;
    let bestNorm = -1;
    for (let j = k; j < p; j++) {
      let s = 0;
      for (let i = k; i < m; i++) s += qr[j * m + i] ** 2;
      norms[j] = s;
      if (s > bestNorm) {
        bestNorm = s;
        best = j;
      }
    }
    if (maxNorm0 === 0 || Math.sqrt(bestNorm) <= tol * maxNorm0) break;
    if (best !== k) {
      for (let i = 0; i < m; i++) {
        const t = qr[k * m + i];
        qr[k * m + i] = qr[best * m + i];
        qr[best * m + i] = t;
      }
      const tp = perm[k];
      perm[k] = perm[best];
      perm[best] = tp;
    }
    // Householder reflection zeroing qr[k+1..m-1, k]
    let alpha = 0;
    for (let i = k; i < m; i++) alpha += qr[k * m + i] ** 2;
    alpha = Math.sqrt(alpha);
    const x0 = qr[k * m + k];
    const sign = x0 >= 0 ? 1 : -1;
    const v0 = x0 + sign * alpha;
    // v = [v0, x_{k+1..}], beta = 2 / (v'v)
    let vtv = v0 * v0;
    for (let i = k + 1; i < m; i++) vtv += qr[k * m + i] ** 2;
    const bk = vtv > 0 ? 2 / vtv : 0;
    qr[k * m + k] = v0;
    for (let j = k + 1; j < p; j++) {
      let s = 0;
      for (let i = k; i < m; i++) s += qr[k * m + i] * qr[j * m + i];
      s *= bk;
      for (let i = k; i < m; i++) qr[j * m + i] -= s * qr[k * m + i];
    }
    beta[k] = bk;
    // store R_kk = -sign*alpha on the diagonal, keep v (scaled so v_k = v0) below: remember v0 separately
    // by normalizing v so that its first component is 1.
    for (let i = k + 1; i < m; i++) qr[k * m + i] /= v0;
    beta[k] = bk * v0 * v0;
    qr[k * m + k] = -sign * alpha;
    rank = k + 1;
  }
  return { m, p, qr, beta, perm, rank };
}

/**
 * Least-squares solution of min ‖A x − b‖ from a pivoted QR of A: coefficients of the first `rank` pivoted
 * columns by back substitution, aliased columns 0.
 * @returns x of length p (original column order).
 */
export function qrSolve(f: PivotedQR, b: Float64Array): Float64Array {
  const { m, p, qr, beta, perm, rank } = f;
  const y = Float64Array.from(b);
  for (let k = 0; k < rank; k++) {
    // v = [1, qr[k+1..m-1, k]]
    let s = y[k];
    for (let i = k + 1; i < m; i++) s += qr[k * m + i] * y[i];
    s *= beta[k];
    y[k] -= s;
    for (let i = k + 1; i < m; i++) y[i] -= s * qr[k * m + i];
  }
  const z = new Float64Array(rank);
  for (let k = rank - 1; k >= 0; k--) {
    let s = y[k];
    for (let j = k + 1; j < rank; j++) s -= qr[j * m + k] * z[j];
    z[k] = s / qr[k * m + k];
  }
  const x = new Float64Array(p);
  for (let k = 0; k < rank; k++) x[perm[k]] = z[k];
  return x;
}

/** Options of {@link logisticIRLS}. */
export interface IrlsOptions {
  maxIter?: number;
  /** Relative deviance change for convergence (default 1e-10). */
  epsilon?: number;
  /** Relative rank tolerance of the pivoted QR (default 1e-9). */
  tol?: number;
}

/** A fitted grouped-binomial logistic regression. */
export interface LogisticFit {
  /** Coefficients in design-column order; aliased columns are 0 and listed in `aliased`. */
  coefficients: number[];
  aliased: string[];
  /** Rank of the design (number of estimable coefficients), from the unweighted design. */
  rank: number;
  /** Residual deviance (against the saturated grouped model) and −2 log-likelihood of the fit. */
  deviance: number;
  iterations: number;
  converged: boolean;
  /** Fitted probabilities per row. */
  fitted: number[];
  /** Some fitted probability is within 1e-8 of 0 or 1 (quasi-separation: coefficients diverge, deviance converges). */
  boundary: boolean;
}

const MU_EPS = 1e-15;
const clampMu = (mu: number) => (mu < MU_EPS ? MU_EPS : mu > 1 - MU_EPS ? 1 - MU_EPS : mu);
const expit = (eta: number) => (eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta)));

function xlogy(x: number, y: number): number {
  return x === 0 ? 0 : x * Math.log(y);
}

/** Binomial deviance of grouped data (module docstring). */
export function binomialDeviance(successes: ArrayLike<number>, trials: ArrayLike<number>, mu: ArrayLike<number>): number {
  let d = 0;
  for (let r = 0; r < successes.length; r++) {
    const y = successes[r];
    const n = trials[r];
    if (n === 0) continue;
    const m = clampMu(mu[r]);
    d += xlogy(y, y / (n * m)) + xlogy(n - y, (n - y) / (n * (1 - m)));
  }
  return 2 * d;
}

/**
 * Fit a grouped-binomial logistic regression by IRLS with a pivoted-QR weighted least-squares step (module
 * docstring). Columns aliased in the unweighted design are dropped once (rank from {@link qrPivoted}); the
 * weighted steps use pivoted QR too, so a weight that underflows never breaks the solve.
 *
 * @param design n x p design (include the intercept column yourself).
 * @param successes y_r in [0, n_r]; @param trials n_r >= 0 (rows with n_r = 0 are ignored).
 * @returns {@link LogisticFit}.
 * @throws Error when the lengths do not match the design or a count is invalid.
 */
export function logisticIRLS(
  design: Design,
  successes: ArrayLike<number>,
  trials: ArrayLike<number>,
  opts: IrlsOptions = {},
): LogisticFit {
  const { n, p, x } = design;
  if (successes.length !== n || trials.length !== n) throw new Error(`logisticIRLS: ${n} design rows but ${successes.length} successes and ${trials.length} trials`);
  for (let r = 0; r < n; r++) {
    if (!(trials[r] >= 0) || !(successes[r] >= 0) || successes[r] > trials[r]) {
      throw new Error(`logisticIRLS: row ${r} has ${successes[r]} successes of ${trials[r]} trials`);
    }
  }
  const maxIter = opts.maxIter ?? 100;
  const epsilon = opts.epsilon ?? 1e-10;
  const tol = opts.tol ?? 1e-9;
  const rows: number[] = [];
  for (let r = 0; r < n; r++) if (trials[r] > 0) rows.push(r);
  const m = rows.length;

  // structural rank on the unweighted design (rows with data only)
  const colMajor = new Float64Array(m * p);
  for (let i = 0; i < m; i++) for (let c = 0; c < p; c++) colMajor[c * m + i] = x[rows[i] * p + c];
  const f0 = qrPivoted(colMajor, m, p, tol);
  const keep = f0.perm.slice(0, f0.rank).sort((a, b) => a - b);
  const aliased = f0.perm.slice(f0.rank).sort((a, b) => a - b).map((c) => design.names[c]);
  const k = keep.length;

  const mu = new Float64Array(m);
  const eta = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const r = rows[i];
    mu[i] = (successes[r] + 0.5) / (trials[r] + 1);
    eta[i] = Math.log(mu[i] / (1 - mu[i]));
  }
  const ys = Float64Array.from(rows, (r) => successes[r]);
  const ns = Float64Array.from(rows, (r) => trials[r]);
  let dev = binomialDeviance(ys, ns, mu);
  let beta: Float64Array = new Float64Array(k);
  let converged = false;
  let iter = 0;
  const a = new Float64Array(m * k);
  const b = new Float64Array(m);
  const etaFrom = (coef: Float64Array, out: Float64Array) => {
    for (let i = 0; i < m; i++) {
      let s = 0;
      const base = rows[i] * p;
      for (let j = 0; j < k; j++) s += x[base + keep[j]] * coef[j];
      out[i] = s;
    }
  };
  const newEta = new Float64Array(m);
  const newMu = new Float64Array(m);
  for (iter = 1; iter <= maxIter; iter++) {
    for (let i = 0; i < m; i++) {
      const mi = clampMu(mu[i]);
      const v = mi * (1 - mi);
      const w = ns[i] * v;
      const sw = Math.sqrt(w);
      const z = eta[i] + (ys[i] / ns[i] - mi) / v;
      b[i] = sw * z;
      const base = rows[i] * p;
      for (let j = 0; j < k; j++) a[j * m + i] = sw * x[base + keep[j]];
    }
    const f = qrPivoted(a, m, k, 1e-11);
    const next = qrSolve(f, b);
    etaFrom(next, newEta);
    for (let i = 0; i < m; i++) newMu[i] = clampMu(expit(newEta[i]));
    let newDev = binomialDeviance(ys, ns, newMu);
    // step halving when the deviance rises (or is not finite)
    let halvings = 0;
    while ((!Number.isFinite(newDev) || newDev > dev * (1 + 1e-12) + 1e-12) && halvings < 30 && iter > 1) {
      for (let j = 0; j < k; j++) next[j] = (next[j] + beta[j]) / 2;
      etaFrom(next, newEta);
      for (let i = 0; i < m; i++) newMu[i] = clampMu(expit(newEta[i]));
      newDev = binomialDeviance(ys, ns, newMu);
      halvings++;
    }
    const change = Math.abs(newDev - dev) / (Math.abs(newDev) + 0.1);
    beta = next;
    eta.set(newEta);
    mu.set(newMu);
    dev = newDev;
    if (change < epsilon) {
      converged = true;
      break;
    }
  }
  const coefficients = new Array<number>(p).fill(0);
  keep.forEach((c, j) => (coefficients[c] = beta[j]));
  const fitted = new Array<number>(n).fill(0);
  let boundary = false;
  rows.forEach((r, i) => {
    fitted[r] = mu[i];
    if (mu[i] < 1e-8 || mu[i] > 1 - 1e-8) boundary = true;
  });
  // fitted for rows without data: from the linear predictor
  for (let r = 0; r < n; r++) {
    if (trials[r] > 0) continue;
    let s = 0;
    for (let c = 0; c < p; c++) s += x[r * p + c] * coefficients[c];
    fitted[r] = expit(s);
  }
  return { coefficients, aliased, rank: k, deviance: dev, iterations: Math.min(iter, maxIter), converged, fitted, boundary };
}

/** One observation of the interaction test: factor levels and the binary outcome. */
export interface FactorRow {
  model: string;
  suite: string;
  /** Injection task, qualified by suite so that equal ids in two suites are different levels. */
  injection_task: string;
  condition: string;
  y: boolean;
  /** Trajectories this row stands for (an integer >= 1; absent: 1): it adds `weight` trials to its pattern. */
  weight?: number;
}

/** Likelihood-ratio test of the model x condition interaction. */
export interface InteractionTest {
  /** LR statistic D_reduced − D_full (chi-square under H0: no interaction); null with `reason` when untestable. */
  statistic: number | null;
  df: number;
  p_value: number | null;
  reason?: string;
  n: number;
  /** Distinct covariate patterns the fit was run on. */
  patterns: number;
  levels: { model: number; suite: number; injection_task: number; condition: number };
  reduced: { deviance: number; rank: number; iterations: number; converged: boolean; boundary: boolean };
  full: { deviance: number; rank: number; iterations: number; converged: boolean; boundary: boolean };
  /** Notes for the reader (non-convergence, fitted probabilities at 0 or 1). */
  flags: string[];
}

function levelsOf(values: string[]): string[] {
  return [...new Set(values)].sort();
}

/**
 * Build the treatment-coded design of `y ~ model + suite + injection_task + condition [+ model:condition]`
 * over grouped covariate patterns. The first level (sorted) of each factor is the reference.
 * @returns the design, with successes and trials per pattern.
 */
export function interactionDesign(rows: readonly FactorRow[], withInteraction: boolean): { design: Design; successes: number[]; trials: number[] } {
  const models = levelsOf(rows.map((r) => r.model));
  const suites = levelsOf(rows.map((r) => r.suite));
  const injs = levelsOf(rows.map((r) => r.injection_task));
  const conds = levelsOf(rows.map((r) => r.condition));
  const names = ["(intercept)"];
  const idx = (prefix: string, lv: string[]) => {
    const m = new Map<string, number>();
    lv.slice(1).forEach((l) => {
      m.set(l, names.length);
      names.push(`${prefix}${l}`);
    });
    return m;
  };
  const mIdx = idx("model=", models);
  const sIdx = idx("suite=", suites);
  const iIdx = idx("injection_task=", injs);
  const cIdx = idx("condition=", conds);
  const mcIdx = new Map<string, number>();
  if (withInteraction) {
    for (const mm of models.slice(1)) {
      for (const cc of conds.slice(1)) {
        mcIdx.set(`${mm}\u0000${cc}`, names.length);
        names.push(`model=${mm}:condition=${cc}`);
      }
    }
  }
  const patterns = new Map<string, { cols: number[]; y: number; n: number }>();
  for (const r of rows) {
    const key = [r.model, r.suite, r.injection_task, r.condition].join("\u0000");
    let pt = patterns.get(key);
    if (!pt) {
      const cols = [0];
      for (const c of [mIdx.get(r.model), sIdx.get(r.suite), iIdx.get(r.injection_task), cIdx.get(r.condition), mcIdx.get(`${r.model}\u0000${r.condition}`)]) {
        if (c !== undefined) cols.push(c);
      }
      pt = { cols, y: 0, n: 0 };
      patterns.set(key, pt);
    }
    const w = r.weight ?? 1;
    pt.n += w;
    if (r.y) pt.y += w;
  }
  const p = names.length;
  const list = [...patterns.values()];
  const x = new Float64Array(list.length * p);
  list.forEach((pt, i) => {
    for (const c of pt.cols) x[i * p + c] = 1;
  });
  return {
    design: { n: list.length, p, x, names },
    successes: list.map((pt) => pt.y),
    trials: list.map((pt) => pt.n),
  };
}

/**
 * Likelihood-ratio test for the model x condition interaction in a logistic regression of the binary outcome
 * (compromised) with main effects of agent model, suite, injection task and condition (treatment coding):
 * G² = D(main effects) − D(main effects + model:condition), df = rank(full) − rank(reduced) (aliased
 * interaction columns, e.g. for model/condition cells with no data, add no df), p = P(χ²_df > G²) =
 * Q(df/2, G²/2) (regularised upper incomplete gamma, `gammaQ`). Wilks (1938); Agresti (2013) Categorical Data
 * Analysis, 3rd ed., section 5.4.
 *
 * @param rows one per trajectory, or one per `weight` identical trajectories.
 * @returns {@link InteractionTest}; `statistic`/`p_value` null with reason `empty_input`, `no_interaction_df`
 *   (fewer than 2 models or conditions, or no model observed under 2 conditions alongside another model).
 *   A statistic that is negative by rounding (|G²| < 1e-8) is reported as 0.
 */
export function interactionLRT(rows: readonly FactorRow[], opts: IrlsOptions = {}): InteractionTest {
  const levels = {
    model: new Set(rows.map((r) => r.model)).size,
    suite: new Set(rows.map((r) => r.suite)).size,
    injection_task: new Set(rows.map((r) => r.injection_task)).size,
    condition: new Set(rows.map((r) => r.condition)).size,
  };
  const empty = { deviance: 0, rank: 0, iterations: 0, converged: false, boundary: false };
  if (rows.length === 0) {
    return { statistic: null, df: 0, p_value: null, reason: "empty_input", n: 0, patterns: 0, levels, reduced: empty, full: empty, flags: [] };
  }
  const red = interactionDesign(rows, false);
  const full = interactionDesign(rows, true);
  const fr = logisticIRLS(red.design, red.successes, red.trials, opts);
  const ff = logisticIRLS(full.design, full.successes, full.trials, opts);
  const summary = (f: LogisticFit) => ({ deviance: f.deviance, rank: f.rank, iterations: f.iterations, converged: f.converged, boundary: f.boundary });
  const df = ff.rank - fr.rank;
  const flags: string[] = [];
  if (!fr.converged || !ff.converged) flags.push("not_converged");
  if (fr.boundary || ff.boundary) flags.push("fitted_probabilities_0_or_1");
  let n = 0;
  for (const r of rows) n += r.weight ?? 1;
  const base = { n, patterns: full.design.n, levels, reduced: summary(fr), full: summary(ff), flags };
  if (df <= 0) return { statistic: null, df: 0, p_value: null, reason: "no_interaction_df", ...base };
  let g2 = fr.deviance - ff.deviance;
  if (Math.abs(g2) < 1e-8) g2 = 0;
  if (g2 < 0) flags.push("negative_statistic");
  const stat = Math.max(0, g2);
  return { statistic: stat, df, p_value: stat === 0 ? 1 : gammaQ(df / 2, stat / 2), ...base };
}

/** What each interaction-test flag means, for the text output (the JSON keeps the bare codes). */
const FLAG_MEANING: Record<string, string> = {
  fitted_probabilities_0_or_1: "quasi-separation: some fitted probabilities are 0 or 1, so the p-value may be unreliable",
  not_converged: "the fit did not converge, so the p-value may be unreliable",
  negative_statistic: "the deviance difference was below 0 (rounding) and is read as 0",
};

/**
 * An interaction-test flag as text: the code and what it means (`fitted_probabilities_0_or_1 (quasi-separation: ...)`).
 * @param flag a code of `InteractionTest.flags`; an unknown code is returned as is.
 */
export function interactionFlagText(flag: string): string {
  const m = FLAG_MEANING[flag];
  return m ? `${flag} (${m})` : flag;
}
