/**
 * What a reader can check beside a figure with no interval (session 52; newuser51 finding 1: a calibrated 35.0% with
 * "CI undefined" stood as a headline, one labelled item weighing 11.8 points). The value is marked UNSTABLE
 * (`../format/stat-text.ts` NO_INTERVAL_MARK) and now says why it is unstable in numbers: the largest single labelled
 * item's weight as a share of the group's estimated size, w_max / Σw (w = N_c/n_c, the design weights of
 * ./calibrated.ts), which is how far that item's label alone moves the estimate (a Hájek mean Σ w y / Σ w, and the
 * calibrated correction Σ w (y − m) / Σ w, move by w_i/Σw when y_i flips, the weights fixed by the design); and the
 * Kish effective sample size (Σw)²/Σw² (Kish 1965, *Survey Sampling*, §11.7) beside the labelled count.
 */

/** The largest item's weight share and the Kish effective n of a group's labelled items. */
export interface WeightCheck {
  /** w_max / Σw: the points (as a share) the heaviest labelled item's label moves the estimate by. */
  largest_share: number;
  /** The design cell (stratum) of that item, with its N_c and labelled n_c. */
  stratum: string;
  stratum_N: number;
  stratum_n: number;
  /** (Σw)² / Σw² over the group's labelled items. */
  kish_n_eff: number;
  /** The group's labelled items. */
  n: number;
}

/**
 * The {@link WeightCheck} of a group's labelled items; null when there are none.
 * @param items one entry per labelled item of the group: its cell, N_c and labelled n_c (weight N_c/n_c).
 */
export function weightCheck(items: ReadonlyArray<{ cell: string; N: number; n: number }>): WeightCheck | null {
  let sum = 0;
  let sum2 = 0;
  let top: { cell: string; N: number; n: number; w: number } | null = null;
  for (const it of items) {
    const w = it.N / it.n;
    sum += w;
    sum2 += w * w;
    if (!top || w > top.w || (w === top.w && it.cell < top.cell)) top = { ...it, w };
  }
  if (!top || sum <= 0) return null;
  return { largest_share: top.w / sum, stratum: top.cell, stratum_N: top.N, stratum_n: top.n, kish_n_eff: (sum * sum) / sum2, n: items.length };
}

/**
 * The words after a value without an interval: `; its heaviest labelled item (stratum "A|x", N 40, 1 labelled) is
 * 11.8% of the estimate's weight: its label alone moves the value 11.8 points; Kish effective n 8.1 of 24 labelled`.
 */
export function weightCheckText(w: WeightCheck | undefined | null): string {
  if (!w) return "";
  const p = (100 * w.largest_share).toFixed(1);
  return `; its heaviest labelled item (stratum ${JSON.stringify(w.stratum)}, N ${w.stratum_N}, ${w.stratum_n} labelled) is ${p}% of the estimate's weight: its label alone moves the value ${p} points; Kish effective n ${w.kish_n_eff.toFixed(1)} of ${w.n} labelled`;
}
