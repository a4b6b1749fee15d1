/**
 * The report's note under the attack-success heading for rows whose coverage is LOW and whose runs carry the
 * benchmark's own verdict (new user 29): what the labelled runs read by it against every attacked run with a verdict,
 * in the words of the text outputs (`referenceSubsetText` of src/format/reference-text.ts), so the page shows how far
 * a pale LOW bar's subset differs from its group, where the input can tell.
 */
import type { AsrRow } from "./data.js";
import { referenceSubsetText } from "../format/reference-text.js";
import { escapeHtml } from "./escape.js";
import { pctText } from "../format/stat-text.js";

const int = (x: number) => x.toLocaleString("en-US");

/**
 * `<div class="warn">coverage_low, read by the benchmark's own verdict: <ul><li>signature on qwen3-max (coverage 19.9%,
 * 86/433): by the benchmark's own security verdict ...</li></ul></div>`, or `""` when no row has anything to say.
 * @param byCondition the table has a condition column (names read `model | condition`).
 */
export function referenceSubsetHtml(rows: readonly AsrRow[], byCondition: boolean): string {
  const said = rows
    .map((r) => ({ r, text: referenceSubsetText(r) }))
    .filter((x) => x.text !== "")
    .map(({ r, text }) => `<li>${escapeHtml(r.rater)} on ${escapeHtml(r.model)}${byCondition ? ` | ${escapeHtml(r.condition)}` : ""} (coverage ${escapeHtml(pctText(r.coverage))}, ${int(r.labelled)}/${int(r.attacked)}): ${escapeHtml(text.replace(/^; /, ""))}</li>`);
  if (!said.length) return "";
  return `<div class="warn">coverage_low rows read by the benchmark's own verdict (how far the labelled runs differ from every attacked run with a verdict):<ul>${said.join("")}</ul></div>`;
}
