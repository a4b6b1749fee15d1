/**
 * `agree --human`'s design-weighted agreement when the labelled sample shows few disagreements (session 46): the Wald
 * interval p̂ ± 1.96·SE of a share with a handful of events under-covers (Korn & Graubard 1998, Survey Methodology
 * 24:193; Brown, Cai & DasGupta 2001), the case `estimate` joins with the exact Korn-Graubard interval. The same rule
 * and code here (`../stats/small-count.ts`): with x = (1 − p̂)·n_eff effective disagreements (or p̂·n_eff agreements)
 * among the Kish effective n of the rater's labelled items fewer than 10 (`SMALL_COUNT_BELOW`), the interval to read is
 * the union of the design interval (the Wald interval; with SE 0 in a sample, the zero-event bound of
 * ./design-zero-se.ts) and the Korn-Graubard Clopper-Pearson interval of p̂ with the design effective n p̂(1−p̂)/SE²
 * (Kish's where that is undefined), its unseen side at least the zero-event bound (`shareInterval`), as estimate's
 * human-only share. PABAK, a linear map of the agreement, gets the agreement's interval mapped. The prevalences (human
 * and judge, every category; JSON only) are shares too and get the same union, their events the items carrying the
 * label (session 47: they had the zero-event interval of ./design-zero-se.ts but not this). Kappa and AC1 are no
 * shares: their Wald intervals stay, the note says the agreement's count is small.
 */
import { clopperPearson, effectiveSize, shareInterval, smallCountText, smallCountUnion, SMALL_COUNT_BELOW, type Bounds, type SmallCountUnion } from "../stats/small-count.js";
import type { Category } from "../stats/types.js";
import type { WeightedAgreement } from "../stats/weighted.js";
import type { AgreeDesignEstimate } from "./design-zero-se.js";

/** The interval of a design-weighted share with few events (module docstring), on the figure it is read for. */
export interface SmallCountCi {
  lower: number;
  upper: number;
  level: number;
  method: "union_wald_korn_graubard" | "union_zero_event_bound_korn_graubard";
  /** The design interval it joins (Wald, or the zero-event bound) and the exact Korn-Graubard interval, on this figure's scale. */
  design: Bounds;
  exact: Bounds;
  /** The agreement and PABAK: effective disagreements (x = (1 − p̂)·n_eff) among the Kish effective n. */
  disagreements?: number;
  /** A prevalence: effective items carrying the label (x = p̂·n_eff) among the Kish effective n. */
  events?: number;
  n_eff: number;
  n_design: number;
  /** How it was formed, in words (as `estimate`'s `ci_method`). */
  text: string;
}

/** A design estimate of `agree --human` with the small-count interval when it widened the design one. */
export type SmallCountEstimate = AgreeDesignEstimate & { ci_small_count?: SmallCountCi; ci_method?: string };

/** One share's small-count union (../stats/small-count.ts), with what {@link SmallCountCi} says of it; null when none. */
interface ShareUnion {
  u: SmallCountUnion;
  design: Bounds;
  nDesign: number;
  method: SmallCountCi["method"];
  text: string;
}

/**
 * The small-count interval of one design-weighted share `e` (the agreement, a prevalence: module docstring), or null
 * when its events are not few, its exact interval lies inside the design one, or it has no design interval (an SE
 * undefined for another reason). The one rule of estimate and agree --human: `smallCountUnion` of the design
 * interval and `shareInterval` (Korn-Graubard with the design effective n, the unseen side at least the zero-event
 * bound of the Kish effective n `nEff`).
 * @param what the events and their complement, for the text; @param among whose labelled items (`the 60`).
 * @param nLabelled the labelled items, the cap of the design effective n.
 */
function shareUnion(e: AgreeDesignEstimate, nEff: number, level: number, what: readonly [string, string], among: string, nLabelled: number): ShareUnion | null {
  const p = e.value;
  if (p === null || !(nEff > 0)) return null;
  const design = designBounds(e);
  if (!design) return null;
  const se = typeof e.se === "number" && e.se > 0 ? e.se : null;
  const nDesign = effectiveSize(p, se, nEff, nLabelled); // truncated at the labelled count (Korn & Graubard 1998)
  const floor = clopperPearson(0, nEff, level).upper; // the zero-event bound, estimate's `zeroEventUpperBound`
  const exact = shareInterval(p, nDesign, floor, level);
  // smallCountUnion counts the fewer of x events and n − x
  const u = smallCountUnion(design, exact, p * nEff, nEff);
  if (!u) return null;
  const joined = e.ci_exact ? "zero-event bound" : "Wald interval";
  const text = smallCountText(u, {
    what,
    among,
    nEff,
    joined,
    design,
    how: ` (design effective n ${nDesign.toFixed(1)}; at least the zero-event bound ${(100 * floor).toFixed(1)}% on the unseen side), as estimate's intervals with few events`,
  });
  return { u, design, nDesign, method: e.ci_exact ? "union_zero_event_bound_korn_graubard" : "union_wald_korn_graubard", text };
}

/** {@link SmallCountCi} of a {@link ShareUnion} on a figure's scale (`map`: identity, or the agreement to PABAK). */
function ciOf(s: ShareUnion, nEff: number, level: number, map: (v: number) => number, count: { disagreements: number } | { events: number }): SmallCountCi {
  return {
    lower: map(s.u.union.lower),
    upper: map(s.u.union.upper),
    level,
    method: s.method,
    design: { lower: map(s.design.lower), upper: map(s.design.upper) },
    exact: { lower: map(s.u.exact.lower), upper: map(s.u.exact.upper) },
    ...count,
    n_eff: nEff,
    n_design: s.nDesign,
    text: s.text,
  };
}

/**
 * `est` with `ci_small_count` and `ci_method` on the agreement (p_o), PABAK and each prevalence (human and judge)
 * when few events (disagreements or agreements; items carrying the label or not) widen their design interval (module
 * docstring; session 47: the prevalences had the zero-event interval but not this union); each figure unchanged
 * otherwise, and when its SE is undefined for another reason (a stratum of one item) or the weights carry no SE.
 * @param level the confidence level (0.95: the Wald interval's).
 */
export function withSmallCount(est: WeightedAgreement, level = 0.95): WeightedAgreement {
  const nEff = est.kish_n_eff ?? est.n;
  const among = `the ${est.n}`;
  const prevalence = (e: SmallCountEstimate & { category: Category }, who: string): typeof e => {
    const s = shareUnion(e, nEff, level, [`items ${who} labels ${e.category}`, `items ${who} labels otherwise`], among, est.n);
    return s && e.value !== null ? { ...e, ci_small_count: ciOf(s, nEff, level, (v) => v, { events: Math.max(0, e.value * nEff) }), ci_method: s.text } : e;
  };
  const out: WeightedAgreement = {
    ...est,
    prevalence_human: est.prevalence_human.map((e) => prevalence(e, "the human consensus")),
    prevalence_judge: est.prevalence_judge.map((e) => prevalence(e, "the judge")),
  };
  const po = est.po as SmallCountEstimate;
  const s = shareUnion(po, nEff, level, ["agreements with the human consensus", "disagreements with the human consensus"], among, est.n);
  if (!s || po.value === null) return out;
  const count = { disagreements: Math.max(0, (1 - po.value) * nEff) }; // never negative (p_o clamped at 1 upstream; break47)
  out.po = { ...po, ci_small_count: ciOf(s, nEff, level, (v) => v, count), ci_method: s.text } as SmallCountEstimate;
  const q = est.categories.length;
  const pb = est.pabak as SmallCountEstimate;
  if (q >= 2 && pb.value !== null) {
    const toPabak = (v: number) => (v - 1 / q) / (1 - 1 / q); // PABAK = (p_o − 1/q)/(1 − 1/q)
    out.pabak = { ...pb, ci_small_count: ciOf(s, nEff, level, toPabak, count), ci_method: s.text } as SmallCountEstimate;
  }
  return out;
}

/** The design interval of a share: the zero-event bound of an SE-0 sample, else its Wald interval (clipped); null when none. */
function designBounds(e: AgreeDesignEstimate): Bounds | null {
  if (e.ci_exact) return { lower: e.ci_exact.lower, upper: e.ci_exact.upper };
  const w = e.ci_wald;
  if (!w || typeof e.se !== "number" || e.se <= 0) return null;
  return { lower: w.lower_clipped, upper: w.upper_clipped };
}

/**
 * One design-weighted figure's text (`designFigureText` of ./design-zero-se.ts, `base`) with its small-count interval:
 * `0.967 (SE 0.022; 95% CI [0.886, 1.000], the Wald interval joined with the exact small-count one)`; an SE-0 figure's
 * exact CI is replaced by the union (`... not none; 95% CI [...], the zero-event bound joined with ...)`). `base`
 * unchanged without one.
 */
export function smallCountFigureText(e: SmallCountEstimate, base: string): string {
  const c = e.ci_small_count;
  if (!c || !base.endsWith(")")) return base;
  const ci = `; ${Math.round(c.level * 100)}% CI [${c.lower.toFixed(3)}, ${c.upper.toFixed(3)}], the ${c.method === "union_wald_korn_graubard" ? "Wald interval" : "zero-event bound"} joined with the exact small-count one)`;
  const zero = base.match(/; \d+% exact CI \[[^\]]*\]\)$/);
  return zero ? base.slice(0, zero.index) + ci : base.slice(0, -1) + ci;
}

/**
 * The note under a design-weighted line whose agreement has a small-count interval (`""` when none): how it was formed,
 * and that kappa and AC1 keep their Wald SE (no share, no exact interval).
 */
export function smallCountNote(d: WeightedAgreement): string {
  const c = (d.po as SmallCountEstimate).ci_small_count;
  if (!c) return "";
  return `few disagreements (a Wald interval would under-cover): agreement's ${c.text}; PABAK's is that interval mapped; kappa and AC1 are no shares and keep their SE (read them with the agreement's count: fewer than ${SMALL_COUNT_BELOW} effective)`;
}
