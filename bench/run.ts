/**
 * `npm run bench`: throughput, linearity and memory of `ipi-judge label` against a loopback OpenAI-compatible
 * server that answers at once, beside a bare HTTP loop sending the same requests at the same concurrency.
 *
 * What is measured (one run, one machine):
 * - server: `bench/server.ts` in a child process (its own event loop), verdicts that verify (unaffected
 *   findings quoting the injected text where the tool result shows it, or not_exposed);
 * - bare loop: in this process, run just before and just after each ipi-judge run (the mean of both counts), `fetch` POSTs of the exact request bodies ipi-judge sends (system rubric + the
 *   rendered trajectory, pre-rendered before the clock starts), `concurrency` in flight, each response parsed;
 * - ipi-judge: the real CLI (`node dist/bin/ipi-judge.js label ... --judges cfg --json`) in a child process, with
 *   evidence verification and the run store on; wall time from spawn to exit (start-up, pre-count and the
 *   final summary included); peak RSS from getrusage via `bench/probe.ts`;
 * - sizes 5,000 and 40,000 trajectories from `agentdojo-scale.tgz` (11,384 runs): the corpus is extracted
 *   once, and distinct ids beyond 11,384 come from symbolic links named `<model>~r<k>` to the model folders
 *   (the AgentDojo id is the path from the model folder on, so each link gives 11,384 new ids for free);
 * - resume: the 40,000 command again (everything skipped), and `RunStore.open` of the 40,000-verdict run;
 * - `bench/stats-bootstrap.ts` (10,000 bootstrap resamples of kappa over 40,000 items).
 *
 * First, the realistic-latency mode (`realistic` below; 300 ms / 64 and 1 s / 256 on 3,000 trajectories, label
 * beside a bare fetch loop; target >= 0.95x at 300 ms / 64); then the zero-latency runs, kept as a regression
 * guard. Targets (printed as PASS/FAIL): ipi-judge >= 0.2x the bare loop's items/s at both sizes (a guard, not a
 * target: set 2026-12-01 to the 0.24x measured over the platform fetch, load ~8, minus a margin; README-bench.md); time per item at
 * 40,000 within 1.2x of time per item at 5,000; peak RSS < 300 MB at 40,000.
 * Last, the scale section (`bench/scale.ts`: signature `label` at 100,000 and 1,000,000 beside a bare read + parse;
 * `--scale-sizes N,...`, `--scale-only` runs it alone, `--no-scale` skips it).
 * `--realistic-marginal M` adds the realistic mode's CPU per request with the one-off costs taken out (both programs
 * again at M items: `bench/marginal.ts`).
 * Usage: `npm run bench [-- --sizes 5000,40000 --concurrency 16]`. Env IPI_BENCH_TGZ overrides the corpus path;
 * IPI_BENCH_CLI measures another build's CLI, IPI_BENCH_CLI_BASE adds a second one beside it (realistic mode).
 */
import { execFileSync, fork, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readTrajectories } from "../dist/ingest/index.js";
import { buildMessages } from "../dist/rubric/prompt.js";
import { renderForJudge } from "../dist/serialize/render.js";
import { responseFormat } from "../dist/providers/schema-dialects.js";
import { RunStore } from "../dist/store/run-store.js";
import { inputsFor, runNode, type ThreadsMs } from "./common.js";
import { marginalLines, type CpuAt } from "./marginal.js";
import { scaleSection, scaleSizes } from "./scale.js";

/**
 * Exit 3 (finished, a judge's rates marked): the bench's stub judge (`benchReply`) never finds compliance, so on real
 * runs whose benchmark verdict says the goal was achieved its rates are marked (`denies_reference_goal`, red team M4).
 * Finished all the same: the bench measures throughput, not the judge.
 */
const EXIT_STUB_DENIES = 3;

/**
 * The zero-latency regression guard: ipi-judge's items/s over the bare fetch loop's, at least this. Not a target
 * (issue 15): 0.24x was measured on 2026-12-01 after chat completions moved to the platform `fetch` (load ~8 on 2
 * cores; the `node:http` client before it measured 0.43x at load ~11), minus a margin for load (README-bench.md).
 */
const GUARD_RATIO = 0.2;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");
/** The measured CLI: this tree's build, or `IPI_BENCH_CLI` (another build's `dist/bin/ipi-judge.js`). */
const CLI = process.env.IPI_BENCH_CLI ?? path.join(ROOT, "dist", "bin", "ipi-judge.js");
/**
 * `IPI_BENCH_CLI_BASE`: a second build's CLI (e.g. `main` exported and built elsewhere), measured by the realistic
 * mode right after `label`, in the same run and against the same server, as "label (base)": a side-by-side before/after.
 */
const CLI_BASE = process.env.IPI_BENCH_CLI_BASE;
const TGZ = process.env.IPI_BENCH_TGZ ?? path.resolve(ROOT, "../shared/corpus/agentdojo-scale.tgz");

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : def;
}
const SIZES = arg("sizes", "5000,40000").split(",").map(Number);
const CONCURRENCY = Number(arg("concurrency", "16"));
/** `--cli-only`: skip the bare loop (profiling and memory work; the ratio targets are then not judged). */
const CLI_ONLY = process.argv.includes("--cli-only");
const MB = 1024 * 1024;
/** `--busy K`: K CPU-burning neighbour processes during the realistic mode ({@link startBusy}). */
const BUSY = Number(arg("busy", "0"));
/** `--realistic-modes 300/64,1000/256`: latency (ms) / concurrency of each realistic mode. */
const REALISTIC_MODES = arg("realistic-modes", "300/64,1000/256")
  .split(",")
  .map((m) => ({ delayMs: Number(m.split("/")[0]), concurrency: Number(m.split("/")[1]) }));
/**
 * `--realistic-marginal M`: also run the bare loop program and `label` at M items (> `--realistic-n`) in each
 * realistic mode and print the marginal CPU per request between the two sizes (`bench/marginal.ts`). 0: off.
 */
const MARGINAL = Number(arg("realistic-marginal", "0"));
/** Extra node flags for the measured CLI (e.g. `IPI_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof"`). */
const NODE_ARGS = (process.env.IPI_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

interface Figures {
  items: number;
  seconds: number;
  perSec: number;
  peakRssMB?: number;
  /** CPU time of the measured process (user + system, ms), when measured. */
  cpuMs?: number;
  /** The same CPU split into the main thread and all others (ms, `bench/probe.mjs`), when measured. */
  threadsMs?: ThreadsMs;
}

function startServer(delayMs = 0): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(HERE, "server.ts"), ["--child", "--delay-ms", String(delayMs)], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("message", (m: { port: number }) => resolve({ child, port: m.port }));
    child.once("error", reject);
    child.once("exit", (c) => reject(new Error(`bench server exited with ${c}`)));
  });
}

/** The JSON body ipi-judge sends for one rendered user message (rubric system message, json_schema output). */
function requestBody(user: string): string {
  return JSON.stringify({
    model: "bench-model",
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: user },
    ],
    temperature: 0,
    response_format: RESPONSE_FORMAT,
  });
}
const RESPONSE_FORMAT = responseFormat("json_schema");
const SYSTEM = buildMessages({ trajectoryBlock: "", injectionsBlock: "", nonce: "" })[0].content;

async function bareLoop(port: number, users: string[], n: number, concurrency: number): Promise<Figures> {
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  let next = 0;
  let bad = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const body = requestBody(users[i % users.length]);
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer not-needed" },
        body,
      });
      const j = (await res.json()) as { choices?: unknown[] };
      if (!res.ok || !j.choices) bad++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  if (bad) throw new Error(`bare loop: ${bad} bad responses`);
  return { items: n, seconds, perSec: n / seconds };
}

/**
 * For reference only (not a target): the same loop over `node:http` with a keep-alive agent, the transport
 * ipi-judge's chat requests use (`src/providers/fetch.ts`) without the `openai` client on top. Faster than
 * `fetch`; it shows how far ipi-judge is from the raw socket work, not from a typical HTTP client.
 */
async function rawHttpLoop(port: number, users: string[], n: number, concurrency: number): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true });
  let next = 0;
  let bad = 0;
  const t0 = performance.now();
  const one = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: "/v1/chat/completions", method: "POST", agent, headers: { "content-type": "application/json", authorization: "Bearer not-needed", "content-length": Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const j = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { choices?: unknown[] };
            if (res.statusCode !== 200 || !j.choices) bad++;
            resolve();
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      await one(requestBody(users[i % users.length]));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  if (bad) throw new Error(`raw http loop: ${bad} bad responses`);
  return { items: n, seconds, perSec: n / seconds };
}

/**
 * The bare loop as a program (`bench/bare-loop.mjs`), timed from spawn to exit like `label`: the same request
 * bodies (written to `file` before the clock starts), `concurrency` in flight. The realistic mode's target is
 * judged against this figure; the in-process loop ({@link bareLoop}) is printed beside it. Its CPU time (user +
 * system, from `bench/probe.mjs` preloaded as for `label`) is in `cpuMs`.
 */
function bareLoopProgram(file: string, port: number, n: number, concurrency: number, probe: string): Promise<Figures> {
  return programFigures(["bare-loop.mjs", file, `http://127.0.0.1:${port}/v1/chat/completions`, String(concurrency)], n, probe);
}

/**
 * The `openai` client alone over ipi-judge's own transport (`bench/openai-loop.mjs ... ipi`: `limitedFetch()` of this
 * tree's `dist/providers/fetch.js`), the same bodies and concurrency: the CPU floor of a request as `label` sends it,
 * before any of ipi-judge's own work (ingest, rendering, store, evidence). `label`'s CPU beyond it is that work.
 */
function sdkFloorProgram(file: string, port: number, n: number, concurrency: number, probe: string): Promise<Figures> {
  return programFigures(["openai-loop.mjs", file, `http://127.0.0.1:${port}/v1`, String(concurrency), "ipi"], n, probe);
}

/** Run `bench/<script> ...args` with the probe preloaded, timed from spawn to exit; CPU (and its thread split) from the probe. */
function programFigures([script, ...args]: string[], n: number, probe: string): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["--import", path.join(HERE, "probe.mjs"), path.join(HERE, script), ...args], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, IPI_BENCH_PROBE: probe },
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) reject(new Error(`${script} exited ${code}`));
      else resolve({ items: n, seconds, perSec: n / seconds, cpuMs: probeCpuMs(probe), threadsMs: probeThreads(probe) });
    });
  });
}

/** The main / other threads CPU split (ms) written by `bench/probe.mjs`, when it could read it. */
function probeThreads(probe: string): ThreadsMs | undefined {
  return (JSON.parse(fs.readFileSync(probe, "utf8")) as { threadsMs?: ThreadsMs }).threadsMs;
}

/** User + system CPU milliseconds written by `bench/probe.mjs` at the process's exit. */
function probeCpuMs(probe: string): number {
  const p = JSON.parse(fs.readFileSync(probe, "utf8")) as { cpuMs: { user: number; system: number } };
  return p.cpuMs.user + p.cpuMs.system;
}

/**
 * `--busy K`: K child processes that burn CPU (a tight loop) while the realistic mode measures, so both the bare
 * loop and `label` run beside a busy neighbour (a researcher's laptop at other work). Stopped by the returned
 * function (each child by its own pid).
 */
function startBusy(k: number): () => void {
  const kids = Array.from({ length: k }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
  return () => {
    for (const c of kids) c.kill("SIGKILL");
  };
}

function runCli(args: string[], probe: string, env: NodeJS.ProcessEnv = {}, cli: string = CLI): Promise<{ seconds: number; code: number | null; stdout: string; stderr: string }> {
  return runNode(cli, args, probe, { env, nodeArgs: NODE_ARGS });
}

function countLines(file: string): number {
  const buf = fs.readFileSync(file);
  let n = 0;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) n++;
  return n;
}

/**
 * The labelling phase of a run, from its verdicts' `created_at` (ms): first to last verdict, without process
 * start-up, module loading and the final summary. Reported beside the end-to-end figure (which the target uses).
 */
function labellingPhase(file: string): { seconds: number; perSec: number } {
  let first = Infinity;
  let last = -Infinity;
  let n = 0;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /"created_at":"([^"]+)"/.exec(line);
    if (!m) continue;
    const t = Date.parse(m[1]);
    first = Math.min(first, t);
    last = Math.max(last, t);
    n++;
  }
  const seconds = (last - first) / 1000;
  return { seconds, perSec: (n - 1) / seconds };
}

/**
 * The realistic-latency mode (issue 15): a server answering every request after `delayMs` (300 ms with 64 in
 * flight, 1 s with 256), `n` real trajectories, and, at the same concurrency: the bare `fetch` loop as a program
 * (`bench/bare-loop.mjs`, spawn to exit, before and after, mean), the same loop inside the bench process (before
 * and after, mean; for reference: it pays no Node.js start and reads no input), and `label` (spawn to exit).
 * Target: `label` >= 0.95x the bare loop program at 300 ms / 64; peak RSS < 300 MB.
 * @returns whether the targets were met.
 */

async function realistic(tmp: string, inputs: string[], inputsM: string[], users: string[], n: number, modes: { delayMs: number; concurrency: number }[]): Promise<boolean> {
  console.log(`\n== realistic latency: ${n} real trajectories${MARGINAL > n ? ` (and ${MARGINAL} for the marginal CPU)` : ""} ==`);
  // the bare loop program's input: the n (and M) request bodies label will send, one per line (written before any clock)
  if (!CLI_ONLY) for (const k of MARGINAL > n ? [n, MARGINAL] : [n]) writeBodies(tmp, users, k);
  const stopBusy = startBusy(BUSY);
  try {
    return await realisticModes(tmp, inputs, inputsM, users, n, modes, bodiesFile(tmp, n));
  } finally {
    stopBusy();
  }
}

/** The bare loop program's input file of `n` request bodies (one JSON request per line). */
function bodiesFile(tmp: string, n: number): string {
  return path.join(tmp, `bodies-${n}.jsonl`);
}

/** Write {@link bodiesFile}: the bodies of the first `n` items `label` will judge, in its order (`users` repeated). */
function writeBodies(tmp: string, users: string[], n: number): void {
  fs.writeFileSync(bodiesFile(tmp, n), Array.from({ length: n }, (_, i) => requestBody(users[i % users.length])).join("\n") + "\n");
}

/**
 * One `label` run of `cli` on the first `n` items of `inputs` into run `run` (spawn to exit, the probe preloaded).
 * @returns its figures (wall, peak RSS, CPU and thread split). @throws Error when it fails or stores other than n verdicts.
 */
async function runLabel(cli: string, inputs: string[], cfg: string, labels: string, run: string, n: number, probe: string): Promise<Figures> {
  global.gc?.();
  const r = await runCli(["label", ...inputs, "--judges", cfg, "--run", run, "--labels-dir", labels, "--limit", String(n), "--json"], probe, {}, cli);
  if (r.code !== 0 && r.code !== EXIT_STUB_DENIES) throw new Error(`ipi-judge exited ${r.code}: ${r.stderr}`);
  const stored = countLines(path.join(labels, run, "verdicts.jsonl"));
  if (stored !== n) throw new Error(`expected ${n} verdicts, got ${stored}`);
  const p = JSON.parse(fs.readFileSync(probe, "utf8"));
  return { items: n, seconds: r.seconds, perSec: n / r.seconds, peakRssMB: p.maxRssBytes / MB, cpuMs: p.cpuMs.user + p.cpuMs.system, threadsMs: p.threadsMs };
}

/** The measurements of {@link realistic}, one mode after the other (bodies already written to `bodies`). */
async function realisticModes(
  tmp: string,
  inputs: string[],
  inputsM: string[],
  users: string[],
  n: number,
  modes: { delayMs: number; concurrency: number }[],
  bodies: string,
): Promise<boolean> {
  let pass = true;
  for (const { delayMs, concurrency } of modes) {
    const { child: server, port } = await startServer(delayMs);
    const cfg = path.join(tmp, `judges-${delayMs}.json`);
    fs.writeFileSync(
      cfg,
      JSON.stringify({ judges: [{ id: "bench", model: "bench-model", base_url: `http://127.0.0.1:${port}/v1`, family: "openai", concurrency }] }),
    );
    const labels = path.join(tmp, `labels-${delayMs}`);
    const progProbe = path.join(tmp, `probe-prog-${delayMs}.json`);
    const prog1 = CLI_ONLY ? undefined : await bareLoopProgram(bodies, port, n, concurrency, progProbe);
    const bare1 = CLI_ONLY ? undefined : await bareLoop(port, users, n, concurrency);
    const row: string[] = [];
    const figures: Record<string, Figures> = {};
    const clis: [string, string][] = [["label", CLI], ...(CLI_BASE ? [["label (base)", CLI_BASE] as [string, string]] : [])];
    for (const [name, cli] of clis) figures[name] = await runLabel(cli, inputs, cfg, labels, `r${delayMs}${name === "label" ? "" : "-base"}`, n, path.join(tmp, `probe-r-${delayMs}.json`));
    const bare2 = CLI_ONLY ? undefined : await bareLoop(port, users, n, concurrency);
    const prog2 = CLI_ONLY ? undefined : await bareLoopProgram(bodies, port, n, concurrency, progProbe);
    const floor = CLI_ONLY ? undefined : await sdkFloorProgram(bodies, port, n, concurrency, path.join(tmp, `probe-floor-${delayMs}.json`));
    // --realistic-marginal M: the same programs at M items (bare loop before and after label, mean), against the same server
    let marginal: string[] = [];
    if (MARGINAL > n && prog1 && prog2) {
      const m = MARGINAL;
      const progM1 = await bareLoopProgram(bodiesFile(tmp, m), port, m, concurrency, progProbe);
      const atM: Record<string, Figures> = {};
      for (const [name, cli] of clis) atM[name] = await runLabel(cli, inputsM, cfg, labels, `m${delayMs}${name === "label" ? "" : "-base"}`, m, path.join(tmp, `probe-m-${delayMs}.json`));
      const progM2 = await bareLoopProgram(bodiesFile(tmp, m), port, m, concurrency, progProbe);
      const at = (items: number, cpuMs: number): CpuAt => ({ n: items, cpuMs });
      marginal = marginalLines(
        Object.fromEntries(Object.entries(figures).map(([name, f]) => [name, [at(n, f.cpuMs!), at(m, atM[name].cpuMs!)]])),
        [at(n, (prog1.cpuMs! + prog2.cpuMs!) / 2), at(m, (progM1.cpuMs! + progM2.cpuMs!) / 2)],
      );
    }
    server.send("stop");
    const ideal = (n / concurrency) * (delayMs / 1000);
    const mean = (a?: Figures, b?: Figures) => (a && b ? { perSec: (2 * n) / (a.seconds + b.seconds), seconds: (a.seconds + b.seconds) / 2 } : undefined);
    const bare = mean(bare1, bare2);
    const prog = mean(prog1, prog2);
    const progCpu = prog1 && prog2 ? (prog1.cpuMs! + prog2.cpuMs!) / 2 : undefined;
    if (prog) row.push(`bare fetch program ${prog.perSec.toFixed(1)}/s (${prog.seconds.toFixed(2)} s, spawn to exit)`);
    if (bare) row.push(`in-process bare loop ${bare.perSec.toFixed(1)}/s (${bare.seconds.toFixed(2)} s)`);
    for (const [name, f] of Object.entries(figures))
      row.push(
        `${name} ${f.perSec.toFixed(1)}/s (${f.seconds.toFixed(2)} s, ${prog && bare ? `${(f.perSec / prog.perSec).toFixed(3)}x the program, ${(f.perSec / bare.perSec).toFixed(3)}x in-process, ` : ""}peak RSS ${f.peakRssMB!.toFixed(0)} MB)`,
      );
    console.log(`${delayMs} ms / ${concurrency} in flight (ideal ${ideal.toFixed(2)} s)${BUSY > 0 ? `, ${BUSY} busy neighbour(s)` : ""}: ${row.join("; ")}`);
    // CPU per request (user + system, whole process, spawn to exit): issue 26's target is label <= 1.5x the program
    const cpuLine = Object.entries(figures).map(([name, f]) => `${name} ${(f.cpuMs! / n).toFixed(2)} ms/item (${(f.cpuMs! / 1000).toFixed(1)} s${progCpu !== undefined ? `, ${(f.cpuMs! / progCpu).toFixed(2)}x` : ""})`);
    if (progCpu !== undefined) cpuLine.push(`bare loop program ${(progCpu / n).toFixed(2)} ms/item (${(progCpu / 1000).toFixed(1)} s)`);
    console.log(`  CPU per request: ${cpuLine.join(", ")}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    const split = (f?: Figures) => (f?.threadsMs ? `main thread ${(f.threadsMs.main / n).toFixed(2)}, other threads ${(f.threadsMs.other / n).toFixed(2)}` : "not measured");
    console.log(`  thread split (ms/item): ${[...Object.entries(figures).map(([name, f]) => `${name}: ${split(f)}`), ...(prog1 ? [`bare loop program (first run): ${split(prog1)}`] : [])].join("; ")}`);
    for (const line of marginal) console.log(line);
    if (floor && progCpu !== undefined) {
      // issue 26: what the target leaves for ipi-judge's own work, beside what that work costs now
      const own = Object.entries(figures).map(([name, f]) => `${name} ${((f.cpuMs! - floor.cpuMs!) / n).toFixed(2)} ms/item`);
      console.log(
        `  openai client over ipi-judge's transport alone (bench/openai-loop.mjs ipi, same bodies): ${(floor.cpuMs! / n).toFixed(2)} ms/item (${split(floor)}); ` +
          `ipi-judge's own work beyond it: ${own.join(", ")}; the 1.5x target leaves it ${((1.5 * progCpu - floor.cpuMs!) / n).toFixed(2)} ms/item`,
      );
    }
    if (prog && delayMs === 300) {
      for (const [name, f] of Object.entries(figures)) {
        const ok = f.perSec / prog.perSec >= 0.95 && f.peakRssMB! < 300;
        console.log(`  target 300 ms / 64, ${name}: ${(f.perSec / prog.perSec).toFixed(3)}x the bare loop program >= 0.95x and peak < 300 MB: ${ok ? "PASS" : "FAIL"}`);
        if (name === "label") pass &&= ok;
        // issue 26 asks more than the 0.95x above: >= 0.97x, and with a busy neighbour (`--busy 1`); say which was run
        const wallOk = f.perSec / prog.perSec >= 0.97;
        console.log(
          `  target (issue 26), ${name}: ${(f.perSec / prog.perSec).toFixed(3)}x the bare loop program >= 0.97x ` +
            `${BUSY > 0 ? `with ${BUSY} busy neighbour(s)` : "(no busy neighbour: issue 26 asks for one, --busy 1)"}: ${wallOk ? "PASS" : "FAIL"}`,
        );
        if (name === "label") pass &&= wallOk;
        if (progCpu !== undefined) {
          const cpuOk = f.cpuMs! <= 1.5 * progCpu;
          console.log(`  target (issue 26), ${name}: CPU ${(f.cpuMs! / progCpu).toFixed(2)}x the bare loop program's <= 1.5x: ${cpuOk ? "PASS" : "FAIL"}`);
          if (name === "label") pass &&= cpuOk;
        }
      }
    }
  }
  return pass;
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-bench-"));
  const cleanup = () => fs.rmSync(tmp, { recursive: true, force: true });
  process.on("exit", cleanup);
  console.log(`ipi-judge benchmark — node ${process.version}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`);
  let t = performance.now();
  execFileSync("tar", ["-xzf", TGZ, "-C", tmp]);
  const runsDir = path.join(tmp, "runs");
  if (process.argv.includes("--scale-only")) {
    const ok = await scaleSection(runsDir, tmp, scaleSizes());
    console.log(ok ? "SCALE TARGETS MET" : "SCALE TARGETS MISSED");
    process.exitCode = ok ? 0 : 1;
    return;
  }
  const maxN = Math.max(...SIZES);
  const perCopy = 11_384;
  const inputs = inputsFor(runsDir, path.join(tmp, "links"), Math.ceil(maxN / perCopy));
  console.log(`corpus extracted in ${((performance.now() - t) / 1000).toFixed(1)} s; ${inputs.length} input folders`);

  // Pre-render the request bodies of the unique trajectories for the bare loop (not timed).
  t = performance.now();
  const users: string[] = [];
  for await (const it of readTrajectories([runsDir])) {
    if (CLI_ONLY) break;
    if (it.kind !== "trajectory") continue;
    users.push(buildMessages(renderForJudge(it.trajectory))[1].content);
  }
  console.log(`pre-rendered ${users.length} request bodies for the bare loop in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  let realisticPass = true;
  if (!process.argv.includes("--no-realistic")) {
    const rn = Number(arg("realistic-n", "3000"));
    // one copy's model folders reach 11,384 items; the marginal size takes as many copies as it needs (made above up to --sizes' largest)
    const perCopyFolders = Math.max(1, Math.ceil(inputs.length / Math.ceil(maxN / perCopy)));
    const inputsM = inputsFor(runsDir, path.join(tmp, "links"), Math.ceil(Math.max(MARGINAL, rn) / perCopy)).slice(0, perCopyFolders * Math.ceil(Math.max(MARGINAL, rn) / perCopy));
    realisticPass = await realistic(tmp, inputs.slice(0, perCopyFolders), inputsM, users, rn, REALISTIC_MODES);
    if (process.argv.includes("--realistic-only")) {
      console.log(realisticPass ? "REALISTIC TARGETS MET" : "REALISTIC TARGETS MISSED");
      process.exitCode = realisticPass ? 0 : 1;
      return;
    }
    console.log("\n== zero latency (a regression guard: the client's own CPU cost) ==");
  }
  const { child: server, port } = await startServer();
  const cfg = path.join(tmp, "judges.json");
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      judges: [{ id: "bench", model: "bench-model", base_url: `http://127.0.0.1:${port}/v1`, family: "openai", concurrency: CONCURRENCY }],
    }),
  );
  const labels = path.join(tmp, "labels");
  const results: { n: number; bare: Figures; cli: Figures; verified: number; okShare: number }[] = [];
  // warm-up of both sides (JIT, connections)
  if (!CLI_ONLY) await bareLoop(port, users, 2000, CONCURRENCY);
  const noBare: Figures = { items: 0, seconds: 0, perSec: NaN };
  for (const n of SIZES) {
    // The bare loop runs just before and just after ipi-judge, and its figure is the mean of both, so a load
    // change on the machine during the measurement touches both sides alike.
    const bare1 = CLI_ONLY ? noBare : await bareLoop(port, users, n, CONCURRENCY);
    global.gc?.();
    const probe = path.join(tmp, `probe-${n}.json`);
    const r = await runCli(["label", ...inputs, "--judges", cfg, "--run", `n${n}`, "--labels-dir", labels, "--limit", String(n), "--json"], probe);
    if (r.code !== 0 && r.code !== EXIT_STUB_DENIES) throw new Error(`ipi-judge exited ${r.code}: ${r.stderr}`);
    const summary = JSON.parse(r.stdout);
    const p = JSON.parse(fs.readFileSync(probe, "utf8"));
    const stored = countLines(path.join(labels, `n${n}`, "verdicts.jsonl"));
    if (stored !== n || summary.this_run.judged !== n) throw new Error(`expected ${n} verdicts, got ${stored} (judged ${summary.this_run.judged})`);
    const bare2 = CLI_ONLY ? noBare : await bareLoop(port, users, n, CONCURRENCY);
    const bare: Figures = { items: 2 * n, seconds: bare1.seconds + bare2.seconds, perSec: (2 * n) / (bare1.seconds + bare2.seconds) };
    const j = summary.judges[0];
    const verified = j.by_label.unaffected as number;
    const cli: Figures = { items: n, seconds: r.seconds, perSec: n / r.seconds, peakRssMB: p.maxRssBytes / MB };
    console.log(`  ipi-judge peaks (MB): ${Object.entries(p.peak as Record<string, number>).map(([k, v]) => `${k} ${(v / MB).toFixed(0)}`).join(", ")}`);
    results.push({ n, bare, cli, verified, okShare: (j.by_status.ok ?? 0) / n });
    console.log(
      `n=${n}: ${CLI_ONLY ? "bare skipped" : `bare ${bare.perSec.toFixed(0)}/s (${bare1.perSec.toFixed(0)}/s before, ${bare2.perSec.toFixed(0)}/s after)`} | ipi-judge ${cli.perSec.toFixed(0)}/s (${cli.seconds.toFixed(2)} s), ` +
        `ratio ${CLI_ONLY ? "n/a" : (cli.perSec / bare.perSec).toFixed(2)}, peak RSS ${cli.peakRssMB!.toFixed(0)} MB; ` +
        `${verified} unaffected findings verified, ${j.downgrades} downgrades, ok ${(100 * (j.by_status.ok ?? 0) / n).toFixed(1)}%`,
    );
    const phase = labellingPhase(path.join(labels, `n${n}`, "verdicts.jsonl"));
    console.log(
      `  ipi-judge from its first verdict to its last (no start-up, no summary; no target): ${phase.perSec.toFixed(0)}/s over ${phase.seconds.toFixed(2)} s` +
        (CLI_ONLY ? "" : `, ${(phase.perSec / bare.perSec).toFixed(2)}x the bare loop`),
    );
    if (!CLI_ONLY && n === Math.min(...SIZES)) {
      const raw = await rawHttpLoop(port, users, n, CONCURRENCY);
      console.log(
        `  for reference (no target): raw node:http loop, same bodies and concurrency, no HTTP client library: ${raw.perSec.toFixed(0)}/s; ` +
          `ipi-judge / raw = ${(cli.perSec / raw.perSec).toFixed(2)}x, bare fetch / raw = ${(bare.perSec / raw.perSec).toFixed(2)}x`,
      );
    }
  }

  // Resume: the largest run again (everything is skipped), then the store's own load time.
  const big = Math.max(...SIZES);
  const probe = path.join(tmp, "probe-resume.json");
  const before = await new Promise<number>((ok) => {
    server.once("message", (m: { requests: number }) => ok(m.requests));
    server.send("count");
  });
  const rr = await runCli(["label", ...inputs, "--judges", cfg, "--run", `n${big}`, "--labels-dir", labels, "--limit", String(big), "--json"], probe);
  const after = await new Promise<number>((ok) => {
    server.once("message", (m: { requests: number }) => ok(m.requests));
    server.send("count");
  });
  const rs = JSON.parse(rr.stdout);
  const rp = JSON.parse(fs.readFileSync(probe, "utf8"));
  t = performance.now();
  const store = await RunStore.open(labels, `n${big}`);
  const loadMs = performance.now() - t;
  const loaded = store.resumed.verdicts;
  await store.close();
  console.log(
    `resume n=${big}: ${rs.this_run.skipped} skipped, ${rs.this_run.judged} judged, ${after - before} requests, ` +
      `${rr.seconds.toFixed(2)} s wall (re-reads the input), peak RSS ${(rp.maxRssBytes / MB).toFixed(0)} MB; ` +
      `RunStore.open loads ${loaded} verdicts in ${loadMs.toFixed(0)} ms`,
  );
  server.send("stop");

  // The statistics bootstrap benchmark, when present.
  const boot = path.join(HERE, "stats-bootstrap.ts");
  let bootLine = "";
  if (fs.existsSync(boot)) {
    const out = execFileSync(process.execPath, ["--import", "tsx", boot, "10000", "40000"], { encoding: "utf8" });
    process.stdout.write(out);
    const ms = [...out.matchAll(/B = \d+: (\d+) ms/g)].map((m) => Number(m[1]));
    bootLine = `bootstrap 10,000 x 40,000: ${ms.join(" / ")} ms ${ms.every((x) => x < 2000) ? "PASS" : "FAIL"} (< 2000 ms)`;
  }

  console.log("\n== targets ==");
  let allPass = true;
  for (const r of results) {
    const ratio = r.cli.perSec / r.bare.perSec;
    // a regression guard, not a target (issue 15): 0.24x measured over the platform fetch on 2026-12-01, minus a margin
    const pass = ratio >= GUARD_RATIO;
    if (CLI_ONLY) continue;
    allPass &&= pass;
    console.log(`throughput n=${r.n}: ipi-judge ${r.cli.perSec.toFixed(0)}/s vs bare ${r.bare.perSec.toFixed(0)}/s = ${ratio.toFixed(2)}x ${pass ? "PASS" : "FAIL"} (>= ${GUARD_RATIO}x)`);
  }
  const small = results.find((r) => r.n === Math.min(...SIZES))!;
  const large = results.find((r) => r.n === big)!;
  if (small !== large) {
    const lin = large.cli.seconds / large.n / (small.cli.seconds / small.n);
    const pass = lin <= 1.2;
    allPass &&= pass;
    console.log(
      `linearity: ${((1000 * large.cli.seconds) / large.n).toFixed(3)} ms/item at ${large.n} vs ${((1000 * small.cli.seconds) / small.n).toFixed(3)} ms/item at ${small.n} = ${lin.toFixed(2)}x ${pass ? "PASS" : "FAIL"} (<= 1.2x)`,
    );
  }
  const mem = large.cli.peakRssMB!;
  allPass &&= mem < 300;
  console.log(`memory: peak RSS ${mem.toFixed(0)} MB at ${large.n} ${mem < 300 ? "PASS" : "FAIL"} (< 300 MB)`);
  if (bootLine) console.log(bootLine);
  allPass &&= realisticPass;
  if (!process.argv.includes("--no-scale")) allPass = (await scaleSection(runsDir, tmp, scaleSizes())) && allPass;
  console.log(allPass ? "ALL TARGETS MET" : "SOME TARGETS MISSED");
  process.exitCode = allPass ? 0 : 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
