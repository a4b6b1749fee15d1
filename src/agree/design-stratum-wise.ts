/**
 * `agree --human`'s post-stratified design-weighted figures when strata of the rater's labelled items show no
 * variation (session 50; `estimate`'s rule of session 49, ../estimate/calibrated.ts `joinStratumMover`): the
 * stratified variance V̂ = Σ_h N_h²(1 − f_h)s²_h/n_h gets 0 from a stratum whose labelled items all count the same
 * (all agree with the human consensus, or all disagree; all carry a label, or none does), reading no variation seen
 * as none there. When much of the weight sits in such strata the Wald interval p̂ ± z·SE is too narrow (the seeded
 * simulation of test/agree/design-stratum-wise.test.ts: the agreement covered 73-90% where 95% was asked).
 *
 * The shares (the agreement p_o, each prevalence of the human consensus and of the judge) are weighted sums of
 * per-stratum shares, Σ_h W_h p_h with W_h = N̂_{h,D}/N̂_D (the stratum's share of the rater's domain), so they get
 * `estimate`'s stratum-wise score interval (../stats/stratum-mover.ts: the MOVER of Zou, Huang & Zhang 2009 over
 * each varied stratum's Wilson interval, the unvaried strata together as one zero-event Clopper-Pearson term), and
 * the interval to read is the union of the design interval and that one, when a stratum not labelled whole shows no
 * variation and the union is wider. As in `estimate`, a figure whose few events already gave it the small-count
 * union (./design-small-count.ts, whose exact side holds the zero-event bound) or whose SE is 0 (the zero-event
 * bound of ./design-zero-se.ts, the pooled term itself) keeps that interval. PABAK, a linear map of the agreement,
 * gets the agreement's interval mapped.
 *
 * Kappa and AC1 are ratios of such sums (chance-corrected: (p_o − p_e)/(1 − p_e)), with no per-stratum form that
 * the MOVER could combine. Their linearised SE rests on the same stratified variance, which gets 0 from a stratum
 * whose labelled items all carry one (judge, human) pair; so when a stratum not labelled whole does, their Wald
 * interval (`ci_wald`) is withdrawn (null), `ci_method` says why and the flag `stratum_unvaried_no_interval` is set;
 * their SE is kept, said to understate. (In the simulation, kappa's Wald interval covered 85-93% in such designs.)
 */
import { stratumMover, type StratumShare } from "../stats/stratum-mover.js";
import type { Bounds } from "../stats/small-count.js";
import type { DesignRecord, WeightedAgreement } from "../stats/weighted.js";
import { stratumShares, type GroupStrata } from "../stats/stratum-shares.js";
import { stratumCounts } from "./design-strata.js";
import type { SmallCountEstimate } from "./design-small-count.js";

/** The interval of a design-weighted share joined with the stratum-wise one (module docstring), on its figure's scale. */
export interface StratumWiseCi {
  lower: number;
  upper: number;
  level: number;
  method: "union_wald_stratum_mover";
  /** The Wald interval it joins (clipped) and the stratum-wise MOVER interval (clipped), on this figure's scale. */
  design: Bounds;
  mover: Bounds;
  /** Strata of the rater's items not labelled whole whose labelled items all count the same in this share, of `sampled`. */
  unvaried: number;
  sampled: number;
  /** How it was formed, in words (as `estimate`'s `ci_method`). */
  text: string;
}

/** A design estimate of `agree --human` with the stratum-wise interval when it widened the Wald one. */
export type StratumWiseEstimate = SmallCountEstimate & { ci_stratum_wise?: StratumWiseCi };

/** The design behind a post-stratified estimate: its records, N_h (of the rater's domain) and the items outside it. */
export interface DesignOfEstimate {
  records: readonly DesignRecord[];
  N: Readonly<Record<string, number>>;
  outOfDomain: Readonly<Record<string, number>>;
}

const clip01 = (x: number) => Math.min(1, Math.max(0, x));
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * The strata of one share of the rater's items (`stratumShares`: weight N̂_{h,D}/N̂_D with w = N_h/n_h, n_h counting the
 * items outside the domain too, f_h = n_h/N_h).
 */
function strataOf(d: DesignOfEstimate, value: (r: DesignRecord) => number): GroupStrata {
  const nc = stratumCounts(
    d.records.map((r) => r.stratum),
    d.outOfDomain,
  );
  const N = new Map(Object.entries(d.N));
  let Nhat = 0;
  for (const r of d.records) Nhat += N.get(r.stratum)! / nc.get(r.stratum)!;
  return stratumShares(
    d.records.map((r) => ({ cell: r.stratum, u1: value(r) })),
    nc,
    N,
    Nhat,
  );
}

/** Strata not labelled whole (of `sampled`) whose labelled items of the rater all carry one (judge, human) pair. */
function unvariedPairs(d: DesignOfEstimate): { unvaried: number; sampled: number } {
  const nc = stratumCounts(
    d.records.map((r) => r.stratum),
    d.outOfDomain,
  );
  const seen = new Map<string, Set<string>>();
  for (const r of d.records) seen.set(r.stratum, (seen.get(r.stratum) ?? new Set()).add(JSON.stringify([r.judge, r.human])));
  let [unvaried, sampled] = [0, 0];
  for (const [h, set] of seen) {
    if (nc.get(h)! >= d.N[h]) continue; // labelled whole
    sampled++;
    if (set.size === 1) unvaried++;
  }
  return { unvaried, sampled };
}

/**
 * The stratum-wise union of one share `e` (module docstring), or null when no stratum not labelled whole is unvaried,
 * the figure has another interval (SE 0, SE undefined, the small-count union), or the MOVER interval lies inside.
 */
function union(e: StratumWiseEstimate, g: GroupStrata, level: number, what: string): StratumWiseCi | null {
  if (e.value === null || g.unvaried === 0 || e.ci_small_count || e.ci_exact) return null;
  const w = e.ci_wald;
  if (!w || typeof e.se !== "number" || !(e.se > 0)) return null;
  const design = { lower: w.lower_clipped, upper: w.upper_clipped };
  const m = stratumMover(g.strata as StratumShare[], level);
  const mover = { lower: clip01(m.lower), upper: clip01(m.upper) };
  if (mover.lower >= design.lower - 1e-12 && mover.upper <= design.upper + 1e-12) return null;
  const text =
    `stratum-wise score interval: ${g.unvaried} of the ${g.sampled} strata not labelled whole show no variation (${what}), which the stratified variance reads as none; ` +
    `the interval is the union of the Wald interval [${pct(design.lower)}, ${pct(design.upper)}] and the MOVER combination (Zou, Huang & Zhang 2009) of each varied stratum's Wilson score interval with, for the unvaried strata together, the two-sided Clopper-Pearson bound on the share of their unseen units that differ (0 seen among their Kish effective n) [${pct(mover.lower)}, ${pct(mover.upper)}], as estimate's intervals`;
  return { lower: Math.min(design.lower, mover.lower), upper: Math.max(design.upper, mover.upper), level, method: "union_wald_stratum_mover", design, mover, unvaried: g.unvaried, sampled: g.sampled, text };
}

/**
 * `est` (post-stratified, through `withSmallCount`) with `ci_stratum_wise` and `ci_method` on the agreement, PABAK and
 * each prevalence when strata without variation widen their interval, and kappa's and AC1's Wald interval withdrawn
 * when a stratum's items all carry one (judge, human) pair (module docstring). Unchanged otherwise.
 * @param design the records, N_h and out-of-domain counts `designAgreement` was given.
 * @param level the confidence level (0.95: the Wald interval's).
 */
export function withStratumWise(est: WeightedAgreement, design: DesignOfEstimate, level = 0.95): WeightedAgreement {
  if (design.records.length === 0) return est;
  const share = <T extends StratumWiseEstimate>(e: T, value: (r: DesignRecord) => number, what: string): T => {
    const c = union(e, strataOf(design, value), level, what);
    return c ? { ...e, ci_stratum_wise: c, ci_method: c.text } : e;
  };
  const prevalence = (who: "judge" | "human", list: WeightedAgreement["prevalence_human"]) =>
    list.map((e) => share(e, (r) => (r[who] === e.category ? 1 : 0), `their labelled items all carry ${who === "human" ? "the human consensus" : "the judge's"} label ${e.category}, or none does`));
  const out: WeightedAgreement = { ...est, prevalence_human: prevalence("human", est.prevalence_human), prevalence_judge: prevalence("judge", est.prevalence_judge) };
  const po = share(est.po as StratumWiseEstimate, (r) => (r.judge === r.human ? 1 : 0), "their labelled items all agree with the human consensus, or all disagree");
  const c = po.ci_stratum_wise;
  if (c && po.value !== null) {
    out.po = po;
    const q = est.categories.length;
    if (q >= 2 && est.pabak.value !== null && est.pabak.ci_wald) {
      const toPabak = (v: number) => (v - 1 / q) / (1 - 1 / q); // PABAK = (p_o − 1/q)/(1 − 1/q)
      const map = (b: Bounds) => ({ lower: toPabak(b.lower), upper: toPabak(b.upper) });
      out.pabak = { ...est.pabak, ci_stratum_wise: { ...c, ...map(c), design: map(c.design), mover: map(c.mover) }, ci_method: `${c.text}; on PABAK mapped from the agreement's` } as StratumWiseEstimate;
    }
  }
  const pairs = unvariedPairs(design);
  if (pairs.unvaried === 0) return out;
  const why = `no stratum-wise form: a chance-corrected ratio of agreement terms, not a weighted sum of per-stratum shares; its linearised SE rests on the stratified variance, which reads the ${pairs.unvaried} of ${pairs.sampled} strata not labelled whole whose labelled items all carry one (judge, human) pair as without variation, so its Wald interval may be too narrow and is not given (the SE may understate); read it with the agreement's interval`;
  for (const k of ["kappa", "ac1"] as const) {
    const e = est[k];
    if (e.value !== null && e.ci_wald) out[k] = { ...e, ci_wald: null, ci_method: why, flags: [...(e.flags ?? []), "stratum_unvaried_no_interval"] } as StratumWiseEstimate;
  }
  return out;
}

/**
 * One design-weighted figure's text (`base`, from `smallCountFigureText`) with its stratum-wise interval:
 * `0.900 (SE 0.031; 95% CI [0.801, 0.948], the Wald interval joined with the stratum-wise one)`; kappa and AC1 with
 * their interval withdrawn: `0.712 (SE 0.061, may understate: strata without variation, no CI)`. `base` unchanged otherwise.
 */
export function stratumWiseFigureText(e: StratumWiseEstimate, base: string): string {
  if (!base.endsWith(")")) return base;
  const c = e.ci_stratum_wise;
  if (c) return `${base.slice(0, -1)}; ${Math.round(c.level * 100)}% CI [${c.lower.toFixed(3)}, ${c.upper.toFixed(3)}], the Wald interval joined with the stratum-wise one)`;
  if (e.ci_method?.startsWith("no stratum-wise form")) return `${base.slice(0, -1)}, may understate: strata without variation, no CI)`;
  return base;
}

/**
 * The note under a design-weighted line whose agreement has a stratum-wise interval, or (without one) whose kappa and
 * AC1 lost their Wald interval (`""` when neither).
 */
export function stratumWiseNote(d: WeightedAgreement): string {
  const c = (d.po as StratumWiseEstimate).ci_stratum_wise;
  const k = (d.kappa as StratumWiseEstimate).ci_method;
  if (!c) return k?.startsWith("no stratum-wise form") ? `kappa and AC1 without an interval: ${k}` : "";
  return `strata without variation (a Wald interval would under-cover): agreement's ${c.text}; PABAK's is that interval mapped; kappa and AC1 have no stratum-wise form: their Wald intervals are withdrawn where strata show one (judge, human) pair (read them with the agreement's interval)`;
}
