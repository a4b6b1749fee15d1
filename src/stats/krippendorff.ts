/**
 * Krippendorff's alpha with missing data, via the coincidence matrix. Nominal is the metric the labels
 * need; ordinal, interval and ratio differ only in δ² and are provided for the published checks.
 *
 * Source: Krippendorff K (2011) Computing Krippendorff's Alpha-Reliability, Univ. of Pennsylvania ASC papers
 * 43 (repository.upenn.edu/asc_papers/43). Formulas as written in test/data/vectors/NOTES.md §6 "Krippendorff's α".
 * For Gwet's analytic SE of alpha see `krippendorffAlphaGwet` (multirater.ts); otherwise bootstrap over units.
 */
import { ratingCounts } from "./labels.js";
import { type Category, type Estimate, type Table, REASONS, checkCounts } from "./types.js";

export type AlphaMetric = "nominal" | "ordinal" | "interval" | "ratio";

/** Krippendorff's alpha result. */
export interface KrippendorffAlpha extends Estimate {
  metric: AlphaMetric;
  /** `n` = pairable units (m_u >= 2); `n_values` = pairable values (Krippendorff's n). */
  n_values: number;
  /** Units given with fewer than 2 values (unpairable), dropped. */
  n_units_dropped: number;
  /** Coincidence matrix o_ck over the declared categories. */
  coincidence: number[][];
  /** Value totals n_c = Σ_k o_ck. */
  n_c: number[];
  /** Observed and expected disagreement; α = 1 − D_o/D_e. */
  d_o: number | null;
  d_e: number | null;
}

/**
 * Krippendorff's α from items × categories value counts. Units with m_u < 2 values are dropped;
 * o_ck = Σ_u n_uc(n_uk − δ_ck)/(m_u − 1), n_c = Σ_k o_ck, n = Σ_c n_c,
 * D_o = Σ_ck o_ck δ²_ck / n, D_e = Σ_ck n_c n_k δ²_ck / (n(n − 1)), α = 1 − D_o/D_e.
 * δ²: nominal 1[c ≠ k]; ordinal (Σ_{g=c..k} n_g − (n_c + n_k)/2)² (column order = rank order);
 * interval (v_c − v_k)²; ratio ((v_c − v_k)/(v_c + v_k))².
 *
 * @param counts items × DECLARED categories (counts[u][c] = coders who gave unit u value c); rows may differ in total.
 * @param opts.metric default `nominal`. opts.values: numeric value of each column (needed for interval/ratio).
 * @returns value null with `no_pairable_units` (n = 0) or `undefined_single_value` (D_e = 0: one value used).
 *   `n` is the number of pairable units. No SE (use `krippendorffAlphaGwet` or a bootstrap over units).
 * @throws Error on a ragged/negative matrix, or interval/ratio without `values` of the right length.
 */
export function krippendorffAlpha(counts: Table, opts: { metric?: AlphaMetric; values?: readonly number[] } = {}): KrippendorffAlpha {
  const metric = opts.metric ?? "nominal";
  const q = checkCounts(counts);
  if ((metric === "interval" || metric === "ratio") && (!opts.values || opts.values.length !== q)) {
    throw new Error(`krippendorffAlpha: the ${metric} metric needs opts.values with one number per category (${q})`);
  }
  const o = Array.from({ length: q }, () => new Array<number>(q).fill(0));
  let units = 0;
  let dropped = 0;
  for (const row of counts) {
    const mu = row.reduce((s, x) => s + x, 0);
    if (mu < 2) {
      if (mu > 0) dropped++;
      continue;
    }
    units++;
    for (let c = 0; c < q; c++) {
      if (row[c] === 0) continue;
      for (let k = 0; k < q; k++) o[c][k] += (row[c] * (row[k] - (c === k ? 1 : 0))) / (mu - 1);
    }
  }
  const nc = o.map((r) => r.reduce((s, x) => s + x, 0));
  const n = nc.reduce((s, x) => s + x, 0);
  const res: KrippendorffAlpha = {
    value: null,
    n: units,
    metric,
    n_values: n,
    n_units_dropped: dropped,
    coincidence: o,
    n_c: nc,
    d_o: null,
    d_e: null,
  };
  if (units === 0 || n === 0) {
    res.reason = REASONS.noPairable;
    return res;
  }
  const delta2 = (c: number, k: number): number => {
    if (c === k) return 0;
    switch (metric) {
      case "nominal":
        return 1;
      case "ordinal": {
        const lo = Math.min(c, k);
        const hi = Math.max(c, k);
        let s = 0;
        for (let g = lo; g <= hi; g++) s += nc[g];
        const d = s - (nc[c] + nc[k]) / 2;
        return d * d;
      }
      case "interval": {
        const d = (opts.values as readonly number[])[c] - (opts.values as readonly number[])[k];
        return d * d;
      }
      case "ratio": {
        const vc = (opts.values as readonly number[])[c];
        const vk = (opts.values as readonly number[])[k];
        const d = (vc - vk) / (vc + vk);
        return d * d;
      }
    }
  };
  let dObs = 0;
  let dExp = 0;
  for (let c = 0; c < q; c++) {
    for (let k = 0; k < q; k++) {
      const d2 = delta2(c, k);
      if (d2 === 0) continue;
      dObs += o[c][k] * d2;
      dExp += nc[c] * nc[k] * d2;
    }
  }
  res.d_o = dObs / n;
  res.d_e = n > 1 ? dExp / (n * (n - 1)) : 0;
  if (!(res.d_e > 0)) {
    res.reason = REASONS.singleValue;
    return res;
  }
  res.value = 1 - res.d_o / res.d_e;
  return res;
}

/**
 * Krippendorff's α from raw reliability data laid out items × coders (`null`/`undefined` = not coded).
 * Numeric categories serve as the values for interval/ratio metrics.
 * @param ratings items × coders (transpose coders × units data first with `transpose`).
 * @param categories declared category set, in order (rank order for the ordinal metric).
 * @throws Error when a value is outside the declared set, or as {@link krippendorffAlpha}.
 */
export function krippendorffAlphaRatings(
  ratings: readonly (readonly (Category | null | undefined)[])[],
  categories: readonly Category[],
  opts: { metric?: AlphaMetric } = {},
): KrippendorffAlpha {
  const counts = ratingCounts(ratings, categories);
  const numeric = categories.every((c) => typeof c === "number");
  return krippendorffAlpha(counts, { metric: opts.metric, values: numeric ? (categories as number[]) : undefined });
}
