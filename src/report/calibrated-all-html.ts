/**
 * The `(all)` row of the report's paper table in HTML (./calibrated-all.ts): a footer row under the per-row table
 * (judge and calibrated figures of the pooled estimate, its attacked count), and the note under the table that says
 * what it pools, its human-only figures and every note `estimate` prints on its `(all)` group.
 */
import { undefinedText } from "../format/stat-text.js";
import { escapeHtml } from "./escape.js";
import { allBenchmarkText, allDesignText, allJudgeText, allOverText, calibratedAllNotes, pooledText, type CalibratedAll, type CalibratedAllRate } from "../estimate/table-all.js";

export { allDesignText, allJudgeText, calibratedAllLine, pooledText } from "../estimate/table-all.js";
import { sameRowsCommand } from "./same-rows.js";
import type { ReportModel } from "./data.js";

const int = (x: number) => x.toLocaleString("en-US");

/**
 * The `(all)` footer row of the paper table: `(all)` in the model (and condition) cells, the judge's figures of the
 * estimate in the judge's columns, the calibrated cells as the rows' (`cell`, the table's renderer), the attacked
 * count in the n column (beside the names, as estimate's text table), the benchmark's asr_goal over the same runs as
 * the judge's (x/n, or why none: `benchmark_asr_goal` of ./calibrated-all.ts); the other columns are per row only (empty).
 * @param cols the table's layout: a condition column, the calibrated and the heuristic columns shown, the benchmark asr_goal column, the run-error
 * column (`errors`, ./row-counts-html.ts; `utility n` is always there).
 */
export function calibratedAllRowHtml(a: CalibratedAll, cols: { byCondition: boolean; heuristic: boolean; errors?: boolean; benchmark?: boolean }, cell: (p: CalibratedAllRate["cell"]) => string): string {
  const calCell = (r: CalibratedAll["asr_goal"]) => ("cell" in r ? cell(r.cell) : escapeHtml(undefinedText(r.reason)));
  const empty = (n: number) => "<td></td>".repeat(n);
  return `<tfoot><tr class="all" id="paper-table-all"><td><strong>(all)</strong></td>${cols.byCondition ? "<td>(all)</td>" : ""}<td class="num">${int(a.n_population)}</td>${cols.errors ? "<td></td>" : ""}<td>${escapeHtml(allJudgeText(a.asr_goal))}</td>${cols.benchmark ? `<td>${escapeHtml(allBenchmarkText(a.benchmark_asr_goal, "%"))}</td>` : ""}<td>${escapeHtml(allJudgeText(a.asr_behaviour))}</td><td class="num"></td><td><strong>${calCell(a.asr_goal)}</strong></td><td><strong>${calCell(a.asr_behaviour)}</strong></td>${empty(cols.heuristic ? 7 : 5)}<td class="num"></td></tr></tfoot>`;
}

/**
 * The note under the paper table on its `(all)` row: what it pools, the command that prints the same figures, the
 * human-only figures, and the `(all)` group's notes (one said alike for both rates given once).
 */
export function calibratedAllNoteHtml(m: Pick<ReportModel, "run" | "paper_table" | "human" | "where">, a: CalibratedAll): string {
  const cmd = sameRowsCommand(m).replace(" --table", "").replace(" --allow-low-coverage", "").replace(" --csv table.csv --latex table.tex", "");
  const notes = calibratedAllNotes(a);
  return `<p class="note" id="calibrated-all-note"><strong>(all)</strong>: the calibrated estimate over ${escapeHtml(allOverText(a))} (${escapeHtml(pooledText(a))}; ${int(a.n_sampled)} of them human-labelled), exactly as <code>${escapeHtml(cmd)}</code> prints its (all) group; its judge columns are that estimate's judge figures (count / usable verdicts), the other columns are per row only. Human-only (design-weighted human labels, no judge): asr_goal ${escapeHtml(allDesignText(a.asr_goal, "human"))}, asr_behaviour ${escapeHtml(allDesignText(a.asr_behaviour, "human"))}.</p>${
    notes.length ? `<ul class="note calibrated-all-notes">${notes.map((n) => `<li>(all) ${escapeHtml(n)}</li>`).join("")}</ul>` : ""
  }`;
}
