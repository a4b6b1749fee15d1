/**
 * Labels on attacked runs whose injected text is unknown (new user 48, finding 1). On such a run (`injectionExposure`
 * kinds `injection_text_unknown`, `injection_text_ambiguous`: VIGIL records the poisoned tool description only when the
 * attack succeeded) code can check neither exposure nor that a quoted call is the injected goal. A judge's
 * `full_compliance`/`partial_compliance` claim there holds on any real quote, an `unaffected` claim on any tool text
 * (both marked `injection_unchecked` on the verdict, `./decide.ts`), and a `not_exposed` claim can never hold. So which
 * of these runs get a label depends on the judge's answer: its "yes" is kept and its "no" dropped, and a rate over
 * attacked runs that counts them leans high whatever the judge (a judge answering yes everywhere read 77.9% on VIGIL
 * against the benchmark's 63.9%; one answering no, 0.0%). Said beside every rate ({@link injectionUnknownWarning}).
 *
 * Which verdicts: a usable label (status `ok`) on an attacked run that is marked `injection_unchecked`, or (a verdict
 * stored before compliance labels were marked) whose record says the run is attacked and names no `injection_source`
 * while carrying `verify_rules` (so it was written by a build that records `injection_source`: every attacked run
 * whose injected text is recorded or recovered names one, `./record.ts` `injectionSourceOf`).
 */
import type { Verdict } from "../types.js";
import { onAttackedRun } from "./code-established.js";
import { quoted } from "../format/quote-name.js";

/** Counts of one judge's repeat-0 labels on attacked runs (health field `injection_unknown`). */
export interface InjectionUnknownCounts {
  /** Its repeat-0 usable labels on attacked runs whose injected text is unknown. */
  labelled: number;
  /** Its repeat-0 usable labels on attacked runs. */
  attacked_labels: number;
}

/**
 * Whether a verdict is a usable label on an attacked run whose injected text is unknown (module docstring). A field
 * comparison; never throws.
 */
export function labelOnUnknownInjection(v: Pick<Verdict, "status" | "label" | "attacked" | "label_basis" | "injection_unchecked" | "injection_source" | "verify_rules">): boolean {
  if (v.status !== "ok" || !v.label || !onAttackedRun(v)) return false;
  if (v.injection_unchecked === true) return true;
  return v.attacked === true && v.injection_source === undefined && typeof v.verify_rules === "number";
}

/**
 * Count one verdict into a judge's {@link InjectionUnknownCounts} (in place): repeat-0 usable labels on attacked runs
 * only, so the counts are of runs. @param attacked the run's attack status when the verdict has none (health's rule).
 */
export function addInjectionUnknown(c: InjectionUnknownCounts, v: Verdict, attacked?: boolean): void {
  if ((v.repeat ?? 0) !== 0 || v.status !== "ok" || !v.label) return;
  const onAttacked = v.attacked ?? attacked ?? onAttackedRun(v);
  if (!onAttacked) return;
  c.attacked_labels++;
  if (labelOnUnknownInjection({ ...v, attacked: v.attacked ?? onAttacked })) c.labelled++;
}

/**
 * The warning beside a judge's rates when some of its labelled attacked runs record no injected text, e.g. `judge
 * fakegpt: 136 of the 226 labelled attacked runs record no injected text: ...`; null when none. The one text every
 * command that prints a rate over attacked runs gives (label's summary, compare, estimate, report, committee).
 */
export function injectionUnknownWarning(judgeId: string, c: InjectionUnknownCounts | undefined): string | null {
  if (!c || c.labelled === 0) return null;
  return (
    `judge ${quoted(judgeId)}: ${c.labelled} of the ${c.attacked_labels} labelled attacked runs record no injected text: a label there stands only ` +
    "when it claims compliance or unaffected (not_exposed cannot be checked), so the labelled subset is selected by the judge's answers and the rate leans high " +
    `(and each of these ${c.labelled} reads exposed by construction, so the exposure printed counts them: only over the other ${c.attacked_labels - c.labelled} is it a measurement; ` +
    "no judge can label these runs fairly: report the benchmark's own verdict over all attacked runs, or a human sample's estimate, estimate --human)"
  );
}

/**
 * {@link injectionUnknownWarning} of each judge behind a figure that has such labels, in the order given.
 * @param health every judge's health (`judgeHealth` of ./health.ts, over the verdicts the figures are of).
 * @param judgeIds the judges behind the figure (one judge, or a committee's members).
 */
export function injectionUnknownWarnings(health: readonly { judge_id: string; injection_unknown?: InjectionUnknownCounts }[] | undefined, judgeIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of new Set(judgeIds)) {
    const w = injectionUnknownWarning(id, health?.find((h) => h.judge_id === id)?.injection_unknown);
    if (w) out.push(w);
  }
  return out;
}
