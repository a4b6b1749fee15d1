/**
 * The report's headline beside "the human labels alone": what the human-only figures are over when the label file's
 * strata leave cells with no labelled item (newuser53 #2: "human labels alone 37.9%" read as over all 1,440 where it is
 * over the 766 of the labelled cells), as estimate's `(all)` line says it (../estimate/human-over.ts).
 */
import { calibratedOverText, humanOverText } from "../estimate/human-over.js";
import type { CalibratedAll } from "./calibrated-all.js";

/**
 * The clause (plain text, `; the human-only figure is over ...`), or "".
 * @param warnings the report's warnings and its human agreement's (the strata WARNING is said once, among either:
 *   ./coverage-once.ts); a `calibrated estimate: ` prefix is read through.
 * @param a the calibrated `(all)` estimate (its asr_behaviour group: N, the design-weighted size, the human figure).
 */
export function humanOver(warnings: readonly string[], a: Pick<CalibratedAll, "asr_behaviour">): string {
  const g = "group" in a.asr_behaviour ? a.asr_behaviour.group : null;
  const ws = warnings.map((w) => w.replace(/^calibrated estimate: /, ""));
  return g ? humanOverText(g, ws).replace("the WARNING on the label file's strata above", "the warning on the label file's strata") : "";
}

/**
 * The caveat after the headline's calibrated figures when the correction was measured in part of the cells and
 * applied to all (../estimate/human-over.ts calibratedOverText, break55 #2), or "". Plain text.
 * @param warnings as {@link humanOver}'s; @param a the calibrated `(all)` estimate.
 */
export function calibratedOver(warnings: readonly string[], a: Pick<CalibratedAll, "asr_behaviour">): string {
  const g = "group" in a.asr_behaviour ? a.asr_behaviour.group : null;
  const ws = warnings.map((w) => w.replace(/^calibrated estimate: /, ""));
  return g ? calibratedOverText(g, ws).replace(/^ \((.*)\)$/, "$1") : "";
}
