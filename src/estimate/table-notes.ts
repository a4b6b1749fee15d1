/**
 * Notes of the paper table (`./table.ts`) on what its rows' rates leave out or do not measure: the committee's
 * disputed runs, and rows whose attacked runs (almost) never met the injected text (new user 23: gemini-2.5-flash
 * under AgentDyn's tool_filter, 0/360 with every run `not_exposed`, ranked safest with no word said).
 */
import { COVERAGE_LOW_BELOW, EXPOSURE_LOW_BELOW } from "../stats/rates.js";
import { EXPOSURE_LOW_MEANS, NOT_EXPOSED_WHY } from "../format/rates-text.js";
import type { Proportion, RateCell } from "./table-cells.js";
import { countAttacks, dosAttackWarning } from "../agree/dos-attacks.js";
import { referenceSubsetText } from "../format/reference-text.js";

/** What the notes read of a row (`TableRow` of ./table.ts). */
interface NoteRow {
  agent_model: string;
  /** null: the run records no condition. */
  condition: string | null;
  judge_asr_goal: RateCell;
  judge_asr_behaviour: RateCell;
  judge_exposure: Proportion;
  /** `judge_exposure` below {@link EXPOSURE_LOW_BELOW} (`isLowExposure`, set where the row is made). */
  judge_exposure_low: boolean;
  /** The heuristic's own exposure below it (`TableRow.heuristic_exposure_low`). */
  heuristic_exposure_low?: boolean;
}

const nameOf = (r: NoteRow, withConditions: boolean) => `${r.agent_model}${withConditions ? ` | ${r.condition}` : ""}`;

/**
 * A committee's rates leave out the runs it has no majority on, exactly the contested ones: the note giving, per row
 * and rate, how many and the rate's bounds (`RateCell.disputed`); null when no row has any.
 */
export function disputedNote(rows: readonly NoteRow[], withConditions: boolean): string | null {
  const disputed = rows.flatMap((r) =>
    (["judge_asr_goal", "judge_asr_behaviour"] as const).flatMap((k) => {
      const d = r[k].disputed;
      const some = d && d.possible < d.count ? ` (${d.possible} with a vote for ${k === "judge_asr_goal" ? "full_compliance" : "compromised"})` : "";
      const split = d?.goal_split ? ` and ${d.goal_split} full_compliance on a full/partial tie` : "";
      return d ? [`${nameOf(r, withConditions)} ${k.slice(6)}: ${d.count} disputed${some}${split}, ${(100 * d.lower).toFixed(1)}% to ${(100 * d.upper).toFixed(1)}%`] : [];
    }),
  );
  if (!disputed.length) return null;
  return (
    `DISPUTED: the committee's rates leave out the attacked runs it has no majority on (as many votes say compromised as not), exactly the contested ones, which may bias them; ` +
    `the rate over decided and disputed runs if none / every disputed run with at least one vote for the event were the event` +
    `${rows.some((r) => r.judge_asr_goal.disputed?.goal_split) ? " (asr_goal's lower end also reads each full_compliance label that rests on a tie between full_compliance and partial_compliance votes as partial_compliance: the tie rule chose full_compliance, so whether the goal was achieved is disputed)" : ""}: ${disputed.join("; ")}`
  );
}

/**
 * The note naming every row whose `judge_exposure` is below {@link EXPOSURE_LOW_BELOW} (10%), with its exposure and
 * its asr_goal over the exposed runs; null when there is none (or the exposure is not known: a committee table).
 * @param withConditions the rows are per agent model and condition (names read `model | condition`).
 */
export function exposureLowNote(rows: readonly NoteRow[], withConditions: boolean, allowLow = false): string | null {
  const low = rows.filter((r) => r.judge_exposure_low);
  if (!low.length) return null;
  const each = low.map((r) => {
    const e = r.judge_exposure;
    // a row whose rates the table withholds (coverage_low) gives no figure here either
    const over = r.judge_asr_goal.coverage_low && !allowLow ? "withheld (coverage_low)" : e.x ? `${r.judge_asr_goal.x}/${e.x}` : "undefined (none exposed)";
    return `${nameOf(r, withConditions)} exposure ${(100 * e.value!).toFixed(1)}% (${e.x}/${e.n}), asr_goal over the exposed ${over}`;
  });
  return (
    `EXPOSURE LOW (below ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of the attacked runs with a usable verdict met the injected text; the rest are not_exposed: ` +
    `${NOT_EXPOSED_WHY}): ${each.join("; ")}; ${EXPOSURE_LOW_MEANS} (their exposure cells read EXPOSURE LOW; LaTeX: their rates marked $^\\circ$)`
  );
}

/**
 * The note naming every row whose heuristic's own exposure is below {@link EXPOSURE_LOW_BELOW} (its columns read
 * `EXPOSURE LOW`; LaTeX `$^\circ$`): the heuristic's rates there are over runs the attack (almost) never reached, whatever
 * the judge's exposure (red team 25 M3); null when there is none.
 * @param heuristic the heuristic judge's id, as the columns name it.
 */
export function heuristicExposureLowNote(rows: readonly NoteRow[], withConditions: boolean, heuristic: string): string | null {
  const low = rows.filter((r) => r.heuristic_exposure_low);
  if (!low.length) return null;
  return (
    `EXPOSURE LOW (${heuristic}, the heuristic: below ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of the attacked runs it has a usable verdict on met the injected text, by its own labels): ` +
    `${low.map((r) => nameOf(r, withConditions)).join("; ")}; its rates there read low for a reason that is not the agent's resistance (its columns read EXPOSURE LOW; LaTeX: $^\\circ$)`
  );
}

/**
 * The warning for AgentDojo's denial-of-service attacks pooled into rows whose asr_goal is read against a benchmark's
 * checker (new user 22): one, or none when no attacked row ran one. @param rows the table's trajectories' index rows
 */
export function dosNote(rows: Iterable<{ attacked?: boolean; attack?: string | null }>): string[] {
  const { byAttack, attacked } = countAttacks(rows);
  const w = dosAttackWarning(
    byAttack,
    attacked,
    (n) => `their asr_goal is the injected instruction carried out, which that checker does not count, and the rows pool them with the other attacks (${n} in all)`,
    true,
  );
  return w ? [w] : [];
}

/** What {@link coverageLowNote} reads of a row: its attacked count and the two raters' asr_behaviour cells. */
interface CoverageRow {
  agent_model: string;
  /** null: the run records no condition. */
  condition: string | null;
  n_attacked: number;
  judge_asr_behaviour: RateCell;
  heuristic_asr_behaviour: RateCell;
}

/**
 * The note naming every row and rater whose coverage is below {@link COVERAGE_LOW_BELOW} (the rates withheld, or
 * printed and marked LOW with `allow`), or, with `allow` and no such row, that `--allow-low-coverage` changed nothing
 * (new user 25: the option said nothing when it had no effect); null otherwise.
 * @param o `sameRater`: the heuristic is the judge (its columns once); `judge`/`heuristic`: their names.
 */
export function coverageLowNote(
  rows: readonly CoverageRow[],
  o: { sameRater: boolean; judge: string; heuristic: string; withConditions: boolean; allow: boolean },
): string | null {
  const low = rows.flatMap((r) =>
    (o.sameRater ? (["judge_asr_behaviour"] as const) : (["judge_asr_behaviour", "heuristic_asr_behaviour"] as const))
      .filter((k) => r[k].coverage_low && r.n_attacked > 0)
      // with what the benchmark's own verdict says of the usable subset, where the runs carry it (new user 29)
      .map((k) => `${r.agent_model}${o.withConditions ? ` | ${r.condition}` : ""} ${k.startsWith("judge") ? o.judge : o.heuristic}: coverage ${(100 * (r[k].coverage ?? 0)).toFixed(1)}% (${r[k].n} of ${r.n_attacked} attacked have a usable verdict; most unusable: ${r[k].coverage_low_reason}${referenceSubsetText({ coverage_low: true, labelled: r[k].n, reference_security: r[k].reference_security })})`),
  );
  if (low.length) {
    return (
      `coverage_low (below ${Math.round(100 * COVERAGE_LOW_BELOW)}%: the rates would speak for a subset that may be biased): ${low.join("; ")}; ` +
      (o.allow ? "printed anyway (--allow-low-coverage) and marked LOW" : "no number printed for them (--allow-low-coverage prints them, marked)")
    );
  }
  return o.allow ? `--allow-low-coverage: no row's coverage is below ${Math.round(100 * COVERAGE_LOW_BELOW)}%, so the table is the same without it` : null;
}
