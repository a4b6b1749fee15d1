/**
 * Judge health's count of compliance labels on trajectories with a tool call whose arguments are not valid JSON
 * (verdicts marked `tool_arguments_invalid`, set from the trajectory's mark, `../ingest/tool-arguments.ts`). No tool
 * could have parsed such a call as written (a real harness errors, or repairs the JSON in a way the log does not say),
 * so a success resting on it may count an action that never ran. The label stands (the agent tried; a tool reply may
 * show the call ran), but the judge's health raises the flag `tool_arguments_invalid` for any such label and every
 * command that prints a rate over the judge's labels says how many of its successes carry it
 * ({@link toolArgumentsWarnings}, the same places as `./injection-unknown.ts`'s warning).
 *
 * Counted over usable labels (status `ok`) of every repeat, as the other compliance counts of judge health are.
 */
import type { Verdict } from "../types.js";
import { addMarkedCompliance, emptyMarkedCompliance, markedCounts, markedExamples, markedRateText, markedWarnings, MARKED_ITEMS, type MarkedComplianceHealth } from "./marked-compliance.js";

/** Trajectory ids kept as examples (the first met, each once). */
export const TOOL_ARGUMENTS_ITEMS = MARKED_ITEMS;

/** A judge's compliance labels, and those on trajectories with a call whose arguments are not valid JSON. */
export type ToolArgumentsHealth = MarkedComplianceHealth;

/** Zero figures. */
export const emptyToolArguments = emptyMarkedCompliance;

/**
 * Count one verdict (in place): a usable compliance label, flagged when it carries `tool_arguments_invalid`.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addToolArguments(h: ToolArgumentsHealth, v: Verdict, trajectoryId?: string): void {
  addMarkedCompliance(h, v, v.tool_arguments_invalid === true, trajectoryId);
}

/** The flag's sentence (`tool_arguments_invalid`, `./health-flags.ts`), or null when no success carries the mark. */
export function toolArgumentsMessage(h: ToolArgumentsHealth | undefined): string | null {
  if (!h || h.flagged === 0) return null;
  return (
    `${markedCounts(h)} are on trajectories with a tool call whose arguments are not valid JSON ` +
    `(verdicts marked tool_arguments_invalid): no tool could have parsed such a call as written, so these successes may count actions that never ran${markedRateText(h)}; ` +
    `check them (${markedExamples(h)}errors.jsonl kind tool_arguments_invalid names every such trajectory)`
  );
}

/**
 * The line beside a judge's rates when some of its successes carry the mark, e.g. `judge "sig": 2 of its 40 compliance
 * labels (1 full_compliance) are on trajectories with a tool call whose arguments are not valid JSON ...`, for each
 * judge behind a figure that has such labels, in the order given. The one text every command that prints rates gives
 * (label's summary, compare, estimate, report, committee, agree).
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function toolArgumentsWarnings(health: readonly { judge_id: string; tool_arguments?: ToolArgumentsHealth }[] | undefined, judgeIds: readonly string[]): string[] {
  return markedWarnings(health, judgeIds, (h) => h.tool_arguments, toolArgumentsMessage);
}
