/**
 * A judge's usable compliance labels, and those carrying one verdict mark: the count that `./tool-arguments-health.ts`
 * (`tool_arguments_invalid`) and `./evidence-unrelated-health.ts` (`compliance_unrelated`) each keep in judge health,
 * and the line each prints beside the rates. Counted over usable labels (status `ok`) of every repeat, as the other
 * compliance counts of judge health are.
 */
import type { Verdict } from "../types.js";
import { quoted } from "../format/quote-name.js";

/** Trajectory ids kept as examples (the first met, each once). */
export const MARKED_ITEMS = 5;

/** A judge's compliance labels, and those carrying the mark. */
export interface MarkedComplianceHealth {
  /** Its usable `full_compliance` and `partial_compliance` labels (the successes asr_behaviour counts). */
  compliance_labels: number;
  /** Of them, those carrying the mark. */
  flagged: number;
  /** Of `flagged`, the `full_compliance` ones (the successes asr_goal counts). */
  flagged_full: number;
  first_items: string[];
  /**
   * The same three counts over repeat-0 labels of attacked trajectories, the labels a rate beside the line counts
   * (break51 finding 8: `asr_goal 31.8% (21/66)` beside `33 of its 92 compliance labels`, every repeat and unattacked runs
   * too, left the reader unable to tell how many of the 21 carry the mark). Absent in health stored before.
   */
  rate?: { compliance_labels: number; flagged: number; flagged_full: number };
}

/** Zero figures. */
export function emptyMarkedCompliance(): MarkedComplianceHealth {
  return { compliance_labels: 0, flagged: 0, flagged_full: 0, first_items: [], rate: { compliance_labels: 0, flagged: 0, flagged_full: 0 } };
}

/**
 * Count one verdict (in place): a usable compliance label, flagged when `marked`.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addMarkedCompliance(h: MarkedComplianceHealth, v: Verdict, marked: boolean, trajectoryId?: string): void {
  if (v.status !== "ok" || (v.label !== "full_compliance" && v.label !== "partial_compliance")) return;
  h.compliance_labels++;
  const r = v.repeat === 0 && v.attacked === true ? h.rate : undefined; // the labels the rates count
  if (r) r.compliance_labels++;
  if (!marked) return;
  h.flagged++;
  if (r) r.flagged++;
  if (v.label === "full_compliance") {
    h.flagged_full++;
    if (r) r.flagged_full++;
  }
  const id = typeof v.trajectory_id === "string" && v.trajectory_id !== "" ? v.trajectory_id : trajectoryId || undefined;
  if (id !== undefined && h.first_items.length < MARKED_ITEMS && !h.first_items.includes(id)) h.first_items.push(id);
}

/** `N of its M compliance labels (K full_compliance)`, the start of each mark's sentence. */
export function markedCounts(h: MarkedComplianceHealth): string {
  return `${h.flagged} of its ${h.compliance_labels} compliance labels (${h.flagged_full} full_compliance)`;
}

/**
 * The clause giving the same counts over the successes a rate beside the line counts (repeat 0, attacked runs:
 * {@link MarkedComplianceHealth.rate}), e.g. `; of its 21 compliance labels the rates count (attacked runs, repeat 0),
 * 7 carry the mark (7 full_compliance), the counts before being over every repeat and unattacked runs too`; "" for
 * health stored before it, and when the counts are the same.
 */
export function markedRateText(h: MarkedComplianceHealth): string {
  const r = h.rate;
  // none stored (older health), or the same counts (one repeat, no compliance on unattacked runs): nothing to add
  if (!r || (r.compliance_labels === h.compliance_labels && r.flagged === h.flagged && r.flagged_full === h.flagged_full)) return "";
  return `; of its ${r.compliance_labels} compliance labels the rates count (attacked runs, repeat 0), ${r.flagged} carry the mark (${r.flagged_full} full_compliance), the counts before being over every repeat and unattacked runs too`;
}

/** The examples' clause (`e.g. a, b, ...; `), or "" when none were kept. */
export function markedExamples(h: MarkedComplianceHealth): string {
  return h.first_items.length ? `e.g. ${h.first_items.join(", ")}${h.flagged > h.first_items.length ? ", ..." : ""}; ` : "";
}

/**
 * The line beside the rates of each judge behind a figure whose count has flagged labels, in the order given:
 * `judge "id": <message>`.
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 * @param pick the mark's count in a judge's health; `message` its sentence (null when nothing is flagged).
 */
export function markedWarnings<H extends { judge_id: string }>(
  health: readonly H[] | undefined,
  judgeIds: readonly string[],
  pick: (h: H) => MarkedComplianceHealth | undefined,
  message: (h: MarkedComplianceHealth | undefined) => string | null,
): string[] {
  const out: string[] = [];
  for (const id of new Set(judgeIds)) {
    const found = health?.find((h) => h.judge_id === id);
    const m = message(found ? pick(found) : undefined);
    if (m !== null) out.push(`judge ${quoted(id)}: ${m}`);
  }
  return out;
}

/**
 * Of `judgeIds`, those a marked warning ({@link markedWarnings}) is still for: the judges whose health warning
 * (`healthWarnings` of ./health.ts, said for a judge that looks broken or has labels to check) does not already carry
 * flag `code`'s sentence, the same text. The report listed both, twice per judge (session 51); committee since out51.
 * @param code the mark's health flag (`tool_arguments_invalid`, `compliance_evidence_unrelated`).
 */
export function unsaidInHealth(
  health: ReadonlyArray<{ judge_id: string; looks_broken: boolean; flags: ReadonlyArray<{ code: string }> }> | undefined,
  judgeIds: readonly string[],
  code: string,
): string[] {
  return judgeIds.filter((id) => !(health ?? []).some((h) => h.judge_id === id && h.looks_broken && h.flags.some((f) => f.code === code)));
}
