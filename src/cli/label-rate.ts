import type { LabelProgress } from "../run/label.js";
import { progressDone } from "../run/label-core.js";
import { etaSeconds, rateOf, startRate, stepRate, type RateState } from "./eta.js";

/**
 * The bar's rate and ETA after one progress report: the rate counts the trajectories read (plus input errors),
 * not a resume's files taken as unchanged unread, which pass at thousands a second and made the ETA of the rest far
 * too short (red team 9: "1s" with 193 s left); the ETA is for every trajectory not yet done. While this invocation
 * has stored no verdict yet but has passed over stored ones (a resume's skip pass, and the judge's start), the rate
 * is that pass's, not the judging's, so the ETA is unknown rather than a guess (new user 44: "ETA 13m09s" from the
 * skip pass of a resume that finished 84 s later).
 * @param state the smoothing state so far (undefined at the first report)
 * @param nowMs a monotonic time in ms
 * @returns the new state, the rate (trajectories/s) and the ETA (s), each undefined while unknown (`./eta.ts`)
 */
export function progressRate(state: RateState | undefined, p: LabelProgress, nowMs: number): { state: RateState; rate: number | undefined; eta: number | undefined } {
  const done = progressDone(p);
  const total = Math.max(p.total, done);
  const worked = done - (p.unread ?? 0);
  const next = state ? stepRate(state, nowMs, worked) : startRate(nowMs, worked);
  const rate = rateOf(next);
  const skipPassOnly = p.judged === 0 && p.skipped > 0;
  return { state: next, rate, eta: skipPassOnly ? undefined : etaSeconds(total - done, rate) };
}

/** The input items done (`progressDone` of ../run/label-core.ts: the placeholders the total leaves out are not in it). */
export { progressDone };
