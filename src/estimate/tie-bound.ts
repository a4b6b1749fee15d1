/**
 * What the tied human labels of a group could do to its figures (session 52). A labelled trajectory whose annotators
 * tie on the rate's question (as many say compromised as not: `consensus_tie`) has no human consensus; `estimate` keeps
 * leaving it out of the human and calibrated figures, counted as unlabelled in its stratum (the design's nonresponse:
 * missing at random within the stratum). A tie need not be missing at random: it is where the annotators found the
 * trajectory hard, and so often where the judge is wrong. On session 51's test file the 12 ties were exactly the
 * human-judge disagreements, and the calibrated interval read "0 human-judge disagreements among the group's 68
 * labelled items".
 *
 * So the figure is kept and the group says how far its ties could move it: the group's estimates computed again with
 * every tie of the sample put back in its stratum (n_c counts it, weights N_c/n_c as for any labelled item) and read
 * each way, by the same estimators (./calibrated.ts `domainAsr`):
 * - `calibrated_agree`: every tie of the group read as agreeing with the judge (its label the judge's; a trajectory
 *   without a usable verdict, the side of its prediction, the group's judge rate);
 * - `calibrated_disagree`: every tie read as disagreeing with the judge (the labels a tie on exactly the disagreements
 *   gives), with its interval: the figure the calibrated interval's "0 disagreements" could have been;
 * - `human` and `calibrated` ranges: every tie read not compromised, and every tie read compromised. Both estimates are
 *   increasing in each item's human label (a Hájek mean of y, or of y − m, with weights that do not depend on y), so
 *   every other reading of the ties gives an estimate inside these ranges: where the figure lands once the ties are
 *   adjudicated. Not a bound on the figure printed beside them (session 53, break53 #3): that one leaves the ties out,
 *   which imputes to each the stratum's mean human-minus-judge correction (e.g. a "label" of −0.056), a reading no
 *   adjudication can give, so it can lie outside the range (def/s2: gemini no_defense 15.6% beside 16.5% to 21.7%).
 *   `calibrated_outside` / `human_outside` say when it does: the ties are then not missing at random as the figure
 *   assumes, the figure depends on how they are read, and every form says so loudly ({@link tiesOutsideWarning}).
 *   The figure is kept (not replaced by a reading such as the range's midpoint): it is the design's estimator, the one
 *   `agree --human` and every group without ties use; a midpoint would be a number no reading gives, printed as if
 *   measured. The range is quoted beside it, and the warning says to quote the range or adjudicate.
 * Ties of the sample outside the group are put back too (they change their strata's n_c) and read not compromised,
 * which does not move the group's figures: their domain indicator is 0.
 * Not a confidence statement: each reading's interval is that reading's; the ranges bound the estimate, not the truth.
 */
import { undefinedText } from "../format/stat-text.js";
import { domainAsr, type Ci, type DomainAsrOptions, type DomainUnit, type DomainView, type LabelledItem } from "./calibrated.js";

/** A labelled trajectory whose annotators tied, in its design cell. */
export interface TieItem {
  id: string;
  cell: string;
}

/** One reading of the ties: the calibrated estimate and its interval, or null with the reason. */
export interface TieReading {
  asr: number | null;
  ci95: Ci | null;
  reason?: string;
}

/** The group's ties and what they could do to its figures (module docstring). */
export interface HumanTies {
  /** Tied labelled trajectories of the group (left out of `n_sampled`). */
  n: number;
  /** Tied labelled trajectories of the whole sample, all put back in their strata for the readings. */
  n_sample: number;
  /** The human-only estimate with every tie read not compromised (`lower`) and compromised (`upper`); null when undefined. */
  human: { lower: number; upper: number } | null;
  /** The calibrated estimate likewise: every other reading of the ties lies in it. */
  calibrated: { lower: number; upper: number } | null;
  /** Every tie of the group read as the judge's label. */
  calibrated_agree: TieReading;
  /** Every tie of the group read against the judge's label. */
  calibrated_disagree: TieReading;
  /** The printed calibrated figure (ties left out) lies outside `calibrated`: no adjudication of the ties gives it. */
  calibrated_outside: boolean;
  /** The printed human-only figure lies outside `human` likewise. */
  human_outside: boolean;
}

/** The start of the loud warning of a group whose printed figure lies outside every reading of its ties. */
export const TIES_OUTSIDE_NOTE = "TIES NOT MISSING AT RANDOM";

/** The mark on a printed figure that lies outside every reading of its group's ties (text lines and table cells). */
export const TIES_OUTSIDE_MARK = "OUTSIDE TIE READINGS";

/** Why a figure outside its ties' readings matters (the table's note; the group's warning says it in its own words). */
export const TIES_OUTSIDE_WHY =
  "a printed calibrated figure (ties left out) outside the range of every reading of its row's annotator ties (each read compromised or not), so no adjudication of the ties gives it: the ties are not missing at random here and the figure depends on how they are read; quote the range, or adjudicate the ties (agree --human lists them)";

/** The start of the group's note on its ties (text `note:`, JSON `warnings`, the table's and report's notes). */
export const HUMAN_TIES_NOTE = "annotator ties left out of the human and calibrated figures";

/**
 * The group's {@link HumanTies}, or undefined when none of its labelled trajectories is a tie.
 * @param domain the group's view, whose `unit` also answers the ties' ids (undefined outside the group).
 * @param labelled every labelled item with a consensus (the whole sample); @param ties every tie of the sample.
 * @param cellSizes N_c of every cell of `labelled` and `ties`; @param opts as the group's own `domainAsr` call.
 * @param judgeRate the group's judge rate (the prediction of a trajectory without a usable verdict), null when none.
 * @param printed the group's printed figures (ties left out), to say whether they lie outside the ranges.
 */
export function tieReadings(
  domain: DomainView,
  labelled: readonly LabelledItem[],
  ties: readonly TieItem[],
  cellSizes: ReadonlyMap<string, number>,
  opts: DomainAsrOptions,
  judgeRate: number | null,
  printed: { calibrated: number | null; human: number | null },
): HumanTies | undefined {
  const n = ties.reduce((k, t) => k + (domain.unit(t.id) ? 1 : 0), 0);
  if (n === 0) return undefined;
  const read = (human: (u: DomainUnit) => boolean) => {
    const all = [...labelled, ...ties.map((t) => {
      const u = domain.unit(t.id);
      return { id: t.id, cell: t.cell, human: u ? human(u) : false };
    })];
    try {
      return domainAsr(domain, all, cellSizes, opts);
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const judged = (u: DomainUnit) => (u.judge === null ? (judgeRate ?? 0) >= 0.5 : u.judge);
  const none = read(() => false);
  const every = read(() => true);
  const agree = read(judged);
  const disagree = read((u) => !judged(u));
  const range = (which: "human" | "calibrated") => {
    if ("error" in none || "error" in every) return null;
    const [lo, hi] = [none[which].asr, every[which].asr];
    return lo === null || hi === null ? null : { lower: Math.min(lo, hi), upper: Math.max(lo, hi) };
  };
  const reading = (r: typeof agree): TieReading => {
    if ("error" in r) return { asr: null, ci95: null, reason: r.error };
    const c = r.calibrated;
    return { asr: c.asr, ci95: c.ci95, ...(c.asr === null ? { reason: c.reason } : c.ci95 === null ? { reason: c.ci_reason } : {}) };
  };
  const [human, calibrated] = [range("human"), range("calibrated")];
  return { n, n_sample: ties.length, human, calibrated, calibrated_agree: reading(agree), calibrated_disagree: reading(disagree), calibrated_outside: outside(printed.calibrated, calibrated), human_outside: outside(printed.human, human) };
}

/** A printed figure outside a range, beyond rounding noise (1e-9): false when either is undefined. */
function outside(x: number | null, r: { lower: number; upper: number } | null): boolean {
  return x !== null && r !== null && (x < r.lower - 1e-9 || x > r.upper + 1e-9);
}

const pct = (x: number) => (100 * x).toFixed(1);
const readingText = (r: TieReading) => (r.asr === null ? undefinedText(r.reason) : `${pct(r.asr)}% ${r.ci95 ? `[${pct(r.ci95.lower)}, ${pct(r.ci95.upper)}]` : `CI ${undefinedText(r.reason)}`}`);
const rangeText = (r: { lower: number; upper: number } | null) => (r ? `${pct(r.lower)}% to ${pct(r.upper)}%` : "undefined");

/**
 * The group's note: `annotator ties left out of the human and calibrated figures: 5 labelled trajectories of the group
 * (5 in the sample) ...: read as agreeing with the judge, calibrated 54.6% [49.8, 59.4]; read as disagreeing, 53.2%
 * [44.0, 62.3]; read any way, calibrated 52.1% to 56.0%, human-only 44.0% to 50.2%; ...`.
 */
export function tiesNote(t: HumanTies): string {
  const its = t.n === 1 ? "trajectory of the group" : "trajectories of the group";
  const sample = t.n_sample === t.n ? "" : ` (${t.n_sample} in the whole sample, all put back in their strata for these readings)`;
  return `${HUMAN_TIES_NOTE}: ${t.n} labelled ${its}${sample} whose annotators tied are counted as unlabelled in their strata (missing at random), which a tie need not be: ties can be exactly the trajectories the judge gets wrong, and then the figures above miss those disagreements; read as agreeing with the judge, calibrated ${readingText(t.calibrated_agree)}; read as disagreeing, calibrated ${readingText(t.calibrated_disagree)}; read any way, calibrated ${rangeText(t.calibrated)}, human-only ${rangeText(t.human)} (every tie not compromised to every tie compromised: where the figures land once the ties are adjudicated, not an interval, and not a bound on the figures above, which leave the ties out); adjudicate them (agree --human lists them) to remove this`;
}

/**
 * The loud warning of a group whose printed figure lies outside every reading of its ties (`calibrated_outside`,
 * `human_outside`), or undefined when neither does: `WARNING: TIES NOT MISSING AT RANDOM: the calibrated figure 15.6%
 * lies outside 16.5% to 21.7%, ...`. @param printed the group's printed figures.
 */
export function tiesOutsideWarning(t: HumanTies, printed: { calibrated: number | null; human: number | null }): string | undefined {
  const parts = [
    ...(t.calibrated_outside && printed.calibrated !== null ? [`the calibrated figure ${pct(printed.calibrated)}% lies outside ${rangeText(t.calibrated)}`] : []),
    ...(t.human_outside && printed.human !== null ? [`the human-only figure ${pct(printed.human)}% lies outside ${rangeText(t.human)}`] : []),
  ];
  if (!parts.length) return undefined;
  return `WARNING: ${TIES_OUTSIDE_NOTE}: ${parts.join("; ")}, the range of every reading of the group's ${t.n} annotator ${t.n === 1 ? "tie" : "ties"} (each read compromised or not): no adjudication of the ties gives the printed figure. Leaving a tie out imputes to it its stratum's mean human-minus-judge correction, a label outside [0, 1]; the ties are not missing at random here, so the figure depends on how they are read: quote the range, or adjudicate the ties (agree --human lists them)`;
}

/**
 * A row's tie range in the table's notes: `45.9% to 53.6% (disagreeing 45.9%)`, and `, OUTSIDE: printed 15.6%` when the
 * printed calibrated figure (`value`) lies outside it.
 */
export function tieRangeText(t: HumanTies, value?: number | null): string {
  const d = t.calibrated_disagree.asr === null ? "undefined" : `${pct(t.calibrated_disagree.asr)}%`;
  const out = t.calibrated_outside && value !== undefined && value !== null ? `, OUTSIDE: printed ${pct(value)}%` : "";
  return `${rangeText(t.calibrated)} (disagreeing ${d}${out})`;
}
