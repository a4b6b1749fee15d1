import { spawn } from "node:child_process";
import { warnLine } from "./warn.js";
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { intOption, runDirOf, withReadProgress } from "./util.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";

/** Open a URL in the desktop's browser (best effort: nothing happens where there is none). */
function openBrowser(url: string): void {
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer.exe" : "xdg-open";
  try {
    const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
    child.on("error", () => process.stderr.write(`ipi-judge: could not start a browser (${cmd}); open the URL above\n`));
    child.unref();
  } catch {
    process.stderr.write(`ipi-judge: could not start a browser (${cmd}); open the URL above\n`);
  }
}

/** `ipi-judge view`: a local browser workspace over a run and a sample. */
export function registerView(program: Command): void {
  const cmd = program
    .command("view")
    .description("Browse a run in the browser (every trajectory, filters, verified quotes in place, two judges or runs side by side) and label a sample (--sample): a local server on 127.0.0.1 with a random token.")
    .requiredOption("--run <name>", "the run to show (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--sample <dir>", "a sample folder written by ipi-judge sample --out: annotate it (blinded) and adjudicate")
    .option("--other <run>", "a second run of the same trajectories (same labels dir), for side by side")
    .option("--human <file>", "human labels (CSV or JSONL: trajectory_id, annotator, label) to show and filter on")
    .option("--blind", "serve only the blinded annotation pages (give this URL to annotators)")
    .option("--port <n>", "port to listen on (0: any free port; default: any free port, or with --blind one derived from the sample folder, the same at every start)")
    .option("--host <addr>", "address to listen on; anything but the loopback exposes the run to the network", "127.0.0.1")
    .option("--allow-host <name...>", "more names the browser may use to reach the server (Host header), e.g. this machine's DNS name; with --host 0.0.0.0 the machine's addresses and host name are accepted already")
    .option("--source-root <dir>", "folder that relative trajectory paths of the run are resolved from (default: the current directory, where label ran)")
    .option("--no-open", "do not open a browser");
  addProgressOptions(cmd)
    .addHelpText(
      "after",
      `
The first line of stdout is the URL, with its token; every API request without it gets 403 (the page keeps it in
sessionStorage and sends it as the header x-ipi-token; a script may give ?token=; no cookie is set). The server reads the run
folder, the sample folder and the source files the run records, and writes only into the sample folder:
annotations/<annotator>.jsonl (one file per annotator, read by import-annotations; a name that is not plain
lower case gets a hashed file name), annotations/.claims.json (--blind: which browser uses which name) and
adjudication.jsonl.
--blind without --port listens on a port derived from the sample folder (the same at every start): a blind
browser keeps its claim on an annotator name in localStorage, which is per port.
Stop it with Ctrl-C.
Exit: 0 stopped (Ctrl-C or SIGTERM), 1 fatal error (e.g. an unreadable run, or --port taken), 2 usage error. Never 3:
view prints no figure of a judge; a judge that looks broken is marked in its page (judge health).
Example:
  ipi-judge view --run study --sample study1
  ipi-judge import-annotations study1/annotations/*.jsonl --manifest study1/manifest.jsonl --out study1/human.jsonl`,
    )
    .action(async (o) => {
      const runDir = runDirOf(o.labelsDir, o.run);
      const otherDir = o.other ? runDirOf(o.labelsDir, o.other) : undefined;
      if (o.sample && !fs.existsSync(path.join(o.sample, "manifest.jsonl"))) throw new UsageError(`${o.sample} holds no manifest.jsonl: --sample takes a folder written by ipi-judge sample --out`);
      if (o.blind && !o.sample) throw new UsageError("--blind serves the annotation pages only: give --sample DIR");
      if (o.human && !fs.existsSync(o.human)) throw new UsageError(`human label file ${o.human} not found`);
      let port = o.port === undefined ? 0 : intOption(o.port, "--port", 0);
      if (port > 65535) throw new UsageError(`--port must be at most 65535, not ${port}`);
      // loading the view's code, reading the run and the sample can take seconds before the URL (new user 48: 10-18 s with nothing said)
      if (progressOf(o).mode !== "off") process.stderr.write(`ipi-judge: view: reading run ${o.run}${o.sample ? ` and sample ${o.sample}` : ""}; the URL follows once the server is up\n`);
      const { openView } = await import("../view/index.js");
      const { blindPortOf, blindPortWarning } = await import("../view/blind-port.js");
      // a blind view's claims live in the browsers' localStorage, per port: the same port at every start (./blind-port.ts)
      const derived = o.blind && o.port === undefined ? blindPortOf(o.sample) : undefined;
      if (derived !== undefined) port = derived;
      const open = (p: number) => withReadProgress(progressOf(o), (progress) => openView({
        runDir,
        progress,
        otherDir,
        sampleDir: o.sample ? path.resolve(o.sample) : undefined,
        humanFile: o.human,
        blind: !!o.blind,
        sourceRoot: o.sourceRoot ? path.resolve(o.sourceRoot) : undefined,
        host: o.host,
        port: p,
        allowHosts: o.allowHost,
      }).catch((e) => {
        // an unusable label file (conflicting labels among them) is refused as agree, estimate and report refuse it
        if ((e as Error)?.name === "HumanLabelsError") throw new UsageError((e as Error).message);
        throw e;
      }));
      let opened;
      try {
        opened = await open(port);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException)?.code;
        if (derived === undefined || (code !== "EADDRINUSE" && code !== "EACCES")) throw e;
        opened = await open(0);
        opened.warnings.unshift(blindPortWarning(derived, opened.server.port, code));
      }
      const { server, warnings } = opened;
      process.stdout.write(`${server.url}\n`);
      if (!["127.0.0.1", "localhost", "::1"].includes(o.host)) process.stderr.write(`ipi-judge: warning: listening on ${o.host}: anyone who can reach it and has the token can read the run; browsers must reach it by one of this machine's addresses${["0.0.0.0", "::"].includes(o.host) ? " or its host name" : ""}, or by a name given with --allow-host\n`);
      for (const w of warnings) warnLine(w);
      process.stderr.write(`serving run ${o.run}${o.sample ? ` and sample ${o.sample}` : ""}; Ctrl-C to stop\n`);
      if (o.open !== false) openBrowser(server.url);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          server.close().then(resolve);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    });
}
