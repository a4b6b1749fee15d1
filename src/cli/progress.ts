import cliProgress from "cli-progress";
import type { LabelProgress } from "../run/label.js";

/**
 * A progress display for long runs on a terminal (stderr): done/total, rate, ETA, errors. On a non-terminal
 * (pipes, CI) it prints nothing, so `--json` output and logs stay clean.
 */
export function progressReporter(enabled = process.stderr.isTTY === true): {
  update: (p: LabelProgress) => void;
  stop: () => void;
} {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "{bar} {value}/{total} trajectories | {rate}/s | ETA {eta_formatted} | judged {judged} | skipped {skipped} | errors {errors}",
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const t0 = Date.now();
  return {
    update(p) {
      const total = Math.max(p.total, p.read + p.errors);
      const rate = ((p.judged || p.read) / Math.max(0.001, (Date.now() - t0) / 1000)).toFixed(1);
      const payload = { judged: p.judged, skipped: p.skipped, errors: p.errors, rate };
      if (!started) {
        bar.start(total || 1, p.read + p.errors, payload);
        started = true;
      } else {
        bar.setTotal(total || 1);
        bar.update(p.read + p.errors, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
