import type { Command } from "commander";
import { UsageError } from "../errors.js";

/**
 * How a long command shows its progress on stderr (never on stdout, so `--json` output stays pure JSON):
 * - `bar`: one line rewritten in place (`label`'s cli-progress bar, the other commands' `reading ... 41%` line),
 *   for a person watching a terminal;
 * - `lines`: plain lines, one every `--progress-interval` seconds (the first after that interval or 10 s, whichever
 *   is sooner, so a short run prints none), for logs: `nohup ... 2> err.log`, CI, a job scheduler;
 * - `off`: nothing (warnings and errors are still said).
 */
export type ProgressMode = "bar" | "lines" | "off";

/** The `--progress` values: the modes, and `auto` (bar when stderr is a terminal, lines otherwise). */
export const PROGRESS_CHOICES = ["auto", "bar", "lines", "off"] as const;

/** A command's progress settings: the mode resolved from `--progress`, and the interval of `lines` (ms). */
export interface ProgressSettings {
  mode: ProgressMode;
  /** Milliseconds between two progress lines (`lines` only). */
  intervalMs: number;
  /**
   * When the command started (`performance.now()` ms; 0, the process start, unless `markCommandStart` was called):
   * a step of a command that has run long says when it starts (`./read-progress.ts`).
   */
  startMs?: number;
}

let commandStartMs = 0;

/**
 * Record that a command starts now (`main` calls it), for {@link ProgressSettings.startMs}: a process that runs
 * several commands (a test, a library user calling `main`) would otherwise count from its own start.
 */
export function markCommandStart(nowMs: number = performance.now()): void {
  commandStartMs = nowMs;
}

/** The default `--progress-interval`, seconds. */
export const DEFAULT_PROGRESS_INTERVAL_S = 30;

/** The longest `--progress-interval`, seconds (a day). */
const MAX_PROGRESS_INTERVAL_S = 86_400;

/**
 * Add `--progress [auto|bar|lines|off]` and `--progress-interval <seconds>` to a command: the same options and help
 * on every command that can run long. A bare `--progress` (commander gives `true`) means `auto` (new user 44 item
 * 12: it was refused as "argument missing"), see {@link progressOf}.
 */
export function addProgressOptions(cmd: Command): Command {
  return cmd
    .option(
      "--progress [mode]",
      "progress on stderr: auto (a bar rewritten in place when stderr is a terminal, plain lines otherwise: logs, CI, nohup), bar, lines, or off; never on stdout (--json output stays pure JSON). A bare --progress is auto (and overrides IPI_JUDGE_PROGRESS). Default: auto, or the environment variable IPI_JUDGE_PROGRESS",
    )
    .option(
      "--progress-interval <seconds>",
      `with lines: seconds between two progress lines (decimal, default ${DEFAULT_PROGRESS_INTERVAL_S}); the first comes after this interval or 10 s, whichever is sooner, so a short run prints none`,
    );
}

/**
 * The progress settings of a command's flags. `--progress`, else the environment variable `IPI_JUDGE_PROGRESS`
 * (a CI job or a test harness sets it once), else `auto`. `auto` is `bar` when stderr is a terminal and `lines` otherwise;
 * `--json` does not change it (progress goes to stderr only, and a `--json` run in CI or under nohup is the one whose
 * log most needs the lines). A flag left undefined (a command without the options) counts as its default. A bare
 * `--progress` (`progress: true`) is `auto`: the user asks to see progress, which at a terminal is the bar and in a
 * log the lines; it overrides `IPI_JUDGE_PROGRESS` as any `--progress` does.
 * @param o the parsed flags (`progress`: a mode, or `true` for a bare `--progress`; `progressInterval`)
 * @param isTTY whether stderr is a terminal (default: process.stderr's)
 * @param env the environment (default: process.env)
 * @throws UsageError for an unknown mode (naming the flag or the variable) or an interval that is not a decimal number of seconds > 0 and at most a day.
 */
export function progressOf(
  o: { progress?: unknown; progressInterval?: unknown },
  isTTY = process.stderr.isTTY === true,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSettings {
  const fromEnv = o.progress === undefined && !!env.IPI_JUDGE_PROGRESS;
  const choice = o.progress === true ? "auto" : o.progress !== undefined ? String(o.progress) : fromEnv ? String(env.IPI_JUDGE_PROGRESS) : "auto";
  if (!(PROGRESS_CHOICES as readonly string[]).includes(choice)) {
    // a bare --progress before a path takes the path as its mode (commander's optional value): say how to write it
    const hint = fromEnv ? "" : ` (a bare --progress means auto, but it takes the word after it as its mode: write --progress after the paths, or --progress auto)`;
    throw new UsageError(`${fromEnv ? "IPI_JUDGE_PROGRESS" : "--progress"} must be one of ${PROGRESS_CHOICES.join(", ")}, not "${choice}"${hint}`);
  }
  let seconds = DEFAULT_PROGRESS_INTERVAL_S;
  if (o.progressInterval !== undefined) {
    // decimal only, as --max-cost: Number() would also take "0x10", "1e3" and " 5 "
    const text = String(o.progressInterval);
    seconds = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROGRESS_INTERVAL_S)
      throw new UsageError(`--progress-interval must be a decimal number of seconds > 0 and at most ${MAX_PROGRESS_INTERVAL_S} (such as 30 or 0.5), not "${o.progressInterval}"`);
  }
  const mode: ProgressMode = choice === "auto" ? (isTTY ? "bar" : "lines") : (choice as ProgressMode);
  return { mode, intervalMs: seconds * 1000, startMs: commandStartMs };
}
