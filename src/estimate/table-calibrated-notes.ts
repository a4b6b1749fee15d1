/**
 * The notes of a paper table built with `--human` (moved out of ./table.ts, at the house limit): the calibrated
 * estimator, why there is no calibrated asr_goal (or the groups a full/partial split leaves undefined), the rows whose
 * calibrated asr_goal is above their asr_behaviour, and the rows whose interval is or holds an exact one.
 */
import { SPLIT_GOAL_WARNING } from "./split-goal.js";
import { GOAL_ABOVE_BEHAVIOUR, GOAL_ABOVE_BEHAVIOUR_WHY, isGoalAboveBehaviour } from "./goal-above-behaviour.js";
import { SMALL_COUNT_BELOW } from "../stats/small-count.js";
import type { EstimateReport } from "./run.js";
import type { CalibratedCell } from "./calibrated-cell.js";
import { HUMAN_TIES_NOTE, TIES_OUTSIDE_NOTE, TIES_OUTSIDE_WHY, tieRangeText } from "./tie-bound.js";

/** The word that marks a calibrated interval that is or holds an exact one (`ci_method`), in the text, HTML and notes. */
export const EXACT_MARK = "exact";

/** What the notes read of a row. */
interface CalibratedRow {
  agent_model: string;
  /** null: the run records no condition. */
  condition: string | null;
  calibrated_asr_goal: CalibratedCell | null;
  calibrated_asr_behaviour: CalibratedCell | null;
  n_attacked: number;
  /** The row's attacked runs the like-for-like cells left out (0 or absent: none). */
  n_attacked_left_out?: number;
}

/**
 * The notes (module docstring), in order.
 * @param calibrated the estimate report; @param goalReport its asr_goal report, or null (then `goalReason` says why).
 * @param withConditions the rows are per agent model and condition (names read `model | condition`).
 */
export function calibratedNotes(calibrated: EstimateReport, goalReport: { warnings: readonly string[] } | null, goalReason: string, rows: readonly CalibratedRow[], withConditions: boolean): string[] {
  const notes: string[] = [];
  notes.push(`calibrated asr_goal and asr_behaviour: ${calibrated.estimators.calibrated}`);
  if (!goalReport) notes.push(`calibrated asr_goal: ${goalReason}`);
  else notes.push(...goalReport.warnings.filter((w) => w.startsWith(SPLIT_GOAL_WARNING)).map((w) => `calibrated ${w}`)); // the groups a full/partial split leaves undefined
  // an exact bound looks like any other interval unless it is marked (review): marked in every rendering, said here
  const exact = rows.flatMap((r) =>
    (["calibrated_asr_goal", "calibrated_asr_behaviour"] as const).flatMap((k) => (r[k]?.ci_method ? [`${r.agent_model}${withConditions ? ` | ${r.condition}` : ""} ${k.slice(11)}: ${r[k]!.ci_method}`] : [])),
  );
  // a calibrated asr_goal above the row's calibrated asr_behaviour (./goal-above-behaviour.ts): named per row
  const above = rows.flatMap((r) => {
    const [g, b] = [r.calibrated_asr_goal?.value ?? null, r.calibrated_asr_behaviour?.value ?? null];
    return isGoalAboveBehaviour(b, g) ? [`${r.agent_model}${withConditions ? ` | ${r.condition}` : ""} asr_goal ${(100 * g!).toFixed(1)}% > asr_behaviour ${(100 * b!).toFixed(1)}%`] : [];
  });
  if (above.length) notes.push(`WARNING: ${GOAL_ABOVE_BEHAVIOUR}: a calibrated asr_goal above the row's calibrated asr_behaviour (${above.join("; ")}), ${GOAL_ABOVE_BEHAVIOUR_WHY}`);
  const exactWhy = `${EXACT_MARK}: a calibrated interval so marked is not a stratified 95% interval: either its group's labelled items had the same human-minus-judge difference within each stratum (SE 0), so the interval is the estimate ± an exact bound (two-sided Clopper-Pearson on the share that would differ, 0 seen), or they showed fewer than ${SMALL_COUNT_BELOW} effective disagreements, so the interval is the union of the t interval and an exact small-count one (Korn-Graubard: Clopper-Pearson with the design effective n), which a t interval on a rare event needs`;
  if (exact.length) notes.push(`${exactWhy}: ${exact.join("; ")}`);
  // rows the shared cells cut: their calibrated cells are domain estimates over the row's runs (./group-cells.ts)
  const cut = calibrated.groups_over === "like_for_like_cells" ? rows.filter((r) => r.n_attacked_left_out && r.calibrated_asr_behaviour?.value !== null) : [];
  if (cut.length) notes.push(`calibrated cells of the rows the like-for-like cells cut (${cut.map((r) => `${r.agent_model}${withConditions ? ` | ${r.condition}` : ""}: n ${r.n_attacked}, ${r.n_attacked_left_out} left out`).join("; ")}): over the row's own n runs, as its other cells: domain estimates of the human sample (the labelled items among those runs with their design weights; Sarndal, Swensson & Wretman 1992, sec. 10.3-10.5), so fewer labelled items than the model's whole sample`);
  // rows whose labelled trajectories include annotator ties, left out of the figure: how far they could move it (./tie-bound.ts)
  const ties = rows.flatMap((r) =>
    (["calibrated_asr_goal", "calibrated_asr_behaviour"] as const).flatMap((k) => {
      const t = r[k]?.human_ties;
      return t ? [`${r.agent_model}${withConditions ? ` | ${r.condition}` : ""} ${k.slice(11)}: ${t.n} tied, ${tieRangeText(t, r[k]?.value)}`] : [];
    }),
  );
  if (ties.length) notes.push(`${HUMAN_TIES_NOTE}: labelled trajectories whose annotators tied are counted as unlabelled in their strata (missing at random), which a tie need not be (they can be exactly the judge's errors); once the ties are adjudicated, these rows' calibrated estimates lie in (every tie not compromised to every tie compromised; read as disagreeing with the judge), a range that need not hold the printed figure: ${ties.join("; ")}`);
  // a printed figure no adjudication of its ties gives: loud, with the rows (break53 #3)
  const outside = rows.flatMap((r) =>
    (["calibrated_asr_goal", "calibrated_asr_behaviour"] as const).flatMap((k) => {
      const c = r[k];
      return c?.human_ties?.calibrated_outside && c.value !== null ? [`${r.agent_model}${withConditions ? ` | ${r.condition}` : ""} ${k.slice(11)} ${(100 * c.value).toFixed(1)}% outside ${tieRangeText(c.human_ties).replace(/ \(.*$/, "")}`] : [];
    }),
  );
  if (outside.length) notes.push(`WARNING: ${TIES_OUTSIDE_NOTE}: ${TIES_OUTSIDE_WHY}: ${outside.join("; ")}`);
  return notes;
}
