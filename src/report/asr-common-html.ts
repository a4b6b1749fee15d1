/**
 * The report's per-judge attack-success cells over the runs every judge labelled (./asr-common.ts; est53 #3): when the
 * judges labelled different runs, a judge's cell leads with its rate over the row's runs every judge labelled, and
 * keeps its own (over the runs it labelled) beside it; when they labelled the same runs, its own figure alone.
 */
import type { AsrCommon } from "./asr-common.js";
import { escapeHtml } from "./escape.js";

type Fig = { rate: number | null; reason?: string; ci95: { lower: number; upper: number } | null; count: number; n: number };

/** Does some judge's row differ from the runs every judge labelled (its own `labelled` above the shared n)? */
export const judgesDiffer = (rows: ReadonlyArray<{ labelled: number; common?: AsrCommon }>) => rows.some((r) => r.common && r.common.n !== r.labelled);

/**
 * A judge's asr cell: `<shared figure> <own: figure>` when its row's runs differ from the shared ones, else `fig(own)`.
 * @param fig the page's figure formatter (percent, interval, count).
 */
export function sharedFigHtml(r: { labelled: number; common?: AsrCommon; asr_goal: Fig; asr_behaviour: Fig }, rate: "asr_goal" | "asr_behaviour", fig: (f: Fig) => string): string {
  if (!r.common || r.common.n === r.labelled) return fig(r[rate]);
  return `${fig(r.common[rate])} <span class="note">(own, over the ${r.labelled} runs it labelled: ${fig(r[rate])})</span>`;
}

/** The note above the table when the judges labelled different runs (else ""). */
export function sharedNoteHtml(rows: ReadonlyArray<{ labelled: number; common?: AsrCommon }>): string {
  if (!judgesDiffer(rows)) return "";
  return `<p class="note">${escapeHtml("The judges labelled different runs: each judge's asr_goal and asr_behaviour lead with its rate over the row's attacked runs every judge labelled (the count says how many), so the judges side by side are over the same runs; its own rate over the runs it labelled follows in brackets, and its coverage is its own. The charts show the leading figures, over the runs every judge labelled, as the table.")}</p>`;
}
