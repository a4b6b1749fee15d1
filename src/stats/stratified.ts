/**
 * The one stratified-SRS variance of ipi-judge's design-based figures (issue 27): `agree --human`'s design-weighted
 * agreement (`./weighted.ts` `designAgreement`) and `estimate`'s human-only and calibrated ASR
 * (`../estimate/calibrated.ts` `domainAsr`) both call it, so the same strata give the same SE in both.
 */

/** Why a stratified variance is undefined: a stratum that needs a within-stratum variance has one labelled item. */
export interface StratumTooSmall {
  reason: "stratum_n_lt_2";
  stratum: string;
  n: number;
  N: number;
}

/**
 * Whether a stratum's contribution to {@link stratifiedVariance} is undefined: n_c labelled items of a stratum of
 * N_c units, fewer than 2 and not the whole stratum (a census, n_c >= N_c, adds 0 with the fpc). The one rule
 * `estimate`, `agree --human` and `sample`'s warning (../sample/thin-strata.ts, stats55 finding 1) apply.
 * @param n labelled (sampled) items of the stratum; @param N its population size; @param fpc as stratifiedVariance.
 */
export function stratumVarianceUndefined(n: number, N: number, fpc = true): boolean {
  if (fpc && n >= N) return false;
  return n < 2;
}

/**
 * Stratified-SRS variance of a linearised total: V̂ = Σ_c N_c² (1 − f_c) s²_{z,c}/n_c, f_c = n_c/N_c, s²_{z,c} the
 * sample variance (n_c − 1 divisor) of z over the labelled items of stratum c (Särndal, Swensson & Wretman 1992,
 * Model Assisted Survey Sampling, §3.7 STSI and §5.5-5.6 Taylor linearisation; test/data/vectors/NOTES.md §7.4). For
 * a mean, pass z already divided by the population size (z_i = u_i/N), as the callers' influence values are.
 *
 * - A census of a stratum (n_c >= N_c) adds 0 with the fpc: every unit is observed, there is no sampling variance,
 *   whatever n_c (even 1, where s² cannot be computed).
 * - A stratum named in `emptyCells` holds no unit of the domain in the population: z ≡ 0 there and it adds exactly 0
 *   whatever n_c (Särndal et al. 1992 §10.3, domain estimation under STSI).
 * - Any other stratum needs n_c >= 2; one labelled item leaves the variance undefined (`stratum_n_lt_2`), even when
 *   its z is 0 (a guess is not an estimate).
 * - `fpc: false` drops (1 − f_c) (the with-replacement approximation); a census stratum then needs n_c >= 2 too.
 *
 * @param z influence value per labelled item; @param cells stratum of each item.
 * @param N population size per stratum (a Map or a record); every stratum named in `cells` must have one > 0.
 * @returns the variance, or {@link StratumTooSmall} naming the first such stratum (strata in code-unit order).
 * @throws Error when lengths differ, a stratum has no size, or `emptyCells` names a stratum with a non-zero z.
 */
export function stratifiedVariance(
  z: readonly number[],
  cells: readonly string[],
  N: ReadonlyMap<string, number> | Readonly<Record<string, number>>,
  opts: { fpc?: boolean; emptyCells?: ReadonlySet<string> } = {},
): number | StratumTooSmall {
  if (z.length !== cells.length) throw new Error("stratifiedVariance: z and cells differ in length");
  const fpc = opts.fpc ?? true;
  const sizeOf = (c: string): number | undefined => (N instanceof Map ? N.get(c) : (N as Readonly<Record<string, number>>)[c]);
  const by = new Map<string, number[]>();
  cells.forEach((c, i) => {
    const g = by.get(c);
    if (g) g.push(z[i]);
    else by.set(c, [z[i]]);
  });
  let v = 0;
  for (const [c, zs] of [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const Nc = sizeOf(c);
    if (!(typeof Nc === "number" && Nc > 0)) throw new Error(`stratifiedVariance: no population size for stratum ${JSON.stringify(c)}`);
    const n = zs.length;
    if (opts.emptyCells?.has(c)) {
      if (zs.some((x) => x !== 0)) throw new Error(`stratifiedVariance: cell ${JSON.stringify(c)} is named empty of the domain but has a non-zero z`);
      continue;
    }
    if (fpc && n >= Nc) continue; // a census of the stratum: no sampling variance
    if (stratumVarianceUndefined(n, Nc, fpc)) return { reason: "stratum_n_lt_2", stratum: c, n, N: Nc };
    const mean = zs.reduce((s, x) => s + x, 0) / n;
    const s2 = zs.reduce((s, x) => s + (x - mean) * (x - mean), 0) / (n - 1);
    v += Nc * Nc * (fpc ? 1 - n / Nc : 1) * (s2 / n);
  }
  return v;
}
