/**
 * The report command's stdout lines under its pooled calibrated figure (`calibrated (all) ...`, `calibratedAllLine`)
 * that say its calibrated asr_goal is above its calibrated asr_behaviour (`calibrated_goal_above_behaviour`,
 * ../estimate/goal-above-behaviour.ts), as estimate and the page say it (newuser55 #3: that line, the one people paste,
 * printed asr_goal 61.4% above asr_behaviour 59.6% with nothing said).
 */
import { calibratedAllNotes, type CalibratedAll } from "../estimate/table-all.js";
import { GOAL_ABOVE_BEHAVIOUR } from "../estimate/goal-above-behaviour.js";

/**
 * `calibrated (all) note: asr_goal: calibrated_goal_above_behaviour: ...`, one line per such note of the `(all)` group
 * (`calibratedAllNotes`); none when there is no `(all)` group or the two estimates are consistent.
 * @param a the paper table's `(all)` row (`withCalibratedAll`), or undefined.
 */
export function goalAboveLines(a: CalibratedAll | undefined): string[] {
  return a ? calibratedAllNotes(a).filter((n) => n.includes(GOAL_ABOVE_BEHAVIOUR)).map((n) => `calibrated (all) note: ${n}`) : [];
}
