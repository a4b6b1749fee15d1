/**
 * The report's note under the attack-success heading for rows whose coverage is LOW and whose runs carry the
 * benchmark's own verdict (new user 29): what the labelled runs read by it against every attacked run with a verdict,
 * in the words of the text outputs (`referenceSubsetText` of src/format/reference-text.ts), so the page shows how far
 * a pale LOW bar's subset differs from its group, where the input can tell.
 */
import type { AsrRow } from "./data.js";
import type { ConditionView } from "./condition-views.js";
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
    .map(({ r, text }) => `<li>${escapeHtml(r.rater)} on ${escapeHtml(r.model)}${byCondition ? ` | ${escapeHtml(r.condition)}` : ""} (coverage ${escapeHtml(pctText(r.coverage))}, ${int(r.labelled)} labelled of ${int(r.attacked)} attacked): ${escapeHtml(text.replace(/^; /, ""))}</li>`);
  if (!said.length) return "";
  return `<div class="warn">coverage_low rows read by the benchmark's own verdict (how far the labelled runs differ from every attacked run with a verdict):<ul>${said.join("")}</ul></div>`;
}

/**
 * What the by-condition, by-attack and by-surface coverage_low list says of one LOW cell by the benchmark's own verdict,
 * in the words of the overall and per-model rows (`referenceSubsetText`), or why it cannot: `; the benchmark's own
 * verdict cannot say how its labelled runs differ: no attacked run of the group carries ...` when none of the cell's
 * attacked runs carries a usable one. Plain text (escape it). "" for a cell that is not LOW, and for one whose model
 * does not carry the figures (made before them).
 */
export function conditionReferenceText(cell: ConditionView["cells"][number]): string {
  if (!cell.coverage_low || cell.labelled === undefined) return "";
  if (cell.reference_security === null) return `; the benchmark's own verdict cannot say how its labelled runs differ: ${cell.reference_security_reason ?? "none of its attacked runs carries one"}`;
  return referenceSubsetText({ coverage_low: true, labelled: cell.labelled, reference_security: cell.reference_security });
}
