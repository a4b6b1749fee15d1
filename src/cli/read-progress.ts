import path from "node:path";
import type { ReadProgress } from "../store/lean-read.js";

/**
 * Progress of a command reading a large run (agree, committee, compare, estimate, report, sample, view), on stderr
 * when it is a terminal, as `label` shows its own (`./progress.ts`): one line rewritten in place, `reading
 * verdicts.jsonl 41% (1.9 of 4.6 GB)`, at most 5 times a second, and only once a read has taken more than a
 * second (a small run prints nothing). Never on stdout, never on a pipe (`--json` output and logs stay clean).
 * @param enabled show it (default: stderr is a TTY); the commands pass `!o.json && stderr.isTTY`, as label does.
 * @returns the callback for the readers (`src/store/lean-read.ts`) and `stop()`, which clears the line.
 */
export function readProgress(enabled = process.stderr.isTTY === true): { progress: ReadProgress | undefined; stop: () => void } {
  if (!enabled) return { progress: undefined, stop: () => {} };
  const t0 = Date.now();
  let last = 0;
  let shown = false;
  const gb = (b: number) => (b >= 1e9 ? `${(b / 1e9).toFixed(1)} GB` : `${(b / 1e6).toFixed(0)} MB`);
  return {
    progress(done, total, file) {
      const now = Date.now();
      if (now - t0 < 1000 || (now - last < 200 && done < total)) return;
      last = now;
      shown = true;
      const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
      process.stderr.write(`\r\x1b[Kreading ${path.basename(file)} ${pct}% (${gb(done)} of ${gb(total)})`);
    },
    stop() {
      if (shown) process.stderr.write("\r\x1b[K");
      shown = false;
    },
  };
}

/**
 * A status line for an analysis step that can take seconds on a large run (after the read, e.g. `comparing
 * 954,033 observations (bootstrap 200)`): on stderr when it is a terminal and `enabled`, as {@link readProgress}
 * shows the reads; never on stdout or a pipe.
 * @returns `done()`, which clears the line.
 */
export function stepLine(text: string, enabled = process.stderr.isTTY === true): { done: () => void } {
  if (!enabled) return { done: () => {} };
  process.stderr.write(`\r\x1b[K${text}...`);
  return { done: () => process.stderr.write("\r\x1b[K") };
}
