/**
 * The paper table's row counts besides `n` in the HTML report (session 51), as `estimate --table`'s text, CSV, JSON and
 * LaTeX give them (src/estimate/table-row-counts.ts): `utility n` (the unattacked runs of the user's own tasks that
 * utility is over, a population other than the attacked runs of `n`) right after `utility`, and, when some row has a run
 * that ended in an agent error, a column `ended in an error (attacked / unattacked)` right after `n`, with the text's
 * legend under the table. The `(all)` row (./calibrated-all-html.ts) gets empty cells in both.
 */
import { anyRunError, runErrorCell, RUN_ERROR_LEGEND, RUN_ERROR_TITLE, unattackedOutside, type RunErrors } from "../estimate/table-row-counts.js";
import { escapeAttr, escapeHtml } from "./escape.js";

const int = (x: number) => x.toLocaleString("en-US");

/** The title of `utility n`'s header, on hover. */
const UTILITY_N_TITLE = "unattacked runs of the user's own tasks with a benchmark utility verdict: the runs utility is over (not the attacked runs of n)";

/** Rows of the paper table, as far as these columns read them. */
type Rows = ReadonlyArray<{ utility: { n: number; reason?: string }; run_errors?: RunErrors }>;

/** The two columns' header cells: `errors` (after `n`; empty when no row has a run that ended in an error) and `utilityN`. */
export function rowCountHeadsHtml(rows: Rows): { errors: string; utilityN: string } {
  return {
    errors: anyRunError(rows) ? `<th class="num" title="${escapeAttr(RUN_ERROR_LEGEND)}">${escapeHtml(RUN_ERROR_TITLE)}</th>` : "",
    utilityN: `<th class="num" title="${escapeAttr(UTILITY_N_TITLE)}">utility n</th>`,
  };
}

/** A row's two cells, as {@link rowCountHeadsHtml}'s (`errors` empty when that column is not shown). */
export function rowCountCellsHtml(rows: Rows, r: Rows[number]): { errors: string; utilityN: string } {
  return {
    errors: anyRunError(rows) ? `<td class="num">${escapeHtml(runErrorCell(r))}</td>` : "",
    utilityN: `<td class="num">${unattackedOutside(r) ? "n/a" : int(r.utility.n)}</td>`,
  };
}

/** The legend under the table when the run-error column is shown (the text table's line); "" otherwise. */
export function rowCountLegendHtml(rows: Rows): string {
  return anyRunError(rows) ? `<p class="note" id="paper-table-run-errors">${escapeHtml(RUN_ERROR_LEGEND)}.</p>` : "";
}
