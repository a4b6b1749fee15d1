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
