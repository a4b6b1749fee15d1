/**
 * Percentile bootstrap over items (test/data/vectors/NOTES.md §1.4 "Percentile bootstrap CI") with a seeded pure-rand
 * `xoroshiro128plus` generator.
 *
 * Two ways to draw a two-rater resample, with the same distribution:
 * - `items`: draw n item indices with replacement from the integer-coded items (cell code a·q + b) and count
 *   them into a reused table. O(B·n). No per-resample allocation.
 * - `multinomial` (default): a two-rater statistic depends on the resample only through its q × q table, and
 *   the table of n items drawn with replacement is Multinomial(n, table/n). Draw it directly by conditional
 *   binomials over the non-empty cells (x_k ~ Bin(n − Σ_{j<k} x_j, c_k / Σ_{j≥k} c_j)). O(B·q²), independent of n.
 *   Binomial variates: inversion for n·min(p,1−p) <= 30, otherwise BTPE (Kachitvichyanukul & Schmeiser 1988,
 *   Commun ACM 31:216–222), ported from NumPy's `random_binomial_inversion`/`random_binomial_btpe` with NumPy's
 *   corrected Stirling constant (13860) used by `numpy.random.Generator`.
 *
 * Undefined replicates (e.g. p_e = 1) are excluded and counted; percentiles are taken over the defined ones.
 * Quantile rule: type 1 (inverse empirical CDF; Hyndman & Fan 1996): the p-quantile is the smallest replicate
 * x with F̂(x) >= p, i.e. the ⌈p·m⌉-th smallest of m defined replicates. Type 1 always returns an observed
 * replicate, so with large B the endpoints land on atoms of the exact bootstrap distribution.
 * Reference: Efron B, Tibshirani RJ (1993) An Introduction to the Bootstrap, ch. 13.
 */
import prand from "pure-rand";
import { type WeightSpec, resolveWeights } from "./weights.js";
import { type BootstrapInterval, type Table, checkTable } from "./types.js";

type Rng = ReturnType<typeof prand.xoroshiro128plus>;

/** Uniform double in [0, 1) with 53 random bits from two 32-bit outputs. */
export function nextDouble(rng: Rng): number {
  const a = rng.unsafeNext() >>> 5;
  const b = rng.unsafeNext() >>> 6;
  return (a * 67108864 + b) / 9007199254740992;
}

const TWO32 = 4294967296;

/** Unbiased integer in [0, n) for 1 <= n < 2^21 (Lemire's multiply-shift with rejection; the product stays below 2^53). */
export function nextIndex(rng: Rng, n: number): number {
  const threshold = TWO32 % n;
  for (;;) {
    const m = (rng.unsafeNext() >>> 0) * n; // exact in a double because callers keep n < 2^21
    const hi = Math.floor(m / TWO32);
    if (m - hi * TWO32 >= threshold) return hi;
  }
}

function binomialInversion(rng: Rng, n: number, p: number): number {
  const q = 1 - p;
  const qn = Math.exp(n * Math.log(q));
  const np = n * p;
  const bound = Math.min(n, np + 10 * Math.sqrt(np * q + 1));
  let x = 0;
  let px = qn;
  let u = nextDouble(rng);
  while (u > px) {
    x++;
    if (x > bound) {
      x = 0;
      px = qn;
      u = nextDouble(rng);
    } else {
      u -= px;
      px = ((n - x + 1) * p * px) / (x * q);
    }
  }
  return x;
}

function binomialBtpe(rng: Rng, n: number, p: number): number {
  // p <= 0.5 here (the caller flips).
  const r = p;
  const q = 1 - r;
  const fm = n * r + r;
  const m = Math.floor(fm);
  const p1 = Math.floor(2.195 * Math.sqrt(n * r * q) - 4.6 * q) + 0.5;
  const xm = m + 0.5;
  const xl = xm - p1;
  const xr = xm + p1;
  const c = 0.134 + 20.5 / (15.3 + m);
  let a = (fm - xl) / (fm - xl * r);
  const laml = a * (1 + a / 2);
  a = (xr - fm) / (xr * q);
  const lamr = a * (1 + a / 2);
  const p2 = p1 * (1 + 2 * c);
  const p3 = p2 + c / laml;
  const p4 = p3 + c / lamr;
  const nrq = n * r * q;
  for (;;) {
    const u = nextDouble(rng) * p4;
    let v = nextDouble(rng);
    let y: number;
    if (u <= p1) {
      return Math.floor(xm - p1 * v + u); // region 1: accept immediately
    }
    if (u <= p2) {
      const x = xl + (u - p1) / c;
      v = v * c + 1 - Math.abs(m - x + 0.5) / p1;
      if (v > 1) continue;
      y = Math.floor(x);
    } else if (u <= p3) {
      y = Math.floor(xl + Math.log(v) / laml);
      if (y < 0 || v === 0) continue;
      v = v * (u - p2) * laml;
    } else {
      y = Math.floor(xr - Math.log(v) / lamr);
      if (y > n || v === 0) continue;
      v = v * (u - p3) * lamr;
    }
    const k = Math.abs(y - m);
    if (!(k > 20 && k < nrq / 2 - 1)) {
      // explicit evaluation of f(y)/f(m)
      const s = r / q;
      const aa = s * (n + 1);
      let F = 1;
      if (m < y) for (let i = m + 1; i <= y; i++) F *= aa / i - s;
      else if (m > y) for (let i = y + 1; i <= m; i++) F /= aa / i - s;
      if (v > F) continue;
      return y;
    }
    // squeeze using upper and lower bounds on log f(y)
    const rho = (k / nrq) * ((k * (k / 3 + 0.625) + 0.16666666666666666) / nrq + 0.5);
    const t = (-k * k) / (2 * nrq);
    const A = Math.log(v);
    if (A < t - rho) return y;
    if (A > t + rho) continue;
    const x1 = y + 1;
    const f1 = m + 1;
    const z = n + 1 - m;
    const w = n - y + 1;
    const x2 = x1 * x1;
    const f2 = f1 * f1;
    const z2 = z * z;
    const w2 = w * w;
    const bound =
      xm * Math.log(f1 / x1) +
      (n - m + 0.5) * Math.log(z / w) +
      (y - m) * Math.log((w * r) / (x1 * q)) +
      (13860 - (462 - (132 - (99 - 140 / f2) / f2) / f2) / f2) / f1 / 166320 +
      (13860 - (462 - (132 - (99 - 140 / z2) / z2) / z2) / z2) / z / 166320 +
      (13860 - (462 - (132 - (99 - 140 / x2) / x2) / x2) / x2) / x1 / 166320 +
      (13860 - (462 - (132 - (99 - 140 / w2) / w2) / w2) / w2) / w / 166320;
    if (A > bound) continue;
    return y;
  }
}

/**
 * A Binomial(n, p) variate (NumPy's algorithm choice: inversion when n·min(p, 1−p) <= 30, else BTPE).
 * @throws RangeError when n is not a non-negative integer or p is outside [0, 1].
 */
export function binomial(rng: Rng, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`binomial: n must be a non-negative integer, got ${n}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`binomial: p must be in [0,1], got ${p}`);
  if (n === 0 || p === 0) return 0;
  if (p === 1) return n;
  if (p <= 0.5) return p * n <= 30 ? binomialInversion(rng, n, p) : binomialBtpe(rng, n, p);
  const q = 1 - p;
  return n - (q * n <= 30 ? binomialInversion(rng, n, q) : binomialBtpe(rng, n, q));
}

/**
 * Fill `out` with a Multinomial(n, counts/Σcounts) draw by conditional binomials (exact).
 * @param counts non-negative integer cell counts (the observed table, flattened); n = Σ counts.
 * @param out reused output array of the same length.
 */
export function multinomialFromCounts(rng: Rng, counts: ArrayLike<number>, out: Float64Array | number[], n: number): void {
  let remaining = n;
  let massLeft = 0;
  for (let k = 0; k < counts.length; k++) massLeft += counts[k];
  for (let k = 0; k < counts.length; k++) {
    const c = counts[k];
    if (remaining === 0 || c === 0) {
      out[k] = 0;
      massLeft -= c;
      continue;
    }
    if (c >= massLeft) {
      out[k] = remaining;
      remaining = 0;
      massLeft -= c;
      continue;
    }
    const x = binomial(rng, remaining, c / massLeft);
    out[k] = x;
    remaining -= x;
    massLeft -= c;
  }
}

/**
 * Type-1 (inverse empirical CDF) quantile of sorted values: the ⌈p·m⌉-th smallest (1-based), clamped to [1, m].
 * @throws RangeError when the array is empty or p is outside [0, 1].
 */
export function quantileType1(sorted: ArrayLike<number>, p: number): number {
  const m = sorted.length;
  if (m === 0) throw new RangeError("quantileType1: no values");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileType1: p must be in [0,1], got ${p}`);
  let j = Math.ceil(p * m - 1e-9 * Math.max(1, p * m));
  if (j < 1) j = 1;
  if (j > m) j = m;
  return sorted[j - 1];
}

/** A statistic of a flattened q × q table (row-major, cell i·q + j); returns null when undefined. */
export type TableStatistic = (cells: Float64Array, q: number) => number | null;

/** Options of the table bootstrap. */
export interface BootstrapOptions {
  /** Number of resamples (>= 1; use >= 2000, 10 000 for stable 2.5%/97.5% endpoints). */
  B: number;
  /** Seed for pure-rand `xoroshiro128plus` (a 32-bit integer); recorded in the result. */
  seed: number;
  level?: number;
  /** `multinomial` (default, O(B·q²)) or `items` (O(B·n)); same distribution. */
  resampling?: "multinomial" | "items";
}

/** Bootstrap output: the interval and, optionally, the defined replicates (sorted). */
export interface TableBootstrapResult extends BootstrapInterval {
  /** Defined replicate values, sorted ascending (present when `keepReplicates`). */
  replicates?: number[];
}

/** The checks every bootstrap here makes of its replicate count and seed. @throws Error naming the bad one. */
function checkReplicates(B: number, seed: number): void {
  if (!Number.isInteger(B) || B < 1) throw new Error(`bootstrap: B must be a positive integer, got ${B}`);
  if (!Number.isInteger(seed)) throw new Error(`bootstrap: seed must be an integer, got ${seed}`);
}

/**
 * Percentile bootstrap of a two-rater table statistic, resampling items (the (A, B) pairs) with replacement
 * and recomputing the statistic on the fixed declared category set (test/data/vectors/NOTES.md §1.4 "Percentile
 * bootstrap CI").
 *
 * @param table q × q integer counts over the declared categories.
 * @param stat the statistic on a flattened table (see {@link kappaStatistic}); null = undefined replicate.
 * @param opts B, seed, level (default 0.95), resampling (default `multinomial`).
 * @returns the percentile interval [q_{(1−level)/2}, q_{(1+level)/2}] (type 1) over defined replicates, with
 *   B, defined and undefined counts, the seed and the generator. lower/upper null with reason
 *   `all_resamples_undefined` when no replicate is defined, or `empty_input` when n = 0.
 * @throws Error on a bad table, non-integer counts, n >= 2^21 with `items`, B < 1, or a non-integer seed.
 */
export function bootstrapTable(
  table: Table,
  stat: TableStatistic,
  opts: BootstrapOptions & { keepReplicates?: boolean },
): TableBootstrapResult {
  const q = checkTable(table);
  const B = opts.B;
  checkReplicates(B, opts.seed);
  const level = opts.level ?? 0.95;
  const resampling = opts.resampling ?? "multinomial";
  const flat = new Float64Array(q * q);
  let n = 0;
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      const v = table[i][j];
      if (!Number.isInteger(v)) throw new Error(`bootstrap: cell [${i}][${j}] = ${v} is not an integer count`);
      flat[i * q + j] = v;
      n += v;
    }
  }
  const out = emptyBootstrap(level, B, opts.seed, resampling);
  if (n === 0) {
    out.reason = "empty_input";
    return out;
  }
  const rng = prand.xoroshiro128plus(opts.seed);
  const cells = new Float64Array(q * q);
  const values = new Float64Array(B);
  let defined = 0;
  if (resampling === "items") {
    if (n >= 2 ** 21) throw new Error("bootstrap: items resampling supports n < 2^21 (use multinomial)");
    const codes = new Int32Array(n);
    let pos = 0;
    for (let c = 0; c < q * q; c++) for (let t = 0; t < flat[c]; t++) codes[pos++] = c;
    const threshold = TWO32 % n;
    for (let b = 0; b < B; b++) {
      cells.fill(0);
      for (let i = 0; i < n; i++) {
        let idx: number;
        for (;;) {
          const m = (rng.unsafeNext() >>> 0) * n;
          idx = Math.floor(m / TWO32);
          if (m - idx * TWO32 >= threshold) break;
        }
        cells[codes[idx]]++;
      }
      const v = stat(cells, q);
      if (v !== null) values[defined++] = v;
    }
  } else {
    for (let b = 0; b < B; b++) {
      multinomialFromCounts(rng, flat, cells, n);
      const v = stat(cells, q);
      if (v !== null) values[defined++] = v;
    }
  }
  return percentileInterval(out, values, defined, B, level, opts.keepReplicates);
}

/**
 * The (weighted) Cohen's kappa of a flattened table as a {@link TableStatistic}, allocation-free per call.
 * Returns null when n = 0 or p_e = 1 (undefined).
 * @param q number of declared categories; weights as `cohenKappa`.
 * @throws Error on invalid weights.
 */
export function kappaStatistic(q: number, weights?: WeightSpec): TableStatistic {
  const w = resolveWeights(weights, q);
  const wf = new Float64Array(q * q);
  for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) wf[i * q + j] = w[i][j];
  const rows = new Float64Array(q);
  const cols = new Float64Array(q);
  return (cells) => {
    rows.fill(0);
    cols.fill(0);
    let n = 0;
    let agree = 0;
    for (let i = 0; i < q; i++) {
      for (let j = 0; j < q; j++) {
        const x = cells[i * q + j];
        rows[i] += x;
        cols[j] += x;
        n += x;
        agree += wf[i * q + j] * x;
      }
    }
    if (n === 0) return null;
    let chance = 0;
    for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) chance += wf[i * q + j] * rows[i] * cols[j];
    const po = agree / n;
    const pe = chance / (n * n);
    if (Math.abs(1 - pe) < 1e-14) return null;
    return (po - pe) / (1 - pe);
  };
}

/**
 * Percentile bootstrap CI of Cohen's (weighted) kappa, resampling items (test/data/vectors/NOTES.md §1.4 "Percentile
 * bootstrap CI"); see {@link bootstrapTable}.
 * @param table q × q integer counts over the declared categories (rows = first rater).
 * @param opts B, seed, level, resampling, weights (as `cohenKappa`).
 * @throws Error as {@link bootstrapTable} or on invalid weights.
 */
export function bootstrapKappa(
  table: Table,
  opts: BootstrapOptions & { weights?: WeightSpec; keepReplicates?: boolean },
): TableBootstrapResult {
  const q = checkTable(table);
  return bootstrapTable(table, kappaStatistic(q, opts.weights), opts);
}

/**
 * Percentile bootstrap over arbitrary items (e.g. a committee's rating-count rows, resampled with all their
 * ratings together, test/data/vectors/NOTES.md §1.4.5 "Percentile bootstrap CI, item 5"). Each resample reuses one
 * array of item references (no copying of items).
 *
 * @param items the units to resample (n >= 1).
 * @param stat statistic of a resample (an array of n items, reused between calls: do not keep it); null = undefined.
 * @param opts B, seed, level.
 * @returns as {@link bootstrapTable}, with `resampling: "items"`.
 * @throws Error when B < 1, the seed is not an integer, or n >= 2^21.
 */
export function bootstrapItems<T>(
  items: readonly T[],
  stat: (sample: readonly T[]) => number | null,
  opts: Omit<BootstrapOptions, "resampling"> & { keepReplicates?: boolean },
): TableBootstrapResult {
  const B = opts.B;
  checkReplicates(B, opts.seed);
  const n = items.length;
  if (n >= 2 ** 21) throw new Error("bootstrapItems: n must be < 2^21");
  const level = opts.level ?? 0.95;
  const out = emptyBootstrap(level, B, opts.seed, "items");
  if (n === 0) {
    out.reason = "empty_input";
    return out;
  }
  const rng = prand.xoroshiro128plus(opts.seed);
  const sample = new Array<T>(n);
  const values = new Float64Array(B);
  let defined = 0;
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < n; i++) sample[i] = items[nextIndex(rng, n)];
    const v = stat(sample);
    if (v !== null) values[defined++] = v;
  }
  return percentileInterval(out, values, defined, B, level, opts.keepReplicates);
}

/**
 * Percentile bootstrap of a statistic that depends on a resample of n items only through its counts over k
 * categories (the items' kinds): the counts of n items drawn with replacement are Multinomial(n, counts/n), drawn
 * directly by conditional binomials ({@link multinomialFromCounts}). O(B·k) after the counts, independent of n; the
 * same distribution of replicates as {@link bootstrapItems} over the n items (not the same stream for a seed).
 * @param counts the items' count per category (non-negative integers), n = their sum.
 * @param stat statistic of a resample's counts (a reused array: do not keep it); null = undefined.
 * @returns as {@link bootstrapItems}, with `resampling: "multinomial"`; `empty_input` when n = 0.
 * @throws Error when B < 1, the seed is not an integer, or a count is not a non-negative integer.
 */
export function bootstrapCounts(
  counts: ArrayLike<number>,
  stat: (counts: Float64Array) => number | null,
  opts: Omit<BootstrapOptions, "resampling"> & { keepReplicates?: boolean },
): TableBootstrapResult {
  const B = opts.B;
  checkReplicates(B, opts.seed);
  let n = 0;
  for (let k = 0; k < counts.length; k++) {
    if (!Number.isInteger(counts[k]) || counts[k] < 0) throw new Error(`bootstrap: count ${k} = ${counts[k]} is not a non-negative integer`);
    n += counts[k];
  }
  const level = opts.level ?? 0.95;
  const out = emptyBootstrap(level, B, opts.seed, "multinomial");
  if (n === 0) {
    out.reason = "empty_input";
    return out;
  }
  const rng = prand.xoroshiro128plus(opts.seed);
  const cells = new Float64Array(counts.length);
  const values = new Float64Array(B);
  let defined = 0;
  for (let b = 0; b < B; b++) {
    multinomialFromCounts(rng, counts, cells, n);
    const v = stat(cells);
    if (v !== null) values[defined++] = v;
  }
  return percentileInterval(out, values, defined, B, level, opts.keepReplicates);
}

/**
 * Fill a bootstrap result from its replicates: counts of defined and undefined resamples, and the percentile
 * interval [q_{(1−level)/2}, q_{(1+level)/2}] (type 1 quantiles) over the defined ones (test/data/vectors/NOTES.md
 * §1.4 "Percentile bootstrap CI"), or `reason: "all_resamples_undefined"` when none is defined.
 * @param values the first `defined` entries are the defined replicates (sorted in place).
 */
function percentileInterval(
  out: TableBootstrapResult,
  values: Float64Array,
  defined: number,
  B: number,
  level: number,
  keepReplicates?: boolean,
): TableBootstrapResult {
  out.defined = defined;
  out.undefined_resamples = B - defined;
  out.undefined_fraction = (B - defined) / B;
  if (defined === 0) {
    out.reason = "all_resamples_undefined";
    return out;
  }
  const sorted = values.subarray(0, defined).sort();
  out.lower = quantileType1(sorted, (1 - level) / 2);
  out.upper = quantileType1(sorted, (1 + level) / 2);
  if (keepReplicates) out.replicates = Array.from(sorted);
  return out;
}

/** A bootstrap result with no replicate yet (the interval is filled by {@link percentileInterval}). */
function emptyBootstrap(level: number, B: number, seed: number, resampling: "multinomial" | "items"): TableBootstrapResult {
  return {
    lower: null,
    upper: null,
    level,
    B,
    defined: 0,
    undefined_resamples: 0,
    undefined_fraction: 0,
    seed,
    generator: "pure-rand/xoroshiro128plus",
    resampling,
    quantile_rule: "type1",
  };
}
