/**
 * The warning `label` gives about its own run when `--limit` stopped the reading before the input ended and no
 * earlier pass covered the rest (break55 #3b): the same `run incomplete: partial run: ...` every later figure
 * command prints (`../store/run-state.ts` partialText), so label's own rates are not read as the run's. Read back
 * from the run's state once the store is finished; nothing when the run is not partial (a limit past the input's end,
 * or an earlier pass without --limit that read the inputs whole: then the state is `limited`, a note).
 */
import { readRunState } from "../store/run-state.js";

/**
 * @param runDir the run folder, its store finished and closed
 * @param limitStopped whether this invocation's `--limit` stopped its reading (its `label_state.limit` is set)
 * @returns `run incomplete: partial run: ...` or undefined
 */
export function limitWarning(runDir: string, limitStopped: boolean): string | undefined {
  if (!limitStopped) return undefined;
  const st = readRunState(runDir);
  return st.status === "partial" && st.message ? `run incomplete: ${st.message}` : undefined;
}

/**
 * The `PARTIAL RUN: ...` line of label's text output when the summary's warnings hold {@link limitWarning}'s, else ""
 * (none without a `--limit`; label leaves it out of an interrupted run's text, whose INTERRUPTED line says more).
 * @param limit the `--limit` given
 */
export function partialRunLine(warnings: readonly string[], limit: string | number | undefined): string {
  if (limit === undefined || !warnings.some((w) => w.startsWith("run incomplete: partial run: "))) return "";
  return `PARTIAL RUN: --limit ${limit} stopped the reading before the inputs ended: the figures above are over the trajectories read first (walk order), not the inputs; run label again without --limit to label the rest\n`;
}
