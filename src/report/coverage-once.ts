/**
 * The sample's coverage said once in the report (session 48's defect: the agreement section and the calibrated
 * estimate each stated "the label file's strata ... cover N of M: the other K are in cells with no labelled item",
 * the same fact twice in other words). Both figures come from the same label file over the same run, so the fact is
 * one statement: kept where the human labels are first shown (the agreement section), naming what it means for each
 * figure, and taken out of the report's warnings.
 */
import { coverageParts } from "../agree/sample-frame.js";

const CALIBRATED = "calibrated estimate: ";

/**
 * Merge the calibrated estimate's coverage warning into the agreement section's warning of the same fact.
 * Leaves both lists as they are when either has none, or when they state different coverages (then they are two
 * facts). Mutates both arrays.
 * @param warnings the report's warnings (the calibrated estimate's carry the `calibrated estimate: ` prefix).
 * @param agreement the agreement-with-humans section's warnings (`humanAgreement(...).warnings`).
 */
export function sayCoverageOnce(warnings: string[], agreement: string[]): void {
  for (let i = 0; i < warnings.length; i++) {
    if (!warnings[i].startsWith(CALIBRATED)) continue;
    const est = coverageParts(warnings[i].slice(CALIBRATED.length));
    if (!est) continue;
    const j = agreement.findIndex((w) => coverageParts(w)?.key === est.key);
    if (j < 0) continue;
    const agr = coverageParts(agreement[j])!;
    // the estimate's head can name the sampling strata with no labelled item: the fuller of the two is kept
    const head = est.head.length >= agr.head.length ? est.head : agr.head;
    agreement[j] = `${head}: ${agr.tail}; in the table of a paper: ${est.tail}`;
    warnings.splice(i, 1);
    i--;
  }
}
