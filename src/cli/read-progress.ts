import path from "node:path";
import type { ReadProgress } from "../store/lean-read.js";
import { formatElapsed, lineDue } from "./progress-lines.js";
import type { ProgressSettings } from "./progress-mode.js";

/** Where the progress of reads and steps is written and what time it is: injectable, so tests need no clock. */
export interface StepIo {
  /** A monotonic time in ms, on the clock of `ProgressSettings.startMs`. Default `performance.now()`. */
  now: () => number;
  /** Write to stderr. */
  write: (s: string) => void;
}

const DEFAULT_IO: StepIo = { now: () => performance.now(), write: (s) => void process.stderr.write(s) };

const gb = (b: number) => (b >= 1e9 ? `${(b / 1e9).toFixed(1)} GB` : `${(b / 1e6).toFixed(0)} MB`);

/**
 * Progress of a command reading a large run (agree, committee, compare, estimate, report, sample, view) on stderr,
 * as `--progress` says (`./progress-mode.ts`; `label` shows its own, `./progress.ts`). `bar` (a terminal): one line
 * rewritten in place, `reading verdicts.jsonl 41% (1.9 GB of 4.6 GB)`, at most 5 times a second, and only once a read
 * has taken more than a second; `stop()` clears it. `lines` (a log): `ipi-judge: reading verdicts.jsonl 41% (1.9 GB
 * of 4.6 GB) after 12s`, the first once the read has taken `min(interval, 10 s)`, then one per interval. A small
 * run prints nothing; never on stdout.
 * @returns the callback for the readers (`src/store/lean-read.ts`) and `stop()`.
 */
export function readProgress(settings: ProgressSettings, io: Partial<StepIo> = {}): { progress: ReadProgress | undefined; stop: () => void } {
  if (settings.mode === "off") return { progress: undefined, stop: () => {} };
  const { now, write } = { ...DEFAULT_IO, ...io };
  const t0 = now();
  if (settings.mode === "lines") {
    let lastLine: number | undefined;
    return {
      progress(done, total, file) {
        const t = now();
        if (!lineDue(t0, lastLine, t, settings.intervalMs)) return;
        lastLine = t;
        const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
        write(`ipi-judge: reading ${path.basename(file)} ${pct}% (${gb(done)} of ${gb(total)}) after ${formatElapsed(t - t0)}\n`);
      },
      stop: () => {},
    };
  }
  let last = 0;
  let shown = false;
  return {
    progress(done, total, file) {
      const t = now();
      if (t - t0 < 1000 || (t - last < 200 && done < total)) return;
      last = t;
      shown = true;
      const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
      write(`\r\x1b[Kreading ${path.basename(file)} ${pct}% (${gb(done)} of ${gb(total)})`);
    },
    stop() {
      if (shown) write("\r\x1b[K");
      shown = false;
    },
  };
}

/**
 * A status line for an analysis step that can take seconds on a large run (after the read, e.g. `comparing
 * 954,033 observations (bootstrap 200)`), on stderr as `--progress` says. `bar`: the text rewritten in place until
 * `done()` clears it. `lines`: the steps run synchronously (no timer can fire during one), so a step writes
 * `ipi-judge: <text>...` when it starts once the command has run `min(interval, 10 s)` (a large run: its read took
 * that long), and `ipi-judge: <text>: done in 52s` when it took that long itself; a short command writes neither.
 * @returns `done()`, which ends the step.
 */
export function stepLine(text: string, settings: ProgressSettings, io: Partial<StepIo> = {}): { done: () => void } {
  if (settings.mode === "off") return { done: () => {} };
  const { now, write } = { ...DEFAULT_IO, ...io };
  if (settings.mode === "lines") {
    const t0 = now();
    // "the command has run long", as the first line's gate says
    if (lineDue(settings.startMs ?? 0, undefined, t0, settings.intervalMs)) write(`ipi-judge: ${text}...\n`);
    let ended = false;
    return {
      done: () => {
        if (ended) return;
        ended = true;
        const t = now();
        if (lineDue(t0, undefined, t, settings.intervalMs)) write(`ipi-judge: ${text}: done in ${formatElapsed(t - t0)}\n`);
      },
    };
  }
  write(`\r\x1b[K${text}...`);
  return { done: () => write("\r\x1b[K") };
}
