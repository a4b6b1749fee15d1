/**
 * `agree --human`'s design-weighted figures when their stratified SE is 0 (new user 45, finding 2): a post-stratified
 * estimate whose labelled items all count the same within each sampled stratum (every random-stratum item agrees
 * with the humans, every disagreement-stratum item does not) has a linearised SE of exactly 0, which printed as
 * `agreement 0.734 (SE 0)` from 16 labelled items: read as "known exactly". No sampling error was seen, which is not
 * none. As `estimate` does for its calibrated ASR (../estimate/calibrated.ts `fillInterval`), such an SE is undefined
 * with its reason, and a share (agreement, a prevalence; PABAK, a linear map of the agreement) gets the exact
 * zero-event interval instead: the estimate ± the two-sided Clopper-Pearson upper bound, 0 seen among the Kish
 * effective n of the labelled items, on the share of units that would differ from their stratum (each moving a share
 * by at most 1/N̂ each, so the share by at most that bound). Kappa and AC1 are no shares: their SE and interval are
 * undefined with the reason. Only a census (every stratum the rater's items fall in labelled whole) keeps SE 0, said so.
 */
import { clopperPearson } from "../stats/small-count.js";
import type { DesignEstimate, WeightedAgreement } from "../stats/weighted.js";

/** The exact zero-event interval of a share whose design SE is 0 in a sample (module docstring). */
export interface ZeroEventInterval {
  lower: number;
  upper: number;
  level: number;
  method: "zero_event_bound";
  /** The Kish effective n of the labelled items, and the Clopper-Pearson upper bound on the share that would differ. */
  n_eff: number;
  bound: number;
}

/** A design estimate as `agree --human` reports it: with the exact interval when its SE is 0 in a sample. */
export type AgreeDesignEstimate = DesignEstimate & { ci_exact?: ZeroEventInterval };

/** What {@link explainZeroSe} needs of the design: per stratum of the rater's labelled items, n_h (in and out of its domain) and N_h. */
export interface StratumCounts {
  n: ReadonlyMap<string, number>;
  N: Readonly<Record<string, number>>;
}

/** The reason code of an SE that is 0 in a sample (not a census): `se_zero_within_strata (<what>; <how many unlabelled>)`. */
export const SE_ZERO_WITHIN_STRATA = "se_zero_within_strata";

/** What "counts the same" means for each figure, for the reason text. */
const SAME = {
  share: "the labelled items all agree with the human consensus, or all disagree",
  kappa: "the labelled items all count the same in it (e.g. the same judge and human label)",
  prevalence: "the labelled items all carry this label, or none does",
};

/**
 * `est` (its SEs already through {@link withZeroSe}) with each SE of 0 explained (module docstring): in a sample
 * (some stratum of the rater's items not labelled whole) the SE, `se_no_fpc` when 0 too, and the Wald CI become null,
 * `se_reason` `se_zero_within_strata (...)` naming how many trajectories of the sampled strata are unlabelled, the flag
 * `se_zero_in_sample`; a share (agreement, PABAK, prevalences) gets `ci_exact` ({@link ZeroEventInterval}). In a
 * census the SE stays 0 with `se_reason` `census (...)`. A non-zero or undefined SE is left as it is.
 * @param level the confidence level of the exact interval (default 0.95).
 */
export function explainZeroSe(est: WeightedAgreement, design: StratumCounts, level = 0.95): WeightedAgreement {
  let unseen = 0;
  for (const [h, n] of design.n) unseen += Math.max(0, (design.N[h] ?? n) - n);
  unseen = Math.round(unseen);
  const nEff = est.kish_n_eff ?? est.n;
  const bound = nEff > 0 ? clopperPearson(0, nEff, level).upper : 1;
  const q = est.categories.length;
  type Kind = keyof typeof SAME;
  const fix = <T extends AgreeDesignEstimate>(e: T, kind: Kind, toShare?: (x: number) => number, fromShare?: (x: number) => number): T => {
    if (e.value === null || e.se !== 0) return e;
    if (unseen === 0) return { ...e, se_reason: "census (every stratum of these items was labelled whole: no sampling error; the humans' own errors are not in it)" };
    const out: T = { ...e, se: null, se_reason: `${SE_ZERO_WITHIN_STRATA} (in each stratum not labelled whole ${SAME[kind]}: no sampling error was seen among the ${est.n} labelled, which is not none; ${unseen} trajectories of those strata are unlabelled)`, ci_wald: null, flags: ["se_zero_in_sample"] };
    if (e.se_no_fpc === 0) out.se_no_fpc = null;
    if (toShare && fromShare) {
      const p = toShare(e.value);
      const lo = fromShare(Math.max(0, p - bound));
      const up = fromShare(Math.min(1, p + bound));
      out.ci_exact = { lower: lo, upper: up, level, method: "zero_event_bound", n_eff: nEff, bound };
    }
    return out;
  };
  const id = (x: number) => x;
  const pabakToShare = (x: number) => x * (1 - 1 / q) + 1 / q; // PABAK = (p_o − 1/q)/(1 − 1/q)
  const shareToPabak = (p: number) => (p - 1 / q) / (1 - 1 / q);
  return {
    ...est,
    po: fix(est.po, "share", id, id),
    kappa: fix(est.kappa, "kappa"),
    ac1: fix(est.ac1, "kappa"),
    pabak: q >= 2 ? fix(est.pabak, "share", pabakToShare, shareToPabak) : est.pabak,
    prevalence_human: est.prevalence_human.map((e) => fix(e, "prevalence", id, id)),
    prevalence_judge: est.prevalence_judge.map((e) => fix(e, "prevalence", id, id)),
  };
}

/**
 * One design-weighted figure in text: `0.412 (SE 0.051)`; an SE of 0 in a sample is never a bare 0:
 * `0.734 (SE undefined: none seen, not none; 95% exact CI [0.640, 0.828])` (kappa, AC1: `no exact CI: not a share`);
 * a census `1.000 (SE 0: census)`; otherwise as `estimateText` gives it.
 */
export function designFigureText(e: AgreeDesignEstimate, plain: (e: AgreeDesignEstimate) => string): string {
  if (e.value === null) return plain(e);
  if (e.se === 0 && e.se_reason?.startsWith("census")) return `${e.value.toFixed(3)} (SE 0: census, every stratum labelled whole)`;
  if (e.se !== null || !e.se_reason?.startsWith(SE_ZERO_WITHIN_STRATA)) return plain(e);
  const ci = e.ci_exact ? `${Math.round(e.ci_exact.level * 100)}% exact CI [${e.ci_exact.lower.toFixed(3)}, ${e.ci_exact.upper.toFixed(3)}]` : "no exact CI: not a share";
  return `${e.value.toFixed(3)} (SE undefined: 0 sampling error seen, not none; ${ci})`;
}

/**
 * The note under a design-weighted line that has an SE 0 in a sample (`""` when none): why, and how the exact CI is
 * formed.
 */
export function zeroSeNote(d: WeightedAgreement): string {
  const figs = [d.po, d.pabak, d.kappa, d.ac1] as AgreeDesignEstimate[];
  const z = figs.find((e) => e.se === null && e.se_reason?.startsWith(SE_ZERO_WITHIN_STRATA));
  if (!z) return "";
  const x = figs.find((e) => e.ci_exact)?.ci_exact;
  const why = z.se_reason!.slice(SE_ZERO_WITHIN_STRATA.length + 2, -1);
  const how = x ? `; an exact CI is the estimate ± the two-sided Clopper-Pearson upper bound ${(100 * x.bound).toFixed(1)}% on the share of trajectories that would differ from the rest of their stratum (0 seen, Kish effective n ${x.n_eff.toFixed(1)}; as estimate's calibrated interval with SE 0), on PABAK mapped from the agreement's` : "";
  return `SE undefined where its linearised value is 0: ${why}${how}`;
}

/**
 * A design-weighted SE of ~1e-17 (rounding, a perfect table) is 0, flagged as the stats module flags an exact 0, so it
 * is not "SE 0.000" beside the unweighted "SE 0, Wald CI undefined" (new-user report 17): one way in text and JSON.
 */
export function withZeroSe(est: WeightedAgreement): WeightedAgreement {
  type E = WeightedAgreement["kappa"];
  const fix = <T extends E>(e: T): T => {
    // a NaN SE is no zero (break46: it passed the test below and became 0); it stays as it is
    if (typeof e.se !== "number" || !Number.isFinite(e.se) || e.se === 0 || Math.abs(e.se) > ZERO_SE) return e;
    const out: T = { ...e, se: 0, flags: ["degenerate_ci"] };
    if (typeof e.se_no_fpc === "number" && Math.abs(e.se_no_fpc) <= ZERO_SE) out.se_no_fpc = 0;
    if (e.ci_wald) out.ci_wald = { ...e.ci_wald, degenerate: true };
    return out;
  };
  return { ...est, po: fix(est.po), kappa: fix(est.kappa), ac1: fix(est.ac1), pabak: fix(est.pabak), prevalence_human: est.prevalence_human.map(fix), prevalence_judge: est.prevalence_judge.map(fix) };
}
const ZERO_SE = 1e-12; // rounding error of a zero variance (shares and kappas are in [-1, 1])
