import cliProgress from "cli-progress";
import type { LabelProgress } from "../run/label.js";
import { formatEta, formatRate, type RateState } from "./eta.js";
import { progressDone, progressRate } from "./label-rate.js";
import { labelLinesReporter } from "./progress-lines.js";
import type { ProgressSettings } from "./progress-mode.js";

/**
 * `label`'s progress on stderr, as `--progress` says (`./progress-mode.ts`): `bar`, a bar rewritten in place for a
 * terminal (done/total, rate, ETA, counts); `lines`, a plain line per interval for logs (`./progress-lines.ts`);
 * `off`, nothing. Never on stdout. The rate (trajectories read per second; a resume's files taken as unchanged
 * unread do not count, as they cost nothing) and the ETA are smoothed over about the last 30 s and shown as "--" for
 * the first 2 s and 10 trajectories (`./eta.ts`, `./label-rate.ts`).
 */
export function progressReporter(settings: ProgressSettings): {
  update: (p: LabelProgress) => void;
  stop: () => void;
} {
  if (settings.mode === "off") return { update: () => {}, stop: () => {} };
  if (settings.mode === "lines") return labelLinesReporter(settings.intervalMs);
  return barReporter();
}

/** The cli-progress bar (a terminal). */
function barReporter(): { update: (p: LabelProgress) => void; stop: () => void } {
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
      // a monotonic clock, so a wall-clock step does not blank the rate; no ETA before the pre-count gives a total
      // (with total 0 it would read the time left for nothing: 0s)
      const f = progressRate(rate, p, performance.now());
      rate = f.state;
      const payload = { judged: p.judged, skipped: p.skipped, errors: p.errors, judge_crashes: p.judge_crashes ?? 0, rate: formatRate(f.rate), eta_smoothed: p.total > 0 || p.placeholders_counted ? formatEta(f.eta) : "--" };
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
