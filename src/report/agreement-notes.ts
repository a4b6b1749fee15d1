/**
 * What the report's agreement section says beside its figures so they are not misread (review 16): a comparison
 * whose reference (or both sides) used one category, where AC1 and PABAK say nothing about discrimination.
 */
import type { KappaNote, OneCategory } from "../stats/one-category.js";
import { FEW_ITEMS, fewItemsLine, type FewInCategory } from "../stats/few-in-category.js";
import { escapeHtml } from "./escape.js";

/**
 * One warning (`<div class="warn">`) per rater whose comparison's reference, or both sides, used one category only
 * (`../stats/one-category.ts`); empty when none.
 * @param rows [rater name, its comparison's `one_category`].
 */
export function oneCategoryWarnings(rows: ReadonlyArray<readonly [string, OneCategory | undefined]>): string {
  return rows.map(([who, o]) => (o ? `<div class="warn">${escapeHtml(`${who}: ${o.text}`)}</div>` : "")).join("");
}

/**
 * One warning (`<div class="warn">`) per flagged kappa: `<who>: FEW ITEMS: <text>`, the line the CLI prints under the
 * same comparison (`../stats/few-in-category.ts`: a 2 x 2 kappa on a category used 1-4 times; a six-bucket kappa is
 * never flagged, as in the CLI: docs/agree.md); empty when none.
 * @param rows [who (rater, and which kappa when a row has two), its comparison's `few_in_category`].
 */
export function fewItemsWarnings(rows: ReadonlyArray<readonly [string, FewInCategory | undefined]>): string {
  return rows.map(([who, f]) => (f ? `<div class="warn few-items">${escapeHtml(`${who}: ${fewItemsLine(f)}`)}</div>` : "")).join("");
}

/** The mark after a flagged kappa in a table cell or a heatmap caption: ` (FEW ITEMS)`; "" when not flagged. */
export function fewItemsMark(f: FewInCategory | undefined): string {
  return f ? ` (${FEW_ITEMS})` : "";
}

/** Who gave one category only (or what the raters never shared), for a caption ({@link byConstruction}). */
const ONE_CATEGORY_WHO: Record<KappaNote, string> = {
  reference_one_category: "the reference gave one category only",
  rater_one_category: "the rater gave one category only",
  a_rater_one_category: "a rater gave one category only",
  no_shared_category: "the two raters never used a category in common",
};

/**
 * What a heatmap's caption says after a kappa that is 0 by construction (`../stats/one-category.ts` KappaNote, for
 * either side alike): ` (0 by construction: the rater gave one category only)`; "" without a note. Such a kappa is
 * left out of the forest plot.
 */
export function byConstruction(note: KappaNote | undefined): string {
  return note !== undefined ? ` (0 by construction: ${ONE_CATEGORY_WHO[note]})` : "";
}

/**
 * The forest plot's rows split by how many categories their kappa is over, most first: a kappa over the six
 * buckets and one over yes/no (attack success) are not on one scale (chance agreement and the meaning of a
 * disagreement differ), so each count gets its own plot (review 16).
 */
export function forestGroups<T extends { categories: number }>(rows: readonly T[]): Array<{ categories: number; rows: T[] }> {
  const by = new Map<number, T[]>();
  for (const r of rows) {
    if (!by.has(r.categories)) by.set(r.categories, []);
    by.get(r.categories)!.push(r);
  }
  return [...by].sort((a, b) => b[0] - a[0]).map(([categories, rs]) => ({ categories, rows: rs }));
}

/**
 * The caption of one forest plot of {@link forestGroups}: its category count, and when there are others, that they
 * are not comparable; `designed` when a row against the human consensus is the design-weighted kappa (break55 #1).
 */
export function forestCaption(categories: number, plots: number, designed = false): string {
  const what = categories === 2 ? "2 categories (yes/no: e.g. attack success)" : categories === 6 ? "6 categories (the six buckets)" : `${categories} categories`;
  const dw = designed ? "; against the human consensus: the design-weighted kappa (the run's figure, the sample's inclusion probabilities undone; Wald interval from its linearised SE), not the sample's unweighted one" : "";
  return `Cohen's kappa with 95% Wald intervals, over ${what}${plots > 1 ? ": not comparable with the kappas of the other plot (another number of categories)" : ""}${dw}`;
}
