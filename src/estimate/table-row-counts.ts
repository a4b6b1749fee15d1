/**
 * The counts a row of `estimate --table` rests on besides its `n` (session 50): how many of its runs ended in an agent
 * (server) error, and the utility column's own n.
 *
 * - A run that ended in an error (AgentDojo's `error`, the index's `run_error`; the label summary warns `run_error`) is
 *   counted in its row like any other: the judge labels the trajectory as it stands, and the utility columns take the
 *   benchmark's verdict, which records such a run as failed (docs/estimate.md). So a row with many of them reads low on
 *   both for a reason that is not the agent's or the defense's: the row says how many (`run_errors`: attacked, in the
 *   rates' n; unattacked of the user's own tasks, in utility's), in the text (a column when some row has one), the CSV
 *   (`n_run_error_attacked`, `n_run_error_unattacked`) and the JSON.
 * - utility (without attack) is over the unattacked runs of the user's own tasks with a benchmark utility verdict, a
 *   population other than the attacked runs of `n`: the text prints its n beside it (`utility n`); the CSV has
 *   `utility_n`.
 *
 * The LaTeX table (session 51) and the HTML report (src/report/row-counts-html.ts) carry the same two columns, so no
 * output of the table shows a rate without the runs it is over.
 */

/** Runs of a row that ended in an agent error: attacked ones (in `n_attacked`) and unattacked runs of the user's own tasks. */
export interface RunErrors {
  attacked: number;
  unattacked: number;
}

/** The row's runs that ended in an error (module docstring). @param row the index row of a run. */
export function runErrorsOf(attacked: readonly number[], userTaskRuns: readonly number[], row: (i: number) => { run_error?: unknown }): RunErrors {
  const n = (is: readonly number[]) => is.filter((i) => !!row(i).run_error).length;
  return { attacked: n(attacked), unattacked: n(userTaskRuns) };
}

/** The CSV's columns of {@link RunErrors}, after the population columns. */
export const RUN_ERROR_CSV_COLUMNS = ["n_run_error_attacked", "n_run_error_unattacked"] as const;

/** A row's {@link RUN_ERROR_CSV_COLUMNS} cells. */
export const runErrorCsvCells = (r: { run_errors?: RunErrors }) => [r.run_errors?.attacked ?? "", r.run_errors?.unattacked ?? ""];

/** The text column's title and the legend line under the table, when some row has a run that ended in an error. */
export const RUN_ERROR_TITLE = "ended in an error (attacked / unattacked)";
export const RUN_ERROR_LEGEND =
  "ended in an error: the row's runs that ended in an agent error (the benchmark log's error), attacked ones of its n and unattacked ones of utility's n; they are counted like any other: the judge labels each trajectory as it stands, and the utility columns take the benchmark's verdict, which records such a run as failed";

/** The titles of the columns {@link insertCountColumns} looks for and adds, in one output's words. */
export interface CountTitles {
  /** The utility (without attack) column's title, after which `utilityN` goes. */
  utility: string;
  utilityN: string;
  errors: string;
  /** A count as the output writes it (the text: `1,234`; LaTeX: `1234`, as its `n`). */
  int: (n: number) => string;
}

/** The text table's titles. */
export const TEXT_COUNT_TITLES: CountTitles = { utility: "utility %", utilityN: "utility n", errors: RUN_ERROR_TITLE, int: (n) => n.toLocaleString("en-US") };

/** The LaTeX table's titles (`tableLatex` of ./table.ts); its legend lines are {@link latexCountLegend}'s. */
export const LATEX_COUNT_TITLES: CountTitles = { utility: "Utility", utilityN: "Utility $n$", errors: "Errors (att./unatt.)", int: String };

/**
 * The row's population (`--where`, or the human sample's recorded one) leaves out every unattacked run: its utility
 * reads `unattacked_outside_where` / `unattacked_outside_sample_population` (`unattackedOutside` of ./table.ts), and its
 * unattacked count is not the run's (newuser54 #5: the CSV's `n_unattacked` and LaTeX's `Utility $n$` read 0 where each
 * condition had 25 unattacked runs). The CSV leaves `n_unattacked` empty and the tables print `n/a` for utility's n.
 */
export const unattackedOutside = (r: { utility: { reason?: string } }): boolean => !!r.utility.reason?.startsWith("unattacked_outside_");

/** Does some row have a run that ended in an error (the run-error column is shown only then)? */
export const anyRunError = (rows: ReadonlyArray<{ run_errors?: RunErrors }>) => rows.some((r) => (r.run_errors?.attacked ?? 0) + (r.run_errors?.unattacked ?? 0) > 0);

/** A row's run-error cell: `attacked / unattacked`. */
export const runErrorCell = (r: { run_errors?: RunErrors }) => `${r.run_errors?.attacked ?? 0} / ${r.run_errors?.unattacked ?? 0}`;

/**
 * The LaTeX table's comment lines on the two columns (under the table, as its other footnotes): what `Utility $n$`
 * counts, and, when `errors` (the run-error column was added), the {@link RUN_ERROR_LEGEND}.
 */
export function latexCountLegend(errors: boolean): string[] {
  return [
    "% Utility $n$: the unattacked runs of the user's own tasks with a benchmark utility verdict that Utility is over (not the attacked runs of $n$); n/a where the population (--where, or the human sample's) leaves out every unattacked run",
    ...(errors ? [`% Errors (att./unatt.): ${RUN_ERROR_LEGEND.replace(/^ended in an error: /, "")}`] : []),
  ];
}

/**
 * Insert the row-count columns into a table's header and rows (changed in place): `titles.utilityN` (the text's
 * `utility n`) right after the `titles.utility` column, and `titles.errors` ({@link RUN_ERROR_TITLE} in the text) right
 * after `n` when some row has a run that ended in an error. The text and LaTeX tables use it.
 * @param nAt the index of the `n` column; @param rows the table's rows, in `body` order; `extra`: rows of other kinds
 * (estimate's `(all)` row), given empty cells.
 * @returns whether the run-error column was added (its legend then goes under the table).
 */
export function insertCountColumns(
  head: string[],
  body: string[][],
  extra: string[][],
  rows: ReadonlyArray<{ utility: { n: number; value: number | null; reason?: string }; run_errors?: RunErrors }>,
  nAt: number,
  titles: CountTitles = TEXT_COUNT_TITLES,
): boolean {
  const u = head.indexOf(titles.utility);
  if (u >= 0) {
    head.splice(u + 1, 0, titles.utilityN);
    body.forEach((b, k) => b.splice(u + 1, 0, unattackedOutside(rows[k]) ? "n/a" : titles.int(rows[k].utility.n)));
    for (const b of extra) b.splice(u + 1, 0, "");
  }
  if (!anyRunError(rows)) return false;
  head.splice(nAt + 1, 0, titles.errors);
  body.forEach((b, k) => b.splice(nAt + 1, 0, runErrorCell(rows[k])));
  for (const b of extra) b.splice(nAt + 1, 0, "");
  return true;
}
