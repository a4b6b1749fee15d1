#!/usr/bin/env node
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { EXIT, UsageError } from "./errors.js";
import { RunLockedError } from "../store/lock.js";
import { preloadTransportWorker } from "../judges/transport-worker.js";

/**
 * The ipi-judge command line: a thin shell over the library. Every command is a library call.
 * @returns the process exit code (0 ok, 1 fatal, 2 usage/config).
 */
export async function main(argv: string[]): Promise<number> {
  // `label --judges`: the transport worker (../judges/transport-worker.ts) starts loading on the other core now,
  // while this thread loads the commands below (loaded here, after it, for that reason).
  if (argv[0] === "label" && argv.some((a) => a === "--judges" || a.startsWith("--judges=")) && process.env.IPI_NO_WORKER !== "1")
    preloadTransportWorker();
  const [
    { registerLabel },
    { registerAgree },
    { registerSample },
    { registerImportAnnotations },
    { registerCompare },
    { registerReport },
    { registerCommittee },
    { registerAgreement },
  ] = await Promise.all([
    import("./label.js"),
    import("./agree.js"),
    import("./sample.js"),
    import("./import-annotations.js"),
    import("./compare.js"),
    import("./report.js"),
    import("./committee.js"),
    import("./agreement.js"),
  ]);
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
  registerLabel(program);
  registerAgree(program);
  registerSample(program);
  registerImportAnnotations(program);
  registerCompare(program);
  registerReport(program);
  registerCommittee(program);
  registerAgreement(program);
  for (const c of program.commands) c.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof UsageError || ["ConfigError", "JudgesConfigError", "RunNameError"].includes((e as Error)?.name)) {
      process.stderr.write(`ipi-judge: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
    if (e instanceof RunLockedError) {
      process.stderr.write(`ipi-judge: ${e.message}\n`);
      return EXIT.fatal;
    }
    process.stderr.write(`ipi-judge: ${(e as Error)?.message ?? String(e)}\n`);
    if (process.env.IPI_JUDGE_DEBUG) process.stderr.write(`${(e as Error)?.stack}\n`);
    return EXIT.fatal;
  }
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
