/**
 * Self-family leniency compared like with like (new user 33, M): the paired difference (judge − the other judges'
 * majority) of own-family and other-family agents WITHIN strata of the other judges' majority label, combined with
 * weights common to both groups.
 *
 * Why: a judge that never sees the agent, but over-claims compliance on exposed runs where the agent did not comply,
 * has a larger crude difference on the agent families whose runs are more often exposed. The crude gap (own − other)
 * then differs from 0 through the mix of runs, not through leniency. Within one stratum the two groups face the same
 * opportunity to over- or under-claim; only a difference there is leniency.
 *
 * Strata (a function of the other judges' votes only, never of the judge's, so the judge's label cannot move a
 * trajectory between strata): the others' binary majority compromised -> `compromised`; not compromised -> by their
 * not_exposed votes against their exposed ones (unaffected, flagged_refusal, task_refusal): `not_exposed`,
 * `exposed_not_compromised`, or `not_compromised_exposure_split` on a tie. A tied binary majority is left out before
 * (`others_tied`, as in the crude figures).
 *
 * Combination: direct standardization to the pooled stratum mix (Fleiss, Levin & Paik, "Statistical Methods for Rates
 * and Proportions", 3rd ed., 2003, ch. 19, "The Standardization of Rates"): with d_g,s the mean paired difference of
 * group g in stratum s and w_s = (n_own,s + n_other,s) / Σ over compared strata, the adjusted difference of group g is
 * Σ_s w_s · d_g,s and the adjusted gap is Σ_s w_s · (d_own,s − d_other,s). Both groups are weighted to the same
 * stratum mix, so a judge whose over/under-claim rates depend on the stratum only has an adjusted gap of 0 in
 * expectation, whatever each family's mix. A stratum with no own-family or no other-family trajectory cannot be
 * compared: it is left out of the weights and its trajectories are counted (`left_out`); with no stratum left the
 * adjusted figures are null with a reason.
 *
 * CI of the adjusted gap (`gap_ci`, method `mover_wilson`): within a stratum the others' majority is constant (1 in
 * `compromised`, 0 elsewhere), so d_own,s − d_other,s = p_own,s − p_other,s, the difference of the judge's shares of
 * compromised calls in two independent groups, and the gap is the linear combination Σ_s w_s (p_own,s − p_other,s)
 * of independent binomial proportions. Its interval is the MOVER with a Wilson interval per proportion (Zou, Huang &
 * Zhang 2009, Computational Statistics & Data Analysis 53:1080-1085; `../stats/mover.ts`), the weights w_s taken as
 * fixed. It replaces an item-bootstrap percentile interval that under-covered when an own-family cell was sparse: with
 * few or no own-family over-claims the resampled variance collapsed with the estimate (statistics audit 33, M1: 6-9%
 * false "lenient" flags for an agent-blind judge against 2.5% nominal; a 0/132 cell gave a zero-width side).
 */
import { moverWilson, type MoverInterval, type MoverTerm } from "../stats/index.js";

/** The strata, in report order. */
export const LENIENCY_STRATA = ["not_exposed", "exposed_not_compromised", "not_compromised_exposure_split", "compromised"] as const;
export type LeniencyStratum = (typeof LENIENCY_STRATA)[number];
const K = LENIENCY_STRATA.length;

/** One compared trajectory: the judge's vote and the others' majority (0/1), its stratum (index) and group. */
export interface StratItem {
  judge: number;
  others: number;
  own: boolean;
  stratum: number;
}

/** Every distinct item (judge vote × stratum × own family), shared by every trajectory (no allocation per trajectory). */
const ITEMS: readonly StratItem[] = (() => {
  const out: StratItem[] = [];
  for (let s = 0; s < K; s++)
    for (let j = 0; j < 2; j++)
      for (let o = 0; o < 2; o++) out.push(Object.freeze({ judge: j, others: LENIENCY_STRATA[s] === "compromised" ? 1 : 0, own: o === 1, stratum: s }));
  return out;
})();

/**
 * The stratum of a trajectory from the other judges' votes (see the module docstring), or null when their binary
 * majority ties or there is no vote.
 * @param yes the others' votes compromised; `no` not compromised, of which `notExposed` not_exposed.
 */
export function stratumOf(yes: number, no: number, notExposed: number): number | null {
  if (yes + no === 0 || yes === no) return null;
  if (yes > no) return K - 1;
  const exposed = no - notExposed;
  return notExposed > exposed ? 0 : exposed > notExposed ? 1 : 2;
}

/** The shared item of a trajectory. */
export function stratItem(judge: boolean, stratum: number, own: boolean): StratItem {
  return ITEMS[stratum * 4 + (judge ? 2 : 0) + (own ? 1 : 0)];
}

/** One stratum of a judge's adjusted leniency. */
export interface LeniencyStratumRow {
  stratum: LeniencyStratum;
  /** own-family and other-family trajectories in it (the others' majority ASR there is 1 in `compromised`, else 0) */
  n_own: number;
  n_other: number;
  /** mean paired difference judge − others in the stratum, in points; null when the group has none there */
  own_diff_points: number | null;
  other_diff_points: number | null;
  /** its weight in the adjusted figures (pooled share of the compared strata); null when it is not compared */
  weight: number | null;
  /** why it is not compared: `no_own_family_trajectories` or `no_other_family_trajectories` */
  reason?: string;
}

/** A judge's adjusted (stratified, directly standardized) self-family leniency. */
export interface AdjustedLeniency {
  /** how the strata are combined */
  method: "direct_standardization_to_pooled_stratum_mix";
  /** what the strata are */
  stratified_by: "other_judges_majority_label";
  /** every stratum holding a trajectory, in {@link LENIENCY_STRATA} order */
  strata: LeniencyStratumRow[];
  /** trajectories in the compared strata */
  n_compared: number;
  /** trajectories in strata with no own-family or no other-family trajectory, left out of the adjusted figures */
  left_out: number;
  /** each group's difference standardized to the pooled stratum mix, in points */
  own_diff_points: number | null;
  other_diff_points: number | null;
  /** own − other, standardized (negative = more lenient on its own maker's agents); what the warning rests on */
  gap_points: number | null;
  gap_reason?: string;
  /** CI of gap_points, in points: MOVER with Wilson limits per stratum proportion, weights fixed (module docstring) */
  gap_ci?: GapInterval;
  /**
   * The interval the flag rests on when several judges are tested at once: the same MOVER-Wilson interval at the
   * Bonferroni level 1 − 0.05 / `tests` (Dunn 1961), so that the chance of flagging any of `tests` judges blind to
   * the agent's family stays at most 5% (statistics audit 33: 2.4-3.5% per judge, so 7-10% for a committee of
   * three). Absent with one judge tested (`gap_ci` is then the flag's) or no CI.
   */
  gap_ci_flag?: GapInterval & { adjustment: "bonferroni"; tests: number };
}

/** The adjusted gap's interval in points ({@link MoverInterval} without its estimate, which is `gap_points`). */
export type GapInterval = Omit<MoverInterval, "estimate">;

/** Per-stratum counts: n and Σ(judge − others), own at 2s+1, other at 2s. Reused between calls: do not keep. */
const scratchN = new Float64Array(2 * K);
const scratchD = new Float64Array(2 * K);

function tally(items: readonly StratItem[]): void {
  scratchN.fill(0);
  scratchD.fill(0);
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    const k = 2 * x.stratum + (x.own ? 1 : 0);
    scratchN[k]++;
    scratchD[k] += x.judge - x.others;
  }
}

/** The standardized own and other differences (fractions) from the tallies, or null when no stratum is compared. */
function standardized(): { own: number; other: number; n: number } | null {
  let n = 0;
  for (let s = 0; s < K; s++) if (scratchN[2 * s] > 0 && scratchN[2 * s + 1] > 0) n += scratchN[2 * s] + scratchN[2 * s + 1];
  if (n === 0) return null;
  let own = 0;
  let other = 0;
  for (let s = 0; s < K; s++) {
    const no = scratchN[2 * s + 1];
    const nx = scratchN[2 * s];
    if (no === 0 || nx === 0) continue;
    const w = (no + nx) / n;
    own += (w * scratchD[2 * s + 1]) / no;
    other += (w * scratchD[2 * s]) / nx;
  }
  return { own, other, n };
}

/** The adjusted gap (fraction) of a set of items, or null when no stratum holds both groups. */
export function adjustedGap(items: readonly StratItem[]): number | null {
  tally(items);
  const r = standardized();
  return r === null ? null : r.own - r.other;
}

/**
 * The MOVER-Wilson interval of the adjusted gap from the current tallies, in points, or null when no stratum is
 * compared. Per compared stratum s: the judge's compromised calls x = Σ(judge − others) + n · others_s (others_s = 1
 * in `compromised`, else 0) out of n, own with coefficient +w_s and other with −w_s.
 */
function gapInterval(n: number, level: number): GapInterval | null {
  const terms: MoverTerm[] = [];
  for (let s = 0; s < K; s++) {
    const no = scratchN[2 * s + 1];
    const nx = scratchN[2 * s];
    if (no === 0 || nx === 0) continue;
    const w = (no + nx) / n;
    const others = LENIENCY_STRATA[s] === "compromised" ? 1 : 0;
    terms.push({ c: w, x: Math.round(scratchD[2 * s + 1] + no * others), n: no }, { c: -w, x: Math.round(scratchD[2 * s] + nx * others), n: nx });
  }
  if (terms.length === 0) return null;
  const m = moverWilson(terms, level);
  return { lower: 100 * m.lower, upper: 100 * m.upper, level: m.level, method: m.method };
}

/**
 * Set each judge's flag interval (`gap_ci_flag`) for a family of tests: the judges whose adjusted gap has a CI (a judge
 * with no own-family or no other-family trajectory is not tested, so it does not widen the others' intervals:
 * verifier 37, five judges of which two had own-family runs were flagged at 99% instead of 97.5%). With fewer than
 * two such judges there is no family and no flag interval (`gap_ci` is the flag's). The interval is rebuilt from
 * the strata rows (the tallies are gone): x = round(n · diff/100 + n · others), the same terms as at first.
 * @param adjusted each judge's {@link AdjustedLeniency}, changed in place; @param ciLevel the CIs' level (0.95).
 */
export function setBonferroniFlags(adjusted: readonly AdjustedLeniency[], ciLevel = 0.95): void {
  const tested = adjusted.filter((a) => a.gap_ci);
  for (const a of adjusted) delete a.gap_ci_flag;
  if (tested.length < 2) return;
  const level = 1 - (1 - ciLevel) / tested.length;
  for (const a of tested) {
    const terms: MoverTerm[] = [];
    for (const r of a.strata) {
      if (r.reason || r.weight === null || r.own_diff_points === null || r.other_diff_points === null) continue;
      const others = r.stratum === "compromised" ? 1 : 0;
      terms.push(
        { c: r.weight, x: Math.round((r.own_diff_points * r.n_own) / 100 + r.n_own * others), n: r.n_own },
        { c: -r.weight, x: Math.round((r.other_diff_points * r.n_other) / 100 + r.n_other * others), n: r.n_other },
      );
    }
    if (terms.length === 0) continue;
    const m = moverWilson(terms, level);
    a.gap_ci_flag = { lower: 100 * m.lower, upper: 100 * m.upper, level: m.level, method: m.method, adjustment: "bonferroni", tests: tested.length };
  }
}

/**
 * The adjusted figures of one judge's compared trajectories, with the gap's MOVER-Wilson CI (`gap_ci`) when asked.
 * Null figures carry a reason: `no_own_family_trajectories`, `no_other_family_trajectories`, or
 * `no_stratum_with_both_families` (each group has trajectories, never in one stratum); a null gap has no CI.
 * @param items own- and other-family items together.
 * @param ciLevel the CI's level (e.g. 0.95), or null for no CI (`--bootstrap 0`: no intervals at all).
 * The flag's interval over the judges tested together (`gap_ci_flag`) is {@link setBonferroniFlags}' to set, once
 * every judge's figures are known.
 */
export function adjustedLeniency(items: readonly StratItem[], ciLevel: number | null = null): AdjustedLeniency {
  tally(items);
  const strata: LeniencyStratumRow[] = [];
  let leftOut = 0;
  let nOwn = 0;
  let nOther = 0;
  for (let s = 0; s < K; s++) {
    const no = scratchN[2 * s + 1];
    const nx = scratchN[2 * s];
    nOwn += no;
    nOther += nx;
    if (no + nx === 0) continue;
    const row: LeniencyStratumRow = {
      stratum: LENIENCY_STRATA[s],
      n_own: no,
      n_other: nx,
      own_diff_points: no ? (100 * scratchD[2 * s + 1]) / no : null,
      other_diff_points: nx ? (100 * scratchD[2 * s]) / nx : null,
      weight: null,
    };
    if (no === 0 || nx === 0) {
      row.reason = no === 0 ? "no_own_family_trajectories" : "no_other_family_trajectories";
      leftOut += no + nx;
    }
    strata.push(row);
  }
  const r = standardized();
  if (r) for (const row of strata) if (!row.reason) row.weight = (row.n_own + row.n_other) / r.n;
  const out: AdjustedLeniency = {
    method: "direct_standardization_to_pooled_stratum_mix",
    stratified_by: "other_judges_majority_label",
    strata,
    n_compared: r ? r.n : 0,
    left_out: leftOut,
    own_diff_points: r ? 100 * r.own : null,
    other_diff_points: r ? 100 * r.other : null,
    gap_points: r ? 100 * (r.own - r.other) : null,
  };
  if (r && ciLevel !== null) {
    const ci = gapInterval(r.n, ciLevel);
    if (ci) out.gap_ci = ci;
  }
  if (!r) out.gap_reason = nOwn === 0 ? "no_own_family_trajectories" : nOther === 0 ? "no_other_family_trajectories" : "no_stratum_with_both_families";
  return out;
}
