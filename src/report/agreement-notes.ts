/**
 * What the report's agreement section says beside its figures so they are not misread (review 16): a comparison
 * whose reference (or both sides) used one category, where AC1 and PABAK say nothing about discrimination.
 */
import type { OneCategory } from "../stats/one-category.js";
import { escapeHtml } from "./escape.js";

/**
 * One warning (`<div class="warn">`) per rater whose comparison's reference, or both sides, used one category only
 * (`../stats/one-category.ts`); empty when none.
 * @param rows [rater name, its comparison's `one_category`].
 */
export function oneCategoryWarnings(rows: ReadonlyArray<readonly [string, OneCategory | undefined]>): string {
  return rows.map(([who, o]) => (o ? `<div class="warn">${escapeHtml(`${who}: ${o.text}`)}</div>` : "")).join("");
}
