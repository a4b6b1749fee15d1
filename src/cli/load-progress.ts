/**
 * `label`'s line while a resume reads its run's journals back, before the progress bar starts: on a run of a million
 * trajectories that read takes minutes and printed nothing (m1m51, session 51: 23 minutes of silence at load 30).
 * Fed by `LabelOptions.onLoadProgress` (every 1,024 journal lines); it writes at most one line per interval, the
 * first only after one interval, so a small run's quick read prints nothing. Off with `--progress off`.
 */
import type { ProgressSettings } from "./progress-mode.js";

/**
 * A throttled writer of `reading back run "R"'s journals: N lines so far (T s)`.
 * @param settings `--progress`: `off` writes nothing; `bar` and `lines` write a plain line to `out`.
 * @param run the run's name, quoted in the line.
 * @param opts `intervalMs` between lines (default 5,000), `now` a monotonic clock in ms, `out` the writer (stderr).
 * @returns the callback for `LabelOptions.onLoadProgress`, or undefined when off.
 */
export function loadProgressLine(
  settings: ProgressSettings,
  run: string,
  opts: { intervalMs?: number; now?: () => number; out?: (s: string) => void } = {},
): ((journalLines: number) => void) | undefined {
  if (settings.mode === "off") return undefined;
  const every = opts.intervalMs ?? 5000;
  const now = opts.now ?? (() => performance.now());
  const out = opts.out ?? ((s: string) => void process.stderr.write(s));
  const start = now();
  let last = start;
  return (lines) => {
    const t = now();
    if (t - last < every) return;
    last = t;
    out(`reading back run ${JSON.stringify(run)}'s journals (resume): ${lines.toLocaleString("en-US")} lines so far (${((t - start) / 1000).toFixed(0)} s)\n`);
  };
}
