// src/report/: the HTML report (`ipi-judge report`): the report model gathered from a run (data.ts), charts,
// escaping of untrusted text, quote highlighting and the page itself.
/**
 * The HTML report (`ipi-judge report`): one self-contained page per run with ASR per agent model (per judge and
 * for the committee), label distributions, error/refusal/downgrade rates and tokens, confusion heatmaps and a
 * kappa forest plot against human labels and the benchmark's verdict, ASR by condition, and a browsable list
 * of committee disagreements with every judge's quotes highlighted in the trajectory.
 */
import type { ReportModel, ReportOptions } from "./data.js";
import { buildReportModel } from "./build.js";
import { renderReportHtml } from "./html.js";
import { journalWarningsNow } from "../store/skipped-lines.js";
import { writeFileAtomic } from "../io/write-atomic.js";

export * from "./data.js";
export { buildReportModel } from "./build.js";
export { renderReportHtml, scriptHash } from "./html.js";
export { renderTrajectory, locateQuote, findInText, renderHighlighted } from "./highlight.js";
export { escapeHtml, escapeText, escapeAttr, bidiMarker, neutralizeBidi } from "./escape.js";
export * from "./charts.js";

/**
 * Build the report of a run and write it to `out` (atomically: temp file + rename).
 * @returns the report data, the output path and its size in bytes.
 * @throws as {@link buildReportModel}; the file system's error when `out` cannot be written.
 */
export async function writeReport(o: ReportOptions & { out: string }): Promise<{ model: ReportModel; out: string; bytes: number }> {
  const model = await buildReportModel(o);
  // the run's journal notes (lines skipped, verdicts left out as made on an older text: ../store/stale-verdicts.ts)
  // on the page and in --json too (the trajectories whose input is gone: said by the run state already); stderr says
  // them at exit as every command does
  for (const w of journalWarningsNow(o.runDir, ["removed"])) if (!model.warnings.includes(w)) model.warnings.push(w);
  o.step?.("writing the page");
  const html = await renderReportHtml(model);
  const out = writeFileAtomic(o.out, html);
  return { model, out, bytes: Buffer.byteLength(html, "utf8") };
}
