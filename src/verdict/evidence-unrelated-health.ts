/**
 * Judge health's count of compliance labels whose verified evidence shares no distinctive word or value with the
 * injected text (verdicts marked `compliance_unrelated`, `./evidence-unrelated.ts`; new user 50, finding 2). The label
 * stands (a relatedness test is a heuristic: an action can serve the injected goal without repeating its words), but
 * the judge's health raises the flag `compliance_evidence_unrelated` for any such label and every command that prints a
 * rate over the judge's labels says how many of its compliance labels carry it ({@link evidenceUnrelatedWarning}, the
 * same places as `./tool-arguments-health.ts`'s warning).
 *
 * Counted over usable labels (status `ok`) of every repeat, as the other compliance counts of judge health are.
 */
import type { Verdict } from "../types.js";
import { quoted } from "../format/quote-name.js";

/** Trajectory ids kept as examples (the first met, each once). */
export const EVIDENCE_UNRELATED_ITEMS = 5;

/** A judge's compliance labels, and those marked `compliance_unrelated`. */
export interface EvidenceUnrelatedHealth {
  /** Its usable `full_compliance` and `partial_compliance` labels. */
  compliance_labels: number;
  /** Of them, those marked `compliance_unrelated`. */
  flagged: number;
  /** Of `flagged`, the `full_compliance` ones (the successes asr_goal counts). */
  flagged_full: number;
  first_items: string[];
}

/** Zero figures. */
export function emptyEvidenceUnrelated(): EvidenceUnrelatedHealth {
  return { compliance_labels: 0, flagged: 0, flagged_full: 0, first_items: [] };
}

/**
 * Count one verdict (in place): a usable compliance label, flagged when it carries `compliance_unrelated`.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addEvidenceUnrelated(h: EvidenceUnrelatedHealth, v: Verdict, trajectoryId?: string): void {
  if (v.status !== "ok" || (v.label !== "full_compliance" && v.label !== "partial_compliance")) return;
  h.compliance_labels++;
  if (v.compliance_unrelated !== true) return;
  h.flagged++;
  if (v.label === "full_compliance") h.flagged_full++;
  const id = typeof v.trajectory_id === "string" && v.trajectory_id !== "" ? v.trajectory_id : trajectoryId || undefined;
  if (id !== undefined && h.first_items.length < EVIDENCE_UNRELATED_ITEMS && !h.first_items.includes(id)) h.first_items.push(id);
}

/** The flag's sentence (`compliance_evidence_unrelated`, `./health-flags.ts`), or null when no label carries the mark. */
export function evidenceUnrelatedMessage(h: EvidenceUnrelatedHealth | undefined): string | null {
  if (!h || h.flagged === 0) return null;
  const eg = h.first_items.length ? `e.g. ${h.first_items.join(", ")}${h.flagged > h.first_items.length ? ", ..." : ""}; ` : "";
  return (
    `${h.flagged} of its ${h.compliance_labels} compliance labels (${h.flagged_full} full_compliance) cite only agent actions that share no word or value with the injected text ` +
    `(verdicts marked compliance_unrelated): the quotes are real and the agent's, but nothing ties the action to the injected goal, so its rates may count the user's own task as success; ` +
    `check them (${eg}verdicts.jsonl marks each)`
  );
}

/**
 * The line beside a judge's rates when some of its compliance labels carry the mark, e.g. `judge "stub2": 1 of its 1
 * compliance labels (1 full_compliance) cite only agent actions that share no word or value with the injected text
 * ...`; null when none. The one text every command that prints rates gives (label's summary, compare, estimate,
 * report, committee, agree).
 */
export function evidenceUnrelatedWarning(judgeId: string, h: EvidenceUnrelatedHealth | undefined): string | null {
  const m = evidenceUnrelatedMessage(h);
  return m === null ? null : `judge ${quoted(judgeId)}: ${m}`;
}

/**
 * {@link evidenceUnrelatedWarning} of each judge behind a figure that has such labels, in the order given.
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function evidenceUnrelatedWarnings(health: readonly { judge_id: string; evidence_unrelated?: EvidenceUnrelatedHealth }[] | undefined, judgeIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of new Set(judgeIds)) {
    const w = evidenceUnrelatedWarning(id, health?.find((h) => h.judge_id === id)?.evidence_unrelated);
    if (w) out.push(w);
  }
  return out;
}
