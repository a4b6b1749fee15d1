/**
 * Who is in a judge's reference for self-family leniency (`./leniency.ts`): "the other judges' majority". A bias a
 * judge shares with the judges of its own maker cancels out of the judge-minus-reference difference, so the gap
 * cannot show self-family leniency when every judge of the reference is of the judge's family (break51 finding 3:
 * two OpenAI judges, each the other's whole reference, printed `adjusted gap -10.1 ... CI [-28.7, +15.6]` as if it
 * measured something), and understates it when the reference holds some (finding 8: a sibling plus the signature judge).
 *
 * - No judge of another family in the reference: every gap (crude and adjusted) is null with reason
 *   {@link REFERENCE_SAME_FAMILY}, with no CI, so nothing is flagged or tested (Bonferroni counts it out).
 * - Some judges of its family in the reference: the figures stand, with `reference_note` saying who and what it means.
 */
import type { AdjustedLeniency } from "./leniency-strata.js";

/** What this file reads and changes of a judge's leniency (`JudgeLeniency` of ./leniency.ts, which calls it). */
export interface ReferenceGaps {
  judge_family: string;
  crude_gap_points: number | null;
  crude_gap_reason?: string;
  crude_gap_ci_bootstrap?: unknown;
  adjusted: AdjustedLeniency;
  reference_note?: string;
}

/** The reason of a gap that cannot be measured: no judge of another family is in the reference majority. */
export const REFERENCE_SAME_FAMILY = "reference_same_family";

/** Two recorded families are the same (case-insensitive); a missing one (older verdicts) is no one's sibling. */
const same = (a: string | undefined, b: string | undefined) => typeof a === "string" && typeof b === "string" && a !== "" && a.toLowerCase() === b.toLowerCase();

/**
 * Null a judge's gaps, or note its reference, by its reference's families (module docstring). Changes `l` in place;
 * call it before `setBonferroniFlags`, so a nulled judge is not counted among the judges tested.
 * @param l the judge's leniency figures.
 * @param reference the other committee judges that have votes in the run (the reference majority's members).
 */
export function checkReferenceFamilies(l: ReferenceGaps, reference: ReadonlyArray<{ id: string; family: string }>): void {
  const sib = reference.filter((k) => same(k.family, l.judge_family));
  if (sib.length === 0) return;
  const names = sib.map((k) => k.id).join(", ");
  if (sib.length === reference.length) {
    l.crude_gap_points = null;
    l.crude_gap_reason = REFERENCE_SAME_FAMILY;
    delete l.crude_gap_ci_bootstrap;
    const a = l.adjusted;
    a.gap_points = null;
    a.gap_reason = REFERENCE_SAME_FAMILY;
    a.own_diff_points = null;
    a.other_diff_points = null;
    delete a.gap_ci;
    delete a.gap_ci_flag;
    l.reference_note =
      `no judge of another family is in the reference (the other judges' majority is ${names}, all of family ${l.judge_family}): ` +
      `a bias shared by one maker's judges cancels out of the difference, so self-family leniency cannot be measured here; add a judge of another family`;
    return;
  }
  l.reference_note =
    `the reference (the other judges' majority) includes ${names} of the same family (${l.judge_family}): a bias shared by one maker's judges ` +
    `partly cancels out of the difference, so the gap may understate self-family leniency`;
}
