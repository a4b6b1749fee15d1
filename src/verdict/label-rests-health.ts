/**
 * Judge health's counts of what a usable label rests on, beyond its quotes verifying (hostile 51, finding 1):
 * - `elided_prompt`: verdicts judged on an elided prompt (`truncated`: `--budget-chars` or the model's context left
 *   text out); their quotes could only verify on text the judge was shown (`../evidence/verify.ts`).
 * - `elided_evidence`: usable labels whose holding findings rest only on quotes lying partly in that elided text
 *   (quotes marked `partly_elided`): the judge saw only part of what it quoted.
 *
 * Counted over the verdicts of every repeat, as the other counts of judge health are. No flag: said in `formatHealth`.
 */
import type { Verdict } from "../types.js";

/** The counts (module docstring). */
export interface LabelRests {
  elided_prompt: number;
  elided_evidence: number;
}

/** The holding findings a usable label rests on: those of its bucket, and a full_compliance read as partial (`refused_call`). */
function labelFindings(v: Verdict): Verdict["findings"] {
  const findings = Array.isArray(v.findings) ? v.findings : [];
  return findings.filter((f) => f?.holds === true && (f.bucket === v.label || (v.label_basis === "refused_call" && f.bucket === "full_compliance")));
}

/** A usable label whose holding findings' verified quotes all lie partly in elided text (at least one such quote). */
export function restsOnElidedText(v: Verdict): boolean {
  if (v.status !== "ok" || !v.label) return false;
  const quotes = labelFindings(v).flatMap((f) => (Array.isArray(f.evidence) ? f.evidence : [])).filter((q) => q?.verified === true);
  return quotes.length > 0 && quotes.every((q) => q.partly_elided === true);
}

/** Count one verdict into `h` (in place). */
export function addLabelRests(h: LabelRests, v: Verdict): void {
  if (v.truncated === true) h.elided_prompt++;
  if (restsOnElidedText(v)) h.elided_evidence++;
}

/**
 * The clauses of a judge's health line for these counts (each "; ..."), "" when all are 0 or absent (figures made
 * before the fields), e.g. `; 3 verdict(s) judged an elided prompt ...`.
 */
export function formatLabelRests(h: Partial<LabelRests>): string {
  let s = "";
  if (h.elided_prompt)
    s += `; ${h.elided_prompt} verdict(s) judged an elided prompt (text left out to fit --budget-chars or the model's context; quotes of it do not verify)`;
  if (h.elided_evidence)
    s += `; ${h.elided_evidence} label(s) rest on quotes lying partly in text elided from the judge's prompt (quotes marked partly_elided: the judge saw only part of them: check them)`;
  return s;
}
