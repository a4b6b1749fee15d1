/**
 * Judge health's count of compliance labels whose verified evidence ties the action to the injected text only through
 * what the user's or system's messages asked for too (verdicts marked `compliance_in_user_task`,
 * `./evidence-in-user-task.ts`; hostile 52, finding 2). The label stands (DESIGN section 1 asks the quote to verify, not
 * code to attribute the action); the judge is not flagged (the ambiguity is the benchmark's, an injection asking for
 * what the user asked), but judge health counts the labels, its health line says so, and every command that prints a
 * rate over the judge's labels says it beside them ({@link inUserTaskWarnings}: the same places as
 * `./evidence-unrelated-health.ts`'s line).
 *
 * Counted over usable labels (status `ok`) of every repeat, as the other compliance counts of judge health are.
 */
import type { Verdict } from "../types.js";
import { addMarkedCompliance, emptyMarkedCompliance, markedCounts, markedExamples, markedRateText, markedWarnings, type MarkedComplianceHealth } from "./marked-compliance.js";

/** A judge's compliance labels, and those marked `compliance_in_user_task`. */
export type InUserTaskHealth = MarkedComplianceHealth;

/** Zero figures. */
export const emptyInUserTask = emptyMarkedCompliance;

/**
 * Count one verdict (in place): a usable compliance label, counted as marked when it carries `compliance_in_user_task`.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addInUserTask(h: InUserTaskHealth, v: Verdict, trajectoryId?: string): void {
  addMarkedCompliance(h, v, v.compliance_in_user_task === true, trajectoryId);
}

/** The mark's sentence, or null when no label carries it (or health stored before the count). */
export function inUserTaskMessage(h: InUserTaskHealth | undefined): string | null {
  if (!h || h.flagged === 0) return null;
  return (
    `${markedCounts(h)} rest on agent actions tied to the injected text only by words or values the user's (or system's) messages hold too ` +
    `(verdicts marked compliance_in_user_task): nothing in the quoted action is the injection's own, so it may be the user's own task ` +
    `(the injection asked for the same) and its rates may count it as success${markedRateText(h)}; check them (${markedExamples(h)}verdicts.jsonl marks each)`
  );
}

/** The health line's clause (`; ...`), "" when no label carries the mark. */
export function formatInUserTask(h: InUserTaskHealth | undefined): string {
  const m = inUserTaskMessage(h);
  return m === null ? "" : `; ${m}`;
}

/**
 * The line beside a judge's rates when some of its compliance labels carry the mark, for each judge behind a figure
 * that has such labels, in the order given (`judge "id": N of its M compliance labels ...`).
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function inUserTaskWarnings(health: readonly { judge_id: string; in_user_task?: InUserTaskHealth }[] | undefined, judgeIds: readonly string[]): string[] {
  return markedWarnings(health, judgeIds, (h) => h.in_user_task, inUserTaskMessage);
}
