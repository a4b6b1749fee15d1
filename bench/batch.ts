/**
 * `label --batch` at scale (issue 26, point 5): N trajectories (real AgentDojo runs, `<model>~r<k>` copies as in
 * `./run.ts`) labelled through the loopback Batch API of `./batch-server.ts` (a child process), in five invocations
 * of the real CLI, each measured (wall, peak RSS = the kernel's VmHWM, sampled from /proc every 100 ms):
 *
 * 1. `submit+kill`: reads everything, writes the request files, starts submitting; killed with SIGKILL after a
 *    third of the batches were created (the server holds every batch in progress);
 * 2. `resume+stop`: submits the rest (the created batches are polled, never sent again); stopped with SIGINT once
 *    every batch is in progress (the process exits: polling continues in the next invocation);
 * 3. `poll+kill`: the server now ends batches (every `--expire-every`-th `expired` with half its lines answered:
 *    partial results), the first download of each result file pauses halfway; killed with SIGKILL mid-download;
 * 4. `finish`: downloads, stores the verdicts, resubmits what the expired batches did not run, to the end;
 * 5. `rerun`: the same command on the finished run (nothing to do).
 *
 * Integrity, from the run folder and the server's ledger of answered lines: every trajectory has exactly one
 * verdict, status ok; no custom_id was answered twice; every trajectory's conversation was answered exactly once
 * (custom_id -> trajectory from the chunks' keys files); the verdicts' attempts add up to the answered lines.
 *
 * Usage: `node --import tsx bench/batch.ts [--batch-sizes 100000,1000000] [--expire-every 4] [--keep]`
 * (build first: `npm run build`). Work folder: $IPI_BENCH_BATCH_DIR or a temp folder (removed unless `--keep`;
 * 1M needs ~40 GB of disk).
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { inputsFor } from "./common.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");
/** The CLI measured: this checkout's build, or `$IPI_BENCH_CLI` (e.g. another checkout's, for a before/after). */
const CLI = process.env.IPI_BENCH_CLI ?? path.join(ROOT, "dist", "bin", "ipi-judge.js");
const RUNS = process.env.IPI_BENCH_RUNS ?? "/tmp/corpus/agentdojo-scale/runs";
const PER_SET = 11_384;

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : def;
}

interface Phase {
  name: string;
  /** Bytes of the run's batches folder when the invocation ended (chunk files, results, system texts). */
  diskBytes?: number;
  seconds: number;
  peakMB: number;
  /** CPU seconds (user + system) of the CLI process, from /proc every 100 ms (the last sample before it ended). */
  cpu: number;
  code: number | string | null;
}


/** Bytes of the files under `dir` (0 when missing). */
function treeBytes(dir: string): number {
  let n = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) n += treeBytes(p);
    else if (d.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

/** VmHWM (peak RSS) of a live process in MB, or 0 when it is gone. */
function vmHwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Node options for each CLI invocation, space-separated (`$IPI_BENCH_NODE_ARGS`, e.g. `--cpu-prof --cpu-prof-dir=D`). */
const NODE_ARGS = (process.env.IPI_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

/** CPU seconds (utime + stime) of a live process, or 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}
/** Clock ticks per second of /proc's CPU times (100 on Linux). */
const CLK_TCK = 100;

/**
 * One CLI invocation: wall and peak RSS; `until` gets each server event and returns a signal to send the CLI.
 * stderr goes to `log`.
 */
async function invoke(name: string, args: string[], log: string, server: ChildProcess, until?: (e: Record<string, unknown>) => NodeJS.Signals | undefined, diskDir?: string): Promise<Phase> {
  const t0 = performance.now();
  const out = fs.openSync(log, "a");
  fs.writeSync(out, `\n=== ${name}: ${new Date().toISOString()}\n`);
  const child = spawn(process.execPath, [...NODE_ARGS, CLI, ...args], { cwd: ROOT, stdio: ["ignore", out, out] });
  let peak = 0;
  let cpu = 0;
  const sample = () => {
    peak = Math.max(peak, vmHwm(child.pid!));
    cpu = Math.max(cpu, cpuSeconds(child.pid!));
  };
  const timer = setInterval(sample, 100);
  let sent = false;
  const onEvent = (e: Record<string, unknown>) => {
    const sig = !sent ? until?.(e) : undefined;
    if (!sig) return;
    sent = true;
    sample();
    child.kill(sig);
  };
  server.on("message", onEvent);
  const code = await new Promise<number | string | null>((ok) => child.on("exit", (c, s) => ok(c ?? s)));
  clearInterval(timer);
  server.off("message", onEvent);
  fs.closeSync(out);
  const p: Phase = { name, seconds: (performance.now() - t0) / 1000, peakMB: peak, cpu, code, ...(diskDir ? { diskBytes: treeBytes(diskDir) } : {}) };
  const disk = p.diskBytes !== undefined ? `  batches ${(p.diskBytes / 1e9).toFixed(2)} GB` : "";
  console.log(`  ${name.padEnd(12)} ${p.seconds.toFixed(1).padStart(8)} s  CPU ${p.cpu.toFixed(1).padStart(7)} s  peak RSS ${p.peakMB.toFixed(0).padStart(5)} MB  exit ${code}${disk}  (load ${os.loadavg()[0].toFixed(1)})`);
  return p;
}

function startServer(dir: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(HERE, "batch-server.ts"), ["--batch-server", "--dir", dir], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("message", (m: { port: number }) => resolve({ child, port: m.port }));
    child.once("error", reject);
    child.once("exit", (c) => reject(new Error(`batch server exited with ${c}`)));
  });
}

async function* jsonLines(file: string): AsyncGenerator<string> {
  if (!fs.existsSync(file)) return;
  for await (const l of readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })) if (l) yield l;
}

/** The integrity checks (module docstring); each a line "PASS/FAIL what". */
async function checks(runDir: string, serverDir: string, n: number): Promise<{ ok: boolean; lines: string[] }> {
  const out: string[] = [];
  const check = (ok: boolean, what: string) => out.push(`${ok ? "PASS" : "FAIL"} ${what}`);
  // verdicts: one per trajectory, ok
  const perTraj = new Map<string, number>();
  let verdicts = 0;
  let notOk = 0;
  let attempts = 0;
  for await (const l of jsonLines(path.join(runDir, "verdicts.jsonl"))) {
    const v = JSON.parse(l) as { trajectory_id: string; status: string; attempts: number };
    verdicts++;
    perTraj.set(v.trajectory_id, (perTraj.get(v.trajectory_id) ?? 0) + 1);
    if (v.status !== "ok") notOk++;
    attempts += v.attempts;
  }
  const twice = [...perTraj.values()].filter((c) => c > 1).length;
  check(perTraj.size === n && twice === 0, `every trajectory has exactly one verdict (${perTraj.size} of ${n} trajectories, ${verdicts} verdict lines, ${twice} with more than one)`);
  check(notOk === 0, `every verdict has status ok (${notOk} not ok)`);
  // the server's ledger: each custom_id answered once
  const answered = new Map<string, number>();
  let answeredLines = 0;
  for await (const id of jsonLines(path.join(serverDir, "answered.log"))) {
    answered.set(id, (answered.get(id) ?? 0) + 1);
    answeredLines++;
  }
  const dup = [...answered.values()].filter((c) => c > 1).length;
  check(dup === 0, `no custom_id answered twice (${answeredLines} answered lines, ${answered.size} custom_ids)`);
  // custom_id -> trajectory (keys files): each trajectory answered once
  const paid = new Map<string, number>();
  const batchesDir = path.join(runDir, "batches");
  for (const judge of fs.existsSync(batchesDir) ? fs.readdirSync(batchesDir) : [])
    for (const f of fs.readdirSync(path.join(batchesDir, judge))) {
      if (!f.endsWith(".keys.jsonl")) continue;
      for await (const l of jsonLines(path.join(batchesDir, judge, f))) {
        const k = JSON.parse(l) as { c: string; t: string };
        if (!answered.has(k.c)) continue;
        paid.set(k.t, (paid.get(k.t) ?? 0) + 1);
        answered.delete(k.c);
      }
    }
  const paidTwice = [...paid.values()].filter((c) => c > 1).length;
  check(paid.size === n && paidTwice === 0 && answered.size === 0, `every trajectory paid exactly once (${paid.size} paid, ${paidTwice} paid more than once, ${answered.size} answered lines with no keys line)`);
  check(attempts === answeredLines, `the verdicts' attempts add up to the answered lines (${attempts} vs ${answeredLines})`);
  return { ok: out.every((l) => l.startsWith("PASS")), lines: out };
}

/** Run the five invocations on `n` trajectories; prints phases and checks. */
export async function benchBatch(n: number, work: string, expireEvery: number): Promise<{ phases: Phase[]; ok: boolean }> {
  const base = path.join(work, `n${n}`);
  fs.rmSync(base, { recursive: true, force: true });
  fs.mkdirSync(base, { recursive: true });
  const inputs = inputsFor(RUNS, path.join(work, "links"), Math.ceil(n / PER_SET));
  const serverDir = path.join(base, "server");
  const { child: server, port } = await startServer(serverDir);
  const set = (s: Record<string, number>) => server.send({ set: s });
  const cfg = path.join(base, "judges.json");
  fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "batch-bench", model: "bench-model", family: "openai", base_url: `http://127.0.0.1:${port}/v1`, batch: true }] }));
  const labels = path.join(base, "labels");
  const args = ["label", ...inputs, "--judges", cfg, "--run", "r", "--labels-dir", labels, "--limit", String(n), "--batch", "--batch-poll", "0.2", "--json"];
  const log = path.join(base, "cli.log");
  const bdir = path.join(labels, "r", "batches");
  console.log(`batch ${n}: ${inputs.length} input folders, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  const phases: Phase[] = [];
  const t0 = performance.now();
  try {
    // 1. hold every batch; kill after a third of the expected chunks (~14,600 requests of 13 KB per 190 MB file)
    set({ pollsToComplete: 1e9, expireEvery: 0, slowDownloadMs: 0 });
    const expected = Math.max(1, Math.ceil(n / 14_000));
    let created = 0;
    phases.push(await invoke("submit+kill", args, log, server, (e) => (e.event === "create" && ++created >= Math.max(1, Math.floor(expected / 3)) ? "SIGKILL" : undefined), bdir));
    // 2. submit the rest (the created ones are polled, not sent again); stop (SIGINT) once polling went round twice
    let polls = 0;
    phases.push(await invoke("resume+stop", args, log, server, (e) => (e.event === "poll" && ++polls >= 2 * expected ? "SIGINT" : undefined), bdir));
    // 3. batches end (some expired, partial); kill mid-download
    set({ pollsToComplete: 2, expireEvery, slowDownloadMs: 4000 });
    phases.push(await invoke("poll+kill", args, log, server, (e) => (e.event === "download-paused" ? "SIGKILL" : undefined), bdir));
    // 4. to the end
    set({ slowDownloadMs: 0 });
    phases.push(await invoke("finish", args, log, server, undefined, bdir));
    // 5. nothing to do
    phases.push(await invoke("rerun", args, log, server, undefined, bdir));
  } finally {
    server.send({ stop: true });
  }
  const wall = (performance.now() - t0) / 1000;
  const c = await checks(path.join(labels, "r"), serverDir, n);
  for (const l of c.lines) console.log(`  ${l}`);
  console.log(`  total ${wall.toFixed(0)} s; peak RSS of any invocation ${Math.max(...phases.map((p) => p.peakMB)).toFixed(0)} MB (target < 500 MB)`);
  return { phases, ok: c.ok };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const sizes = arg("batch-sizes", "100000").split(",").map(Number);
  const expireEvery = Number(arg("expire-every", "4"));
  const work = process.env.IPI_BENCH_BATCH_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "ipi-bench-batch-"));
  let ok = true;
  for (const n of sizes) ok = (await benchBatch(n, work, expireEvery)).ok && ok;
  if (!process.argv.includes("--keep") && !process.env.IPI_BENCH_BATCH_DIR) fs.rmSync(work, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}
