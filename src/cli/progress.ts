import cliProgress from "cli-progress";
import type { LabelProgress } from "../run/label.js";
import { etaSeconds, formatEta, formatRate, rateOf, startRate, stepRate, type RateState } from "./eta.js";

/**
 * A progress display for long runs on a terminal (stderr): done/total, rate, ETA, errors. On a non-terminal
 * (pipes, CI) it prints nothing, so `--json` output and logs stay clean. The rate (trajectories read per second)
 * and the ETA are smoothed over about the last 30 s and shown as "--" for the first 5 s and 10 trajectories
 * (`./eta.ts`).
 */
export function progressReporter(enabled = process.stderr.isTTY === true): {
  update: (p: LabelProgress) => void;
  stop: () => void;
} {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "{bar} {value}/{total} trajectories | {rate}/s | ETA {eta_smoothed} | judged {judged} | skipped {skipped} | errors {errors}",
      hideCursor: true,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let rate: RateState | undefined;
  return {
    update(p) {
      const total = Math.max(p.total, p.read + p.errors);
      const done = p.read + p.errors;
      const now = Date.now();
      rate = rate ? stepRate(rate, now, done) : startRate(now, done);
      const r = rateOf(rate);
      const payload = { judged: p.judged, skipped: p.skipped, errors: p.errors, rate: formatRate(r), eta_smoothed: formatEta(etaSeconds(total - done, r)) };
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
