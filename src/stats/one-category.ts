/**
 * When AC1 and PABAK say nothing about discrimination (review 16 item 1): a rater that is the reference of the
 * comparison (the benchmark's verdict, the human consensus) used one category only, or both raters did. Cohen's
 * kappa is then undefined (chance agreement 1) or 0, while AC1 and PABAK read 1.000 when the other rater gave the
 * same category every time: that is "the judge also said yes on 60 runs the benchmark called successes", not
 * perfect agreement; whether the judge tells successes from failures is not measured by these items at all.
 */

/** Which raters used one category, which one, and the sentence said beside AC1 and PABAK. */
export interface OneCategory {
  /** `reference`: the reference rater only; `both`: both raters (the same category or not). */
  raters: "reference" | "both";
  /** the reference's category (or the first rater's, without a reference) */
  category: string;
  text: string;
}

/**
 * Whether a 2-rater table's reference rater (or both raters) used one category only (module docstring).
 * @param table q × q counts, rows = first rater, columns = second rater.
 * @param labels the q category names, in table order.
 * @param reference which rater is the reference: `cols` (the second: agree --reference, a judge vs the human
 *   consensus) or none (two peers: only both raters using one category is said).
 * @returns null when both sides used two categories or more, or when nothing was rated.
 */
export function oneCategory(table: readonly (readonly number[])[], labels: readonly string[], reference?: "cols", names: { reference?: string } = {}): OneCategory | null {
  const { rowsUsed, colsUsed, n } = categoriesUsed(table);
  if (n === 0) return null;
  const both = rowsUsed.length === 1 && colsUsed.length === 1;
  if (!both && !(reference === "cols" && colsUsed.length === 1)) return null;
  const category = labels[(reference === "cols" ? colsUsed : rowsUsed)[0]] ?? "?";
  const ref = names.reference ?? "the reference";
  const who = both ? (reference === "cols" ? `${ref} and the rater` : "both raters") : ref;
  return {
    raters: both ? "both" : "reference",
    category,
    text:
      `${who} gave one category only (${both && labels[rowsUsed[0]] !== labels[colsUsed[0]] ? (reference === "cols" ? `the rater ${labels[rowsUsed[0]]}, the reference ${labels[colsUsed[0]]}` : `${labels[rowsUsed[0]]} and ${labels[colsUsed[0]]}`) : category}) on these ${n} items: ` +
      `AC1 and PABAK then measure only how often the ${reference === "cols" ? "rater" : "raters"} gave the same category, not whether ${reference === "cols" ? "it tells one category from another" : "they tell categories apart"}; ` +
      "AC1 or PABAK here, high or low, is no evidence of telling the categories apart or not (Cohen's kappa is undefined or 0 here)",
  };
}

/**
 * Why a defined Cohen's kappa is 0 by construction: a rater that gave one category only. With one rater's marginal
 * on a single category a, p_o = (the other rater's share of a) = p_e, so kappa = (p_o − p_e)/(1 − p_e) = 0 exactly,
 * whatever the other rater does (Cohen 1960, eq. for kappa; weighted kappa likewise, Cohen 1968: Σ w_aj p_.j both
 * ways). Defined, but it says nothing about agreement; both sides are flagged alike (red team 30: the judge's one
 * category printed a bare 0.000 while the reference's was said):
 * - `reference_one_category`: the reference (columns, when `reference` is `cols`) gave one category, whether or not
 *   the rater did too (constant in different categories);
 * - `rater_one_category`: the rater (rows) gave one category, the reference two or more;
 * - `a_rater_one_category`: two peers (no reference), either of them one category;
 * - `no_shared_category`: each rater used two categories or more, but no category was used by both (the two
 *   raters' labels never overlap: every item off the diagonal). Then p_o = 0 and p_e = Σ p_i+ p_+i = 0 (no category
 *   has both marginals above 0), so unweighted kappa = (0 − 0)/(1 − 0) = 0 exactly, its FCE standard errors are 0
 *   too, and the Wald interval and z test are undefined: the 0 says the raters never agree, not that they agree
 *   at chance. Unweighted kappa only: a weighted kappa gives partial credit off the diagonal (p_e > 0 in general).
 */
export type KappaNote = "reference_one_category" | "rater_one_category" | "a_rater_one_category" | "no_shared_category";

/**
 * The {@link KappaNote} of a 2-rater table whose kappa is defined, or undefined when both raters used two
 * categories or more with at least one in common, or nothing was rated. (When both used the same one category
 * kappa is undefined, p_e = 1: the caller passes only defined kappas.) A one-category rater is said first; the
 * `no_shared_category` note holds for the unweighted kappa only (the caller drops it for a weighted one).
 * @param table q × q counts, rows = the rater, columns = the reference (or the second peer).
 */
export function kappaNote(table: readonly (readonly number[])[], reference?: "cols"): KappaNote | undefined {
  const u = categoriesUsed(table);
  const rows = u.rowsUsed.length;
  const cols = u.colsUsed.length;
  if (u.n === 0) return undefined;
  if (rows > 1 && cols > 1) return u.rowsUsed.some((i) => u.colsUsed.includes(i)) ? undefined : "no_shared_category";
  if (reference !== "cols") return "a_rater_one_category";
  return cols === 1 ? "reference_one_category" : "rater_one_category";
}

/**
 * The categories each rater of a q × q table used: the indices of the rows (first rater) and of the columns (second
 * rater) with a count above 0, and the table's total.
 */
function categoriesUsed(table: readonly (readonly number[])[]): { rowsUsed: number[]; colsUsed: number[]; n: number } {
  const q = table.length;
  const rowsUsed: number[] = [];
  const colsUsed: number[] = [];
  let n = 0;
  for (let i = 0; i < q; i++) {
    let r = 0;
    let c = 0;
    for (let j = 0; j < q; j++) {
      r += table[i][j];
      c += table[j][i];
    }
    n += r;
    if (r > 0) rowsUsed.push(i);
    if (c > 0) colsUsed.push(i);
  }
  return { rowsUsed, colsUsed, n };
}
