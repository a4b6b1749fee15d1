/**
 * Shared result shapes and small helpers of the agreement-statistics library (see `index.ts` for the
 * conventions). Every result is a plain JSON-able record: no NaN, no Infinity, no class instances.
 */
import { studentTQuantile, Z975, normalQuantile } from "./distributions.js";

/** A category label. Categories are matched with `===` (no implicit string/number coercion). */
export type Category = string | number;

/** A square contingency table: `table[i][j]` = items with first rater = category i, second = category j. */
export type Table = readonly (readonly number[])[];

/**
 * A confidence interval. `lower`/`upper` are the raw (unclipped) bounds; `*_clipped` are the bounds clipped
 * to the coefficient's range for display ([-1, 1] for agreement coefficients, [0, 1] for proportions).
 * `degenerate` is true when the standard error is 0 so the interval collapses to a point (test/data/vectors/NOTES.md
 * §1.3 "Confidence intervals").
 */
export interface Interval {
  lower: number;
  upper: number;
  lower_clipped: number;
  upper_clipped: number;
  level: number;
  /** `wald_normal`: θ ± z·SE (SAS, statsmodels). `student_t`: θ ± t_{df}·SE (irrCAC). `wilson`: score interval. */
  method: "wald_normal" | "student_t" | "wilson";
  df?: number;
  degenerate: boolean;
}

/**
 * Percentile bootstrap interval (test/data/vectors/NOTES.md §1.4 "Percentile bootstrap CI"). `lower`/`upper` are null
 * (with `reason`) when undefined.
 */
export interface BootstrapInterval {
  lower: number | null;
  upper: number | null;
  reason?: string;
  level: number;
  /** Number of resamples drawn. */
  B: number;
  /** Resamples on which the statistic was defined (the percentiles are taken over these). */
  defined: number;
  /** Resamples on which the statistic was undefined (e.g. p_e = 1); excluded from the percentiles. */
  undefined_resamples: number;
  undefined_fraction: number;
  /** Seed given to pure-rand `xoroshiro128plus`. */
  seed: number;
  generator: "pure-rand/xoroshiro128plus";
  /** How resamples were drawn: `items` (n item indices per resample) or `multinomial` (cell counts drawn directly). */
  resampling: "items" | "multinomial";
  /** Quantile rule: `type1` = inverse empirical CDF (Hyndman & Fan 1996 type 1): smallest replicate x with F̂(x) >= p. */
  quantile_rule: "type1";
}

/**
 * The one result shape shared by every coefficient. Coefficient-specific results extend it with their own
 * components (p_o, p_e, null SE, ...).
 *
 * - `value` is the coefficient, or `null` when it is undefined; `reason` says why (snake_case code).
 * - `se` is the large-sample (non-null) standard error, or `null` with `se_reason`.
 * - `ci_wald` (normal), `ci_t` (irrCAC Student-t) and `ci_bootstrap` are present when computed.
 * - `flags` lists conditions worth showing a reader (e.g. `degenerate_ci`).
 */
export interface Estimate {
  value: number | null;
  reason?: string;
  n: number;
  se?: number | null;
  se_reason?: string;
  ci_wald?: Interval | null;
  ci_t?: Interval | null;
  ci_bootstrap?: BootstrapInterval;
  flags?: string[];
}

/** Reason codes used across the library. */
export const REASONS = {
  empty: "empty_input",
  singleCategory: "undefined_single_category",
  nLt2: "n_lt_2",
  qLt2: "fewer_than_2_declared_categories",
  seZero: "se_zero",
  noPairable: "no_pairable_units",
  singleValue: "undefined_single_value",
  notBinary: "binary_table_only",
  zeroWeight: "zero_total_weight",
  categoryUnused: "category_unused",
  categoryUniversal: "category_used_by_every_rating",
  pe1: "undefined_chance_agreement_1",
} as const;

/** Relative tolerance under which a difference of two non-negative sums is treated as exactly 0. */
const CANCEL_TOL = 1e-12;

/**
 * `a − b` for non-negative sums a, b, returning exactly 0 when the difference is rounding noise
 * (|a − b| <= 1e-12·max(a, b)); used so that a variance that is 0 in exact arithmetic is 0, not ±1e-17.
 */
export function cancelSafeDiff(a: number, b: number): number {
  const d = a - b;
  if (Math.abs(d) <= CANCEL_TOL * Math.max(Math.abs(a), Math.abs(b))) return 0;
  return d;
}

/** √v for a variance v, mapping tiny negative rounding noise to 0. @throws Error when v is clearly negative. */
export function sqrtVar(v: number): number {
  if (v < 0) {
    if (v > -1e-14) return 0;
    throw new Error(`internal: negative variance ${v}`);
  }
  return Math.sqrt(v);
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/**
 * Normal (Wald) interval θ ± z_{(1+level)/2}·se (test/data/vectors/NOTES.md §1.3 "Confidence intervals"). Bounds are
 * kept unclipped in `lower`/`upper` and clipped to [clipLo, clipHi] in `*_clipped`. `degenerate` when se = 0.
 */
export function waldInterval(value: number, se: number, level = 0.95, clipLo = -1, clipHi = 1): Interval {
  const z = level === 0.95 ? Z975 : normalQuantile((1 + level) / 2);
  const lower = value - z * se;
  const upper = value + z * se;
  return {
    lower,
    upper,
    lower_clipped: clip(lower, clipLo, clipHi),
    upper_clipped: clip(upper, clipLo, clipHi),
    level,
    method: "wald_normal",
    degenerate: se === 0,
  };
}

/**
 * irrCAC interval θ ± t_{(1+level)/2, df}·se (test/data/vectors/NOTES.md §1.3 "Confidence intervals", §9.2
 * "Library-semantics differences, item 2"). irrCAC caps only the upper end at 1; here `upper_clipped` = min(1, upper)
 * reproduces irrCAC and `lower_clipped` = max(clipLo, lower) is for display.
 */
export function studentTInterval(value: number, se: number, df: number, level = 0.95, clipLo = -1, clipHi = 1): Interval {
  const t = studentTQuantile((1 + level) / 2, df);
  const lower = value - t * se;
  const upper = value + t * se;
  return {
    lower,
    upper,
    lower_clipped: clip(lower, clipLo, clipHi),
    upper_clipped: clip(upper, clipLo, clipHi),
    level,
    method: "student_t",
    df,
    degenerate: se === 0,
  };
}

/** Validate that `table` is a non-empty square matrix of finite non-negative numbers; returns q. @throws Error. */
export function checkTable(table: Table, what = "table"): number {
  if (!Array.isArray(table)) throw new Error(`${what}: expected an array of rows`);
  const q = table.length;
  if (q === 0) throw new Error(`${what}: no categories (0 x 0 table)`);
  for (let i = 0; i < q; i++) {
    const row = table[i];
    if (!Array.isArray(row) || row.length !== q) {
      throw new Error(`${what}: ragged or non-square table (row ${i} has ${row?.length ?? "no"} cells, expected ${q})`);
    }
    for (let j = 0; j < q; j++) {
      const v = row[j];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        throw new Error(`${what}: cell [${i}][${j}] must be a finite non-negative number, got ${v}`);
      }
    }
  }
  return q;
}

/** Validate an items × categories count matrix (rectangular, finite, non-negative); returns q. @throws Error. */
export function checkCounts(counts: Table, what = "counts"): number {
  if (!Array.isArray(counts)) throw new Error(`${what}: expected an array of rows`);
  if (counts.length === 0) return 0;
  const q = counts[0]?.length ?? 0;
  for (let i = 0; i < counts.length; i++) {
    const row = counts[i];
    if (!Array.isArray(row) || row.length !== q) {
      throw new Error(`${what}: ragged matrix (row ${i} has ${row?.length ?? "no"} cells, expected ${q})`);
    }
    for (let j = 0; j < q; j++) {
      const v = row[j];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        throw new Error(`${what}: cell [${i}][${j}] must be a finite non-negative number, got ${v}`);
      }
    }
  }
  return q;
}
