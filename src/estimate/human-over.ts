/**
 * What a group's human-only figure is over when the label file's strata leave part of the population with no labelled
 * item (newuser53 #2: `(all): N 1440, labelled 11 ... human 44.4%` where 44.4% is the post-stratified rate over the
 * 766 trajectories of the 5 design cells with a label; the other 674 are in no labelled cell, which a run-level
 * WARNING said but the group's N line did not). The human-only (Hajek) estimate is over the cells with a labelled
 * item: the design weights of the group's labelled items add up to that part's size (`n_population_estimated`,
 * Σ N_c/n_c over them; exact for a group that holds its cells whole, as `(all)` does), said on the group's line.
 * The calibrated estimate is not over that part: its judge term runs over the whole group, and its correction, the
 * Hajek mean of human − judge over the labelled items, is imputed to the cells with none (stats55 finding 4: 53.8% =
 * 225/414 + Σ_c N_c mean_c(h − j)/331); the line says that too.
 */
import { coverageParts, ESTIMATE_FRAME_WORDS } from "../agree/sample-frame.js";

const int = (n: number) => String(Math.round(n)); // as the group line prints its N

/**
 * The clause after a group's `N ..., labelled ...`, or "" when every cell of the population has a labelled item (no
 * strata WARNING among `warnings`), the human figure is undefined, or the weights add up to the group's N.
 * @param g the group: its N, the design-weighted size of its labelled cells, its human-only value.
 * @param warnings the estimate's warnings (the strata WARNING of ../agree/sample-frame.ts, `coverageParts`).
 */
export function humanOverText(g: { n_population: number; n_population_estimated: number | null; human: { asr: number | null } }, warnings: readonly string[]): string {
  const nHat = g.n_population_estimated;
  if (nHat === null || g.human.asr === null || Math.round(nHat) >= g.n_population) return "";
  if (!warnings.some((w) => coverageParts(w)?.tail === ESTIMATE_FRAME_WORDS.unrepresented)) return ""; // every cell has a label
  return `; the human-only figure is over the cells with a labelled item, ${int(nHat)} of the ${int(g.n_population)} by the design weights (the other ${int(g.n_population - nHat)}, in cells with no labelled item, are left out of it; the calibrated figure counts them by the judge's verdicts plus the labelled cells' mean correction, imputed: the WARNING on the label file's strata above)`;
}

/**
 * The caveat on a group's calibrated figure when the label file's strata leave cells with no labelled item (break55
 * #2): the calibrated estimate is the judge's rate over all N plus the design-weighted mean human-minus-judge
 * difference of the labelled items, so the correction measured in the labelled cells (N̂ of N) is applied to the other
 * N - N̂ as if their judge error were the same, which nothing measured; `sample --disagreement` draws the cells where
 * the judges disagree, their worst. "" when {@link humanOverText} is "" (every cell has a label, or the weights add up
 * to N) or the calibrated figure is undefined. The figure is not changed.
 */
export function calibratedOverText(
  g: { n_population: number; n_population_estimated: number | null; human: { asr: number | null }; calibrated: { asr: number | null } },
  warnings: readonly string[],
): string {
  if (g.calibrated.asr === null || !humanOverText(g, warnings)) return "";
  return extrapolatedText(g.n_population_estimated!, g.n_population);
}

/**
 * {@link calibratedOverText} for the `(all)` group, which holds its design cells whole: there the design weights of the
 * labelled items add up to N exactly when every cell has a labelled item, so N̂ below N is the uncovered cells, no
 * warning needed to tell (the table's `(all)` line and report's stdout have none at hand). "" otherwise.
 */
export function calibratedAllOverText(g: { n_population: number; n_population_estimated: number | null; calibrated: { asr: number | null } }): string {
  const nHat = g.n_population_estimated;
  if (g.calibrated.asr === null || nHat === null || Math.round(nHat) >= g.n_population) return "";
  return extrapolatedText(nHat, g.n_population);
}

function extrapolatedText(nHat: number, n: number): string {
  return ` (CORRECTION EXTRAPOLATED: measured in the cells with a labelled item, ${int(nHat)} of the ${int(n)} by the design weights, and applied to the other ${int(n - nHat)} as if the judge erred there as in the labelled cells: not measured there)`;
}
