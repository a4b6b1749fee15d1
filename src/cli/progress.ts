import cliProgress from "cli-progress";
import type { LabelProgress } from "../run/label.js";
import { etaSeconds, formatEta, formatRate, rateOf, startRate, stepRate, type RateState } from "./eta.js";

/**
 * A progress display for long runs on a terminal (stderr): done/total, rate, ETA, errors. On a non-terminal
 * (pipes, CI) it prints nothing, so `--json` output and logs stay clean. The rate (trajectories read per second;
 * a resume's files taken as unchanged unread do not count, as they cost nothing) and the ETA are smoothed over about
 * the last 30 s and shown as "--" for the first 2 s and 10 trajectories (`./eta.ts`).
 */
export function progressReporter(enabled = process.stderr.isTTY === true): {
  update: (p: LabelProgress) => void;
  stop: () => void;
} {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "{bar} {value}/{total} trajectories | {rate}/s | ETA {eta_smoothed} | judged {judged} | skipped {skipped} | input errors {errors} | judge crashes {judge_crashes}",
      hideCursor: true,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let rate: RateState | undefined;
  return {
    update(p) {
      const done = progressDone(p);
      const total = Math.max(p.total, done);
      // a monotonic clock, so a wall-clock step does not blank the rate
      const f = progressRate(rate, p, performance.now());
      rate = f.state;
      const payload = { judged: p.judged, skipped: p.skipped, errors: p.errors, judge_crashes: p.judge_crashes ?? 0, rate: formatRate(f.rate), eta_smoothed: formatEta(f.eta) };
      if (!started) {
        bar.start(total || 1, done, payload);
        started = true;
      } else {
        bar.setTotal(total || 1);
        bar.update(done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/**
 * The bar's rate and ETA after one progress report: the rate counts the trajectories read (plus input errors),
 * not a resume's files taken as unchanged unread, which pass at thousands a second and made the ETA of the rest far
 * too short (red team 9: "1s" with 193 s left); the ETA is for every trajectory not yet done.
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
  return { state: next, rate, eta: etaSeconds(total - done, rate) };
}

/**
 * The input items done: trajectories read, plus input errors and empty placeholders (input items that are no
 * trajectory read). A judge's crash on an item is not one more: the item is in `read` (red team L3: counted twice).
 */
export function progressDone(p: LabelProgress): number {
  return p.read + p.errors + (p.empty_placeholders ?? 0);
}
