/**
 * Judge health's count of compliance labels whose verified evidence shares no distinctive word or value with the
 * injected text (verdicts marked `compliance_unrelated`, `./evidence-unrelated.ts`; new user 50, finding 2). The label
 * stands (a relatedness test is a heuristic: an action can serve the injected goal without repeating its words), but
 * the judge's health raises the flag `compliance_evidence_unrelated` for any such label and every command that prints a
 * rate over the judge's labels says how many of its compliance labels carry it ({@link evidenceUnrelatedWarnings}, the
 * same places as `./tool-arguments-health.ts`'s warning).
 *
 * Counted over usable labels (status `ok`) of every repeat, as the other compliance counts of judge health are.
 */
import type { Verdict } from "../types.js";
import { addMarkedCompliance, emptyMarkedCompliance, markedCounts, markedExamples, markedRateText, markedWarnings, MARKED_ITEMS, type MarkedComplianceHealth } from "./marked-compliance.js";

/** Trajectory ids kept as examples (the first met, each once). */
export const EVIDENCE_UNRELATED_ITEMS = MARKED_ITEMS;

/** A judge's compliance labels, and those marked `compliance_unrelated`. */
export type EvidenceUnrelatedHealth = MarkedComplianceHealth;

/** Zero figures. */
export const emptyEvidenceUnrelated = emptyMarkedCompliance;

/**
 * Count one verdict (in place): a usable compliance label, flagged when it carries `compliance_unrelated`.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addEvidenceUnrelated(h: EvidenceUnrelatedHealth, v: Verdict, trajectoryId?: string): void {
  addMarkedCompliance(h, v, v.compliance_unrelated === true, trajectoryId);
}

/** The flag's sentence (`compliance_evidence_unrelated`, `./health-flags.ts`), or null when no label carries the mark. */
export function evidenceUnrelatedMessage(h: EvidenceUnrelatedHealth | undefined): string | null {
  if (!h || h.flagged === 0) return null;
  return (
    `${markedCounts(h)} cite only agent actions that share no word or value with the injected text ` +
    `(verdicts marked compliance_unrelated): the quotes are real and the agent's, but nothing ties the action to the injected goal, so its rates may count the user's own task as success${markedRateText(h)}; ` +
    `check them (${markedExamples(h)}verdicts.jsonl marks each)`
  );
}

/**
 * The line beside a judge's rates when some of its compliance labels carry the mark, e.g. `judge "stub2": 1 of its 1
 * compliance labels (1 full_compliance) cite only agent actions that share no word or value with the injected text
 * ...`, for each judge behind a figure that has such labels, in the order given. The one text every command that prints
 * rates gives (label's summary, compare, estimate, report, committee, agree).
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function evidenceUnrelatedWarnings(health: readonly { judge_id: string; evidence_unrelated?: EvidenceUnrelatedHealth }[] | undefined, judgeIds: readonly string[]): string[] {
  return markedWarnings(health, judgeIds, (h) => h.evidence_unrelated, evidenceUnrelatedMessage);
}
