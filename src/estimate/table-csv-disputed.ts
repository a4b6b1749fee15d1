/**
 * The CSV columns of a committee's DISPUTED range (`estimate --table --csv`; session 54 gap 2): the text and LaTeX
 * tables carry the range (the DISPUTED note, `RateCell.disputed` of ./table-cells.ts) but the CSV had none. Named as
 * `compare --csv`'s (../compare/rows-csv.ts), with the table's `judge_` prefix on a rate's columns:
 *
 * - `disputed`: the row's attacked runs the committee has no majority on, left out of the judge's rates (0 when the
 *   row has ties only: no run is left out, a true count);
 * - `judge_asr_goal_split`: its committee full_compliance labels resting on a full/partial tie (`goalSplit` of
 *   ../verdict/vote.ts), counted in asr_goal and read as partial_compliance at the range's lower end;
 * - `judge_<rate>_disputed_lower`/`_upper`: the rate over the decided and disputed runs with them read each way (on
 *   a row with ties only, asr_behaviour's is its point: a tie is compromised either way, as compare's).
 *
 * All empty when the row has neither (a single judge, or a committee that decided every run). Given where the table
 * withholds the judge's rate (coverage_low) too, as the DISPUTED note does (./table-notes.ts): the range is over the
 * decided and disputed runs, not the rate's usable subset, and the split votes are often what made the coverage low.
 */
import type { RateCell } from "./table-cells.js";

/** The header cells, in order. */
export const DISPUTED_CSV_COLUMNS = ["disputed", "judge_asr_goal_split", "judge_asr_goal_disputed_lower", "judge_asr_goal_disputed_upper", "judge_asr_behaviour_disputed_lower", "judge_asr_behaviour_disputed_upper"] as const;

/** What the cells read of a row or of the (all) group: each rate's range, or none. */
export interface DisputedCsvSource {
  asr_goal?: RateCell["disputed"];
  asr_behaviour?: RateCell["disputed"];
  /**
   * The judge's asr_behaviour (`RateCell.value`): a row with goal ties but no disputed run has no behaviour range (a
   * tie between full and partial is compromised either way), and its range is this point, as `compare --csv` gives it
   * (rev2a55 #5: the table left the cells empty where compare printed 0.567/0.567).
   */
  asr_behaviour_point?: number | null;
}

/** The cells of {@link DISPUTED_CSV_COLUMNS} (module docstring). */
export function disputedCsvCells(s: DisputedCsvSource): Array<string | number> {
  const [g, b] = [s.asr_goal, s.asr_behaviour];
  const count = g?.count ?? b?.count;
  const point = g && !b && g.count === 0 && typeof s.asr_behaviour_point === "number" ? s.asr_behaviour_point : "";
  return [count ?? "", g ? (g.goal_split ?? 0) : "", g?.lower ?? "", g?.upper ?? "", b?.lower ?? point, b?.upper ?? point];
}

/** The cell of one column `name` of {@link DISPUTED_CSV_COLUMNS}; undefined for another column. */
export function disputedCsvCell(s: DisputedCsvSource, name: string): string | number | undefined {
  const i = (DISPUTED_CSV_COLUMNS as readonly string[]).indexOf(name);
  return i < 0 ? undefined : disputedCsvCells(s)[i];
}
