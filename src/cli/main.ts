#!/usr/bin/env node
import fs from "node:fs";
import { repeatedWarningsNote, resetWarnings, warnLine } from "./warn.js";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { EXIT, StoppedBeforeWorkError, StoppedJudgesError, UsageError } from "../errors.js";
import { RunLockedError } from "../store/lock.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import { showControls } from "../format/shown.js";
import { markCommandStart } from "./progress-mode.js";
import { excessArgumentHint } from "./excess-hint.js";
import { tuneHeapForCommand } from "./v8-tuning.js";
import { jsonError } from "./json-error.js";

export { jsonError } from "./json-error.js";

/** The commands, in the order `--help` lists them: each loads its module on demand. */
const COMMANDS: Record<string, () => Promise<(program: Command) => void>> = {
  label: () => import("./label.js").then((m) => m.registerLabel),
  agree: () => import("./agree.js").then((m) => m.registerAgree),
  sample: () => import("./sample.js").then((m) => m.registerSample),
  "import-annotations": () => import("./import-annotations.js").then((m) => m.registerImportAnnotations),
  compare: () => import("./compare.js").then((m) => m.registerCompare),
  report: () => import("./report.js").then((m) => m.registerReport),
  committee: () => import("./committee.js").then((m) => m.registerCommittee),
  agreement: () => import("./agreement.js").then((m) => m.registerAgreement),
  estimate: () => import("./estimate.js").then((m) => m.registerEstimate),
  view: () => import("./view.js").then((m) => m.registerView),
};

/**
 * The ipi-judge command line: a thin shell over the library. Every command is a library call. A known command sets
 * V8's old-generation growing factor for the process first (`./v8-tuning.ts` `tuneHeapForCommand`).
 * @returns the process exit code (0 ok, 1 fatal, 2 usage/config).
 */
export async function main(argv: string[]): Promise<number> {
  // progress lines count the command's time from here (./progress-mode.ts)
  markCommandStart();
  // Only the command being run is loaded (each pulls its own libraries); help and unknown commands load them all.
  const name = argv[0];
  // every command reads the run's journals line by line: V8 collects at label's growing factor (./v8-tuning.ts)
  if (name !== undefined) tuneHeapForCommand(name);
  const chosen = name !== undefined && Object.hasOwn(COMMANDS, name) ? [name] : Object.keys(COMMANDS);
  const registers = await Promise.all(chosen.map((c) => COMMANDS[c]()));
  // `ipi-judge ... | head` closes stdout early: that is not an error.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
  const program = new Command();
  program
    .name("ipi-judge")
    .description(
      "Label LLM-agent trajectories for indirect prompt injection with LLM judges, verify their evidence, and measure how far the labels can be trusted.",
    )
    .version("0.1.0")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");
  resetWarnings(); // each text once per command: a caller running several commands in one process starts each anew
  for (const register of registers) register(program);
  for (const c of program.commands) c.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    const code = failure(e);
    const hint = e instanceof CommanderError && e.code === "commander.excessArguments" ? excessArgumentHint(program, argv) : null;
    if (hint) process.stderr.write(`ipi-judge: ${errorText(hint)}\n`);
    // --json promised JSON on stdout: a command that failed prints its error as JSON there too, so a script reading
    // stdout gets a reason, not an empty string (verify 33 L1: a Batch download that failed after its retries)
    if (code !== EXIT.ok && wantsJson(argv)) {
      const out = jsonError(e, code);
      if (hint) out.error.message += `; ${hint}`;
      process.stdout.write(`${JSON.stringify(out)}\n`);
    }
    return code;
  } finally {
    // the journal lines any reader skipped, one warning per file (house rule: bad input is named, never dropped silently)
    for (const w of takeJournalWarnings()) warnLine(w);
    const repeated = repeatedWarningsNote(); // one warning per distinct fact, with its count (session 39)
    if (repeated) process.stderr.write(`ipi-judge: note: ${repeated}\n`);
  }
}

/**
 * An error's message for stderr: each of its lines with the control characters of names from the run files shown as
 * markers (`showControls`: a carriage return or a bidi override in a listed condition must not rewrite the line;
 * review 26). The message's own line feeds are kept (a few errors list one problem per line).
 */
function errorText(message: string): string {
  return message.split("\n").map(showControls).join("\n");
}

/** Whether the command line asks for JSON output (`--json` before any `--`). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** The exit code of a command that threw, its message on stderr. */
function failure(e: unknown): number {
  if (e instanceof CommanderError) {
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return EXIT.ok;
    return EXIT.usage;
  }
  if (e instanceof UsageError || ["ConfigError", "JudgesConfigError", "RunNameError", "JudgeConfigChangedError"].includes((e as Error)?.name)) {
    process.stderr.write(`ipi-judge: ${errorText((e as Error).message)}\n`);
    return EXIT.usage;
  }
  if (e instanceof RunLockedError) {
    process.stderr.write(`ipi-judge: ${errorText(e.message)}\n`);
    return EXIT.fatal;
  }
  // figures asked of judges that were stopped before storing any verdict there: the broken-judge exit (./stopped-exit.ts)
  if (e instanceof StoppedJudgesError) {
    process.stderr.write(`ipi-judge: ${errorText(e.message)}\n`);
    return EXIT.brokenJudge;
  }
  // a Ctrl-C before label read any input: not a failure, an interruption that left the run as it was
  if (e instanceof StoppedBeforeWorkError) {
    process.stderr.write(`ipi-judge: ${errorText(e.message)}\n`);
    return EXIT.interrupted;
  }
  process.stderr.write(`ipi-judge: ${errorText((e as Error)?.message ?? String(e))}\n`);
  if (process.env.IPI_JUDGE_DEBUG) process.stderr.write(`${(e as Error)?.stack}\n`);
  return EXIT.fatal;
}

function isEntry(): boolean {
  try {
    return !!process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}
if (isEntry()) {
  let finished = false;
  // Safety net: if the event loop ever drains while a command still awaits something that can no longer happen,
  // Node would exit 0 with nothing said; that is a failure (exit 1) with a message instead.
  process.on("beforeExit", () => {
    if (finished) return;
    finished = true;
    process.stderr.write("ipi-judge: internal error: the command stopped with work pending (nothing left to wait for); what was stored is kept\n");
    process.exitCode = EXIT.fatal;
  });
  main(process.argv.slice(2)).then((code) => {
    finished = true;
    process.exitCode = code;
  });
}
