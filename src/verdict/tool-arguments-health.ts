/**
 * Judge health's count of compliance labels on trajectories with a tool call whose arguments are not valid JSON
 * (verdicts marked `tool_arguments_invalid`, set from the trajectory's mark, `../ingest/tool-arguments.ts`). No tool
 * could have parsed such a call as written (a real harness errors, or repairs the JSON in a way the log does not say),
 * so a success resting on it may count an action that never ran. The label stands (the agent tried; a tool reply may
 * show the call ran), but the judge's health raises the flag `tool_arguments_invalid` for any such label and every
 * command that prints a rate over the judge's labels says how many of its successes carry it
 * ({@link toolArgumentsWarning}, the same places as `./injection-unknown.ts`'s warning).
 *
 * Counted over usable labels (status `ok`) of every repeat, as the other compliance counts of judge health are.
 */
import type { Verdict } from "../types.js";

/** Trajectory ids kept as examples (the first met, each once). */
export const TOOL_ARGUMENTS_ITEMS = 5;

/** A judge's compliance labels, and those on trajectories with a call whose arguments are not valid JSON. */
export interface ToolArgumentsHealth {
  /** Its usable `full_compliance` and `partial_compliance` labels (the successes asr_behaviour counts). */
  compliance_labels: number;
  /** Of them, those marked `tool_arguments_invalid`. */
  flagged: number;
  /** Of `flagged`, the `full_compliance` ones (the successes asr_goal counts). */
  flagged_full: number;
  first_items: string[];
}

/** Zero figures. */
export function emptyToolArguments(): ToolArgumentsHealth {
  return { compliance_labels: 0, flagged: 0, flagged_full: 0, first_items: [] };
}

/**
 * Count one verdict (in place): a usable compliance label, flagged when it carries `tool_arguments_invalid`.
 * @param trajectoryId its trajectory's id when the record has none of its own (a column run's shared shape).
 */
export function addToolArguments(h: ToolArgumentsHealth, v: Verdict, trajectoryId?: string): void {
  if (v.status !== "ok" || (v.label !== "full_compliance" && v.label !== "partial_compliance")) return;
  h.compliance_labels++;
  if (v.tool_arguments_invalid !== true) return;
  h.flagged++;
  if (v.label === "full_compliance") h.flagged_full++;
  const id = typeof v.trajectory_id === "string" && v.trajectory_id !== "" ? v.trajectory_id : trajectoryId || undefined;
  if (id !== undefined && h.first_items.length < TOOL_ARGUMENTS_ITEMS && !h.first_items.includes(id)) h.first_items.push(id);
}

/** The flag's sentence (`tool_arguments_invalid`, `./health-flags.ts`), or null when no success carries the mark. */
export function toolArgumentsMessage(h: ToolArgumentsHealth | undefined): string | null {
  if (!h || h.flagged === 0) return null;
  const eg = h.first_items.length ? `e.g. ${h.first_items.join(", ")}${h.flagged > h.first_items.length ? ", ..." : ""}; ` : "";
  return (
    `${h.flagged} of its ${h.compliance_labels} compliance labels (${h.flagged_full} full_compliance) are on trajectories with a tool call whose arguments are not valid JSON ` +
    `(verdicts marked tool_arguments_invalid): no tool could have parsed such a call as written, so these successes may count actions that never ran; ` +
    `check them (${eg}errors.jsonl kind tool_arguments_invalid names every such trajectory)`
  );
}

/**
 * The line beside a judge's rates when some of its successes carry the mark, e.g. `judge sig: 2 of its 40 compliance
 * labels (1 full_compliance) are on trajectories with a tool call whose arguments are not valid JSON ...`; null when
 * none. The one text every command that prints rates gives (label's summary, compare, estimate, report, committee, agree).
 */
export function toolArgumentsWarning(judgeId: string, h: ToolArgumentsHealth | undefined): string | null {
  const m = toolArgumentsMessage(h);
  return m === null ? null : `judge ${judgeId}: ${m}`;
}

/**
 * {@link toolArgumentsWarning} of each judge behind a figure that has such labels, in the order given.
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function toolArgumentsWarnings(health: readonly { judge_id: string; tool_arguments?: ToolArgumentsHealth }[] | undefined, judgeIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of new Set(judgeIds)) {
    const w = toolArgumentsWarning(id, health?.find((h) => h.judge_id === id)?.tool_arguments);
    if (w) out.push(w);
  }
  return out;
}
