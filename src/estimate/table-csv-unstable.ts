/**
 * The CSV columns of a calibrated value with no interval (`estimate --table --csv`; est53 #1): the text and LaTeX
 * tables print such a value as UNSTABLE with its reason and its weight check (./weight-check.ts), but the CSV had only
 * its number and the reason code in `<col>_reason`, so a table made from the CSV showed a plain number. Each calibrated
 * column now carries, after `<col>_reason`:
 *
 * - `<col>_unstable`: `true` when the value has no interval (UNSTABLE in the text: do not quote it alone), `false` when
 *   it has one, empty when there is no value;
 * - `<col>_largest_weight_share`: w_max / Σw of the group's labelled items (a proportion: how far the heaviest item's
 *   label alone moves the value), `<col>_largest_weight_stratum` its stratum, `<col>_kish_n_eff` the Kish effective n
 *   (Σw)²/Σw² and `<col>_n_labelled` the labelled items it is of; all empty unless `<col>_unstable` is `true` (the
 *   estimate computes them for a value without an interval only);
 * - `<col>_outside_tie_readings` (fixa54): `true` when the value lies outside every reading of its group's annotator
 *   ties (`human_ties.calibrated_outside` of ./tie-bound.ts: the text's OUTSIDE TIE READINGS, LaTeX's `$^\sharp$`),
 *   with an interval or without; `false` when it has a value that does not; empty when there is no value.
 */
import type { WeightCheck } from "./weight-check.js";

/** The suffixes of the columns, in order, after `<col>_reason`. */
export const UNSTABLE_CSV_SUFFIXES = ["unstable", "largest_weight_share", "largest_weight_stratum", "kish_n_eff", "n_labelled", "outside_tie_readings"] as const;

/** The header cells of a calibrated column `key` (e.g. `calibrated_asr_behaviour_unstable`, ...). */
export const unstableCsvHeader = (key: string): string[] => UNSTABLE_CSV_SUFFIXES.map((s) => `${key}_${s}`);

/**
 * The cells of {@link UNSTABLE_CSV_SUFFIXES} for a calibrated cell (null or no value: all empty).
 * @param p the cell: its value, interval and weight check (`CalibratedCell` of ./calibrated-cell.ts).
 * @param hide the value is withheld (low coverage): all empty, as its value is.
 */
export function unstableCsvCells(p: { value: number | null; ci95: unknown; weight_check?: WeightCheck; human_ties?: { calibrated_outside?: boolean } } | null | undefined, hide = false): Array<string | number> {
  if (!p || p.value === null || hide) return UNSTABLE_CSV_SUFFIXES.map(() => "");
  const unstable = p.ci95 === null;
  const w = unstable ? p.weight_check : undefined;
  return [String(unstable), w?.largest_share ?? "", w?.stratum ?? "", w?.kish_n_eff ?? "", w?.n ?? "", String(!!p.human_ties?.calibrated_outside)];
}

/** The cell of one column of {@link UNSTABLE_CSV_SUFFIXES} (`suffix`) of `p`; "" for another suffix. */
export function unstableCsvCell(p: Parameters<typeof unstableCsvCells>[0], suffix: string): string | number {
  const i = (UNSTABLE_CSV_SUFFIXES as readonly string[]).indexOf(suffix);
  return i < 0 ? "" : unstableCsvCells(p)[i];
}
