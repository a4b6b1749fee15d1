/**
 * `sample` on a run whose labelling did not finish (break52 #6): `label --limit 150`, then `sample`, drew from the first
 * 150 files in silence; once the run was completed its population was 516 and every human and calibrated figure of that
 * sample read `undefined (population changed since sample)`: the annotators' work was lost. A sample's inclusion
 * probabilities are over the run's trajectories as stored when it is drawn, so a sample of an unfinished run stands
 * for that slice only, and for nothing once the run grows.
 *
 * Decision: refuse (exit 2) when the run state says the labelling is not complete (`partial`, `running`, `killed`,
 * `interrupted`, `stopped_judges`, `cost_cap`, `failed`: ../store/run-state.ts, read through its API), naming the state
 * and what would happen; `--allow-partial` draws anyway (a pilot on the slice), with a WARNING on stdout and in
 * `--json` (`run_state`, `warnings`). Refusing rather than only warning: the cost of a wrong draw lands hours later on
 * the annotators, and a sample's output is a folder a user hands on, not a figure read on screen. Keeping such a design
 * usable after the run grows (an estimate over the sample's own frame) would give figures over an arbitrary slice (the
 * first files read, one filter's runs) that cannot stand for the corpus; not done.
 */
import { runStateLine, runStateNotes, type RunState } from "../store/run-state.js";
import { UsageError } from "../errors.js";

/** What `--json` records of the run state when `--allow-partial` let an unfinished run be drawn from. */
export interface SampledRunState {
  status: RunState["status"];
  complete: false;
  message: string;
}

/** The consequence said both in the refusal and in the warning. */
function consequence(run: string): string {
  return (
    `a sample drawn now is over the trajectories stored so far only (its inclusion probabilities and design.json record that population), so it stands for that slice, not the run's inputs; ` +
    `once run ${run} is completed its population changes, and every human and calibrated figure of estimate and report from this sample's labels is undefined ("population changed since sample"): the annotators' work on it cannot be used for them`
  );
}

/**
 * Check the run state before drawing (module docstring).
 * @param state `readRunState(runDir)`; @param run the run's name; @param allowPartial `--allow-partial`.
 * @returns null for a complete run (or one whose state is unknown: an older run), else, with `allowPartial`, the warning
 *   to print and the state for `--json`.
 * @throws UsageError for an unfinished run without `allowPartial`.
 */
export function sampleRunState(state: RunState, run: string, allowPartial: boolean): { warning: string; run_state: SampledRunState } | null {
  if (state.complete !== false) return null;
  const what = `run ${run} is not completely labelled (state ${state.status}: ${state.message ?? "no message"})`;
  if (!allowPartial)
    throw new UsageError(
      `${what}; ${consequence(run)}. Complete the run first (label it without --limit/--where, as the state says), then sample; ` +
        `or pass --allow-partial to draw from what is stored now (e.g. a pilot on this slice)`,
    );
  return {
    warning: `run incomplete: ${what}; drawn anyway (--allow-partial): ${consequence(run)}`,
    run_state: { status: state.status, complete: false, message: state.message ?? "" },
  };
}

/**
 * What `sample` says of the run state besides an unfinished run (session 54 gap 4), as every figure command says it
 * (../store/run-state.ts): `input_errors` (input items the last label run could not read: in no sample's population)
 * as a warning, and the note that inputs moved with nothing lost (`runStateNotes`) as a `note:`, where sample printed
 * no word of the first and the readers' statement of the second as a warning. `unsay`: no such note, so the readers'
 * statement of removed trajectories (a warning: some were lost) is to be said (`unsayRemovedStatement`).
 * @param state `readRunState(runDir)`; @param partial the run is drawn unfinished (its warning says the state).
 */
export function sampleRunStateSaid(state: RunState, partial: boolean): { warnings: string[]; notes: string[]; unsay: boolean } {
  const notes = partial ? [] : runStateNotes(runStateLine(state));
  return { warnings: state.input_errors ? [state.input_errors] : [], notes, unsay: !partial && notes.length === 0 };
}
