/**
 * The calibrated asr_goal of a group above its calibrated asr_behaviour: impossible for the true rates (every full
 * compliance is full or partial compliance, so asr_goal <= asr_behaviour), possible for the two estimates, which
 * are calibrated separately. Said as a named warning (`calibrated_goal_above_behaviour`) on the group, never
 * "fixed": the estimator is left as it is.
 *
 * Why it happens (./calibrated.ts, difference estimator): calibrated behaviour − calibrated goal = the judge's
 * partial-compliance rate over the whole group + the design-weighted mean, over the group's labelled items, of
 * (human partial − judge partial). When the humans say partial compliance less often than the judge on those items
 * (human labels that never use partial_compliance, say) and the sample holds more of the judge's partial
 * compliance than the group does, that sum is negative.
 */
import type { DesignAsr } from "./calibrated.js";

/** The warning's name, first in its text (as `coverage_low: ...`). */
export const GOAL_ABOVE_BEHAVIOUR = "calibrated_goal_above_behaviour";

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Why the two estimates can be inconsistent, said once per warning (or once for every row of the paper table). */
export const GOAL_ABOVE_BEHAVIOUR_WHY =
  "though every full compliance is also full or partial compliance: the two calibrations are not consistent here. " +
  "Each corrects the judge with the human sample on its own, and behaviour minus goal is the judge's partial-compliance rate over the group " +
  "plus the labelled items' design-weighted mean (human - judge) partial-compliance difference, negative when the humans' partial compliance there " +
  "falls short of the judge's by more than the judge's rate over the group (e.g. human labels that never use partial_compliance); " +
  "check the human labels' partial_compliance before printing both";

/** Whether a calibrated asr_goal is above the calibrated asr_behaviour (by more than 1e-9, a rounding margin); false when either is null. */
export function isGoalAboveBehaviour(behaviour: number | null, goal: number | null): boolean {
  return behaviour !== null && goal !== null && goal > behaviour + 1e-9;
}

/**
 * The warning for one group when its calibrated asr_goal is above its calibrated asr_behaviour
 * ({@link isGoalAboveBehaviour}), else null; null too when either estimate is undefined.
 * @param behaviour the group's calibrated asr_behaviour (`estimate` report, `groups[].calibrated`).
 * @param goal the same group's calibrated asr_goal.
 */
export function goalAboveBehaviour(behaviour: Pick<DesignAsr, "asr">, goal: Pick<DesignAsr, "asr">): string | null {
  if (!isGoalAboveBehaviour(behaviour.asr, goal.asr)) return null;
  return `${GOAL_ABOVE_BEHAVIOUR}: the calibrated asr_goal ${pct(goal.asr!)} is above the calibrated asr_behaviour ${pct(behaviour.asr!)}, ${GOAL_ABOVE_BEHAVIOUR_WHY}`;
}
