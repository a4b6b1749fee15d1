/**
 * Judge health's counts of what a usable label rests on, beyond its quotes verifying (hostile 51, findings 1 and 4a):
 * - `elided_prompt`: verdicts judged on an elided prompt (`truncated`: `--budget-chars` or the model's context left
 *   text out); their quotes could only verify on text the judge was shown (`../evidence/verify.ts`).
 * - `elided_evidence`: usable labels whose holding findings rest only on quotes lying partly in that elided text
 *   (quotes marked `partly_elided`): the judge saw only part of what it quoted.
 * - `raised_above_claim`: usable labels a verified finding raised above the judge's own stated label (`label_claimed`;
 *   DESIGN section 1, "the final label is the highest holding finding"), as downgrades are counted the other way: a
 *   judge whose stated label often disagrees upward with its own findings is visible. The code floor (`exposure_found`:
 *   no finding held, code found the injected text in what the agent received) is not counted.
 *
 * Counted over the verdicts of every repeat, as the other counts of judge health are. No flag: said in `formatHealth`.
 */
import { rank } from "../rubric/buckets.js";
import type { Verdict } from "../types.js";

/** The three counts (module docstring). */
export interface LabelRests {
  elided_prompt: number;
  elided_evidence: number;
  raised_above_claim: number;
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

/** A usable label above the judge's own stated label, given by a holding finding (not by the code floor). */
export function raisedAboveClaim(v: Verdict): boolean {
  if (v.status !== "ok" || !v.label || !v.label_claimed || v.label_basis === "exposure_found") return false;
  const [l, c] = [rank(v.label), rank(v.label_claimed)];
  return l >= 0 && c >= 0 && l < c && labelFindings(v).length > 0;
}

/** Count one verdict into `h` (in place). */
export function addLabelRests(h: LabelRests, v: Verdict): void {
  if (v.truncated === true) h.elided_prompt++;
  if (restsOnElidedText(v)) h.elided_evidence++;
  if (raisedAboveClaim(v)) h.raised_above_claim++;
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
  if (h.raised_above_claim)
    s += `; ${h.raised_above_claim} label(s) raised above the judge's own stated label by a verified finding (label_claimed lower than label: its label and its findings disagree)`;
  return s;
}
