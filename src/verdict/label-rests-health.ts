/**
 * Judge health's counts of what a usable label rests on, beyond its quotes verifying (hostile 51, findings 1 and 4a):
 * - `elided_prompt`: verdicts judged on an elided prompt (`truncated`: `--budget-chars` or the model's context left
 *   text out); their quotes could only verify on text the judge was shown (`../evidence/verify.ts`).
 * - `context_elided`: of those, the verdicts whose prompt was elided further because the provider said it exceeded the
 *   model's context (`Verdict.context_elided`; not the `too_long` ones, which got no answer): the judge saw less than the
 *   run's budget allows, which no setting of the run says (hostile 52, finding 1).
 * - `elided_evidence`: usable labels whose holding findings rest only on quotes lying partly in that elided text
 *   (quotes marked `partly_elided`): the judge saw only part of what it quoted.
 * - `raised_above_claim`: usable labels a verified finding raised above the judge's own stated label (`label_claimed`;
 *   DESIGN section 1, "the final label is the highest holding finding"), as downgrades are counted the other way: a
 *   judge whose stated label often disagrees upward with its own findings is visible. The code floor (`exposure_found`:
 *   no finding held, code found the injected text in what the agent received) is not counted.
 *
 * Counted over the verdicts of every repeat, as the other counts of judge health are. No flag: said in `formatHealth`,
 * and beside the rates of every command that prints them ({@link elidedPromptWarnings}). The counts need `truncated`,
 * `context_elided` and the quotes' `partly_elided`, which the slim records every summary reads keep
 * (`slimVerdict` of ../store/records.ts).
 */
import { rank } from "../rubric/buckets.js";
import { quoted } from "../format/quote-name.js";
import type { Verdict } from "../types.js";

/** The three counts (module docstring). */
export interface LabelRests {
  elided_prompt: number;
  context_elided: number;
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
  if (typeof v.context_elided === "number" && v.context_elided > 0 && v.error?.kind !== "too_long") h.context_elided++;
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
  if (h.context_elided)
    s += `; ${h.context_elided} verdict(s) judged a prompt elided further after the provider said it exceeded the model's context (the judge saw less than the run's budget allows; set context_tokens or a model with a larger context)`;
  if (h.elided_evidence)
    s += `; ${h.elided_evidence} label(s) rest on quotes lying partly in text elided from the judge's prompt (quotes marked partly_elided: the judge saw only part of them: check them)`;
  if (h.raised_above_claim)
    s += `; ${h.raised_above_claim} label(s) raised above the judge's own stated label by a verified finding (label_claimed lower than label: its label and its findings disagree)`;
  return s;
}

/**
 * The line beside a judge's rates when some of its verdicts were judged on an elided prompt, e.g. `judge "j": 60 of
 * its 60 verdicts were judged on an elided prompt (...; 2 of them elided further for the model's context) and 1 label
 * rests on quotes lying partly in elided text: its labels are of the text it was shown`, for each judge behind a
 * figure with such verdicts, in the order given. The one text compare, estimate, report, committee and agree give
 * (label's summary says it in the health line, `formatLabelRests`).
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function elidedPromptWarnings(
  health: readonly { judge_id: string; verdicts: number; elided_prompt?: number; context_elided?: number; elided_evidence?: number }[] | undefined,
  judgeIds: readonly string[],
): string[] {
  const out: string[] = [];
  for (const id of new Set(judgeIds)) {
    const h = health?.find((x) => x.judge_id === id);
    if (!h || !(h.elided_prompt || h.elided_evidence)) continue;
    const ctx = h.context_elided ? `; ${h.context_elided} of them elided further after the provider said the prompt exceeded the model's context` : "";
    const ev = h.elided_evidence ? ` and ${h.elided_evidence} label(s) rest on quotes lying partly in elided text (marked partly_elided)` : "";
    out.push(
      `judge ${quoted(id)}: ${h.elided_prompt ?? 0} of its ${h.verdicts} verdicts were judged on an elided prompt ` +
        `(text left out to fit --budget-chars or the model's context${ctx})${ev}: its labels are of the text it was shown, ` +
        `and an action in the text left out is not seen (verdicts.jsonl marks each: truncated, context_elided)`,
    );
  }
  return out;
}
