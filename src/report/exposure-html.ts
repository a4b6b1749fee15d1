/**
 * The report's warning above the attack-success table for rows whose attacked runs (almost) never met the injected
 * text (new user 23): their rates measure that the attack did not arrive, not that the agent resisted it.
 */
import { EXPOSURE_LOW_BELOW } from "../stats/rates.js";
import type { AsrRow, ConditionView } from "./data.js";
import { EXPOSURE_LOW_MEANS, NOT_EXPOSED_WHY } from "../format/rates-text.js";
import { escapeHtml } from "./escape.js";
import { pctText } from "../format/stat-text.js";

const pct = (x: number | null) => escapeHtml(pctText(x));

/** ` <strong class="low">EXPOSURE LOW</strong>` after a cell of an EXPOSURE LOW row (`low` true), else `""`. */
export const exposureLowMark = (low: boolean | undefined): string => (low ? ' <strong class="low">EXPOSURE LOW</strong>' : "");
const int = (x: number) => x.toLocaleString("en-US");

/**
 * `<div class="warn">EXPOSURE LOW (...): signature on gemini | tool_filter exposure 0.0% (0/360); ...</div>`, or `""`
 * when no row is `exposure_low` (src/stats/rates.ts).
 * @param byCondition the table has a condition column (names read `model | condition`).
 */
export function exposureLowHtml(rows: readonly AsrRow[], byCondition: boolean): string {
  const low = rows.filter((r) => r.exposure_low);
  if (!low.length) return "";
  const each = low.map((r) => `${escapeHtml(r.rater)} on ${escapeHtml(r.model)}${byCondition ? ` | ${escapeHtml(r.condition)}` : ""} exposure ${pct(r.exposure)} (${int(r.exposed)}/${int(r.labelled)})`);
  return (
    `<div class="warn">EXPOSURE LOW (below ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of the labelled attacked runs met the injected text; the rest are not_exposed: ` +
    `${NOT_EXPOSED_WHY}): ${each.join("; ")}: ${EXPOSURE_LOW_MEANS}.</div>`
  );
}

/**
 * The same warning at the charts by condition (attack, surface): the cells marked † there, per field, or `""`.
 * @param views the report's condition views (the asr_goal view of each field is read: both rates share their cells).
 */
export function exposureLowConditionsHtml(views: readonly ConditionView[]): string {
  const low = views.filter((v) => v.rate === "asr_goal").flatMap((v) => v.cells.filter((c) => c.exposure_low).map((c) => `${escapeHtml(c.model)} ${escapeHtml(v.field)}=${escapeHtml(c.condition)}`));
  if (!low.length) return "";
  return `<div class="warn">EXPOSURE LOW (cells marked † in the charts; below ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of their labelled attacked runs met the injected text: ${NOT_EXPOSED_WHY}): ${low.join("; ")}: ${EXPOSURE_LOW_MEANS}.</div>`;
}
