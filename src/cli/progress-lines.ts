import type { LabelProgress } from "../run/label.js";
import { formatEta, formatRate, type RateState } from "./eta.js";
import { progressDone, progressRate } from "./label-rate.js";
import type { ProgressSettings } from "./progress-mode.js";

/**
 * `label`'s progress as plain lines on stderr, for logs (`--progress lines`, the default when stderr is not a
 * terminal: nohup, CI, a job scheduler), where the bar of `./progress.ts` prints nothing:
 *
 *   ipi-judge: label: 12,345/100,000 trajectories (12.3%) after 4m10s, 450/s, ETA 3m12s; verdicts stored 12,001,
 *   already stored 300, input errors 44, judge crashes 0, in flight 128
 *
 * (one line; `; 8,023 empty placeholder files not counted (nothing to judge)` at its end when the pre-count found
 * some: they are left out of the total, so the ETA is for the work). The rate and ETA are the bar's (`progressRate`: smoothed over about 30 s, `--` while unknown); a
 * total not yet counted shows no percentage and no ETA, never a guess.
 */

/** The first line comes no sooner than this (ms) after the start, unless the interval is shorter: a short run prints none. */
export const FIRST_LINE_MS = 10_000;

/**
 * Whether a progress line is due: the first once `min(intervalMs, firstAfterMs)` has passed since the start, each
 * later one `intervalMs` after the last. Pure: the clock is the caller's.
 * @param startMs when the reporter started (ms, the caller's clock)
 * @param lastLineMs when the last line was written, undefined before the first
 * @param nowMs the time now (ms)
 */
export function lineDue(startMs: number, lastLineMs: number | undefined, nowMs: number, intervalMs: number, firstAfterMs = FIRST_LINE_MS): boolean {
  if (lastLineMs === undefined) return nowMs - startMs >= Math.min(intervalMs, firstAfterMs);
  return nowMs - lastLineMs >= intervalMs;
}

/** A duration for a progress line: whole seconds, as the ETA reads ("45s", "12m05s", "3h02m"). */
export function formatElapsed(ms: number): string {
  return formatEta(Math.max(0, Math.floor(ms / 1000)));
}

const n = (x: number) => x.toLocaleString("en-US");

/**
 * One progress line of `label` (no newline).
 * @param p the last progress report
 * @param rate trajectories read per second (undefined while unknown), as `progressRate` gives it
 * @param eta seconds left (undefined while unknown)
 * @param elapsedMs time since `label` started reporting
 */
export function labelProgressLine(p: LabelProgress, rate: number | undefined, eta: number | undefined, elapsedMs: number): string {
  const done = progressDone(p);
  // a total of 0 beside placeholders counted is a count: every input an empty placeholder
  const counted = p.total > 0 || (p.placeholders_counted ?? 0) > 0;
  const total = Math.max(p.total, done);
  // floored: 99.99% done never reads 100.0%
  const share = counted ? ` (${(Math.floor((1000 * done) / Math.max(1, total)) / 10).toFixed(1)}%)` : "";
  return (
    `ipi-judge: label: ${counted ? `${n(done)}/${n(total)}` : `${n(done)} (total not counted yet)`} trajectories${share} after ${formatElapsed(elapsedMs)}, ` +
    `${formatRate(rate)}/s, ETA ${counted ? formatEta(eta) : "--"}; ` +
    `verdicts stored ${n(p.judged)}, already stored ${n(p.skipped)}, input errors ${n(p.errors)}, judge crashes ${n(p.judge_crashes ?? 0)}, in flight ${n(p.in_flight ?? 0)}` +
    (p.queued ? `, queued ${n(p.queued)}` : "") +
    // the empty placeholders the total leaves out (passed over at once: no work), said so the total is not a mystery
    (p.placeholders_counted ? `; ${n(p.placeholders_counted)} empty placeholder files not counted (nothing to judge)` : "")
  );
}

/** The counts a line shows, to tell whether anything moved since the last line. */
function countsKey(p: LabelProgress): string {
  return [progressDone(p), p.total, p.judged, p.skipped, p.errors, p.judge_crashes ?? 0, p.in_flight ?? 0, p.queued ?? 0].join(",");
}

/** Where a lines reporter writes and what time it is: injectable, so tests need no clock. */
export interface LinesIo {
  /** A monotonic time in ms. Default `performance.now()`. */
  now: () => number;
  /** Write one line (with its newline). Default: stderr. */
  write: (s: string) => void;
  /** Call `tick` every `ms` until the returned function is called; the timer must not hold the process. Default: an unref'd setInterval. */
  every: (ms: number, tick: () => void) => () => void;
}

const DEFAULT_IO: LinesIo = {
  now: () => performance.now(),
  write: (s) => void process.stderr.write(s),
  every: (ms, tick) => {
    const t = setInterval(tick, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

/**
 * The lines reporter: `update` takes each progress report (and writes a line when one is due); a timer looks too,
 * so a run that stalls (an endpoint that stopped answering) still writes a line per interval, its rate falling. A
 * line is left out when nothing moved since the last one, every input was read and nothing is in flight (a Batch
 * API wait: the batch status lines say it). `stop` ends the timer; no final line (the summary follows).
 * @param intervalMs ms between two lines (the first after `min(intervalMs, FIRST_LINE_MS)`)
 */
export function labelLinesReporter(intervalMs: number, io: Partial<LinesIo> = {}): { update: (p: LabelProgress) => void; tick: () => void; stop: () => void } {
  const { now, write, every } = { ...DEFAULT_IO, ...io };
  const startMs = now();
  let lastLineMs: number | undefined;
  let lastKey: string | undefined;
  let last: LabelProgress | undefined;
  let rate: RateState | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || !last) return;
    const t = now();
    // the rate is stepped with the last report at this time: a stall lowers it
    const f = progressRate(rate, last, t);
    rate = f.state;
    if (!lineDue(startMs, lastLineMs, t, intervalMs)) return;
    const key = countsKey(last);
    if (key === lastKey && (last.in_flight ?? 0) === 0 && last.total > 0 && progressDone(last) >= last.total) return;
    lastLineMs = t;
    lastKey = key;
    write(labelProgressLine(last, f.rate, f.eta, t - startMs) + "\n");
  };
  const cancel = every(Math.min(intervalMs, 1000), tick);
  return {
    update(p) {
      last = p;
      tick();
    },
    tick,
    stop() {
      if (stopped) return;
      stopped = true;
      cancel();
    },
  };
}

/**
 * Whether a batch's status line is written at a poll: always when its status changed (sent, completed, failed: an
 * event, said in every mode); an unchanged one at every poll with a bar (a terminal), once per progress interval
 * with lines (a log gets a heartbeat per batch, not one line per poll), never with `--progress off`.
 * @param now a monotonic clock (ms), injectable for tests
 * @returns a gate taking the batch's key and status, remembering what it let through
 */
export function batchLineGate(settings: ProgressSettings, now: () => number = () => performance.now()): (key: string, status: string) => boolean {
  const seen = new Map<string, { status: string; atMs: number }>();
  const startMs = now();
  return (key, status) => {
    const prev = seen.get(key);
    const t = now();
    const due =
      !prev || prev.status !== status || settings.mode === "bar" || (settings.mode === "lines" && lineDue(startMs, prev.atMs, t, settings.intervalMs));
    if (due) seen.set(key, { status, atMs: t });
    return due;
  };
}
