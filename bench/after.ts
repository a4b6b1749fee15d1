/**
 * The commands after `label` on large runs: wall time and peak RSS of `agree` (reference, two judges, human),
 * `committee`, `sample`, `estimate` (per judge and `--table`), `compare`, `report` and `view` (start, a list page,
 * a filter, one trajectory, a page at the end, then SIGTERM), each the real CLI spawned on a run built by
 * `bench/scale-run.ts` from a labelled base run (two judges: the base's and a copy with a seeded 10% of its
 * attacked labels changed; a human file of 2,000 rows).
 *
 * Wall: spawn to exit. Peak RSS: `getrusage` of the whole process (`bench/probe.mjs`, preloaded).
 * Usage: `npm run build && node --import tsx bench/after.ts --base labels/scale --sizes 100000,1000000
 *   [--work /tmp/ipi-after-bench] [--only agree,committee] [--keep]` (`--base` defaults to `IPI_BENCH_BASE`;
 * without either the section is skipped with a message: it needs a labelled run of real trajectories, e.g.
 * `ipi-judge label ../shared/corpus/agentdojo-scale --run scale`, ~1.5 min).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildScaleRun } from "./scale-run.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = process.env.IPI_BENCH_CLI ?? path.join(ROOT, "dist/bin/ipi-judge.js");
const PROBE = path.join(ROOT, "bench/probe.mjs");

/** One measured command: its wall time, peak RSS and exit code. */
export interface Measured {
  name: string;
  n: number;
  wall_s: number;
  /** peak RSS in MiB (2^20 bytes: getrusage maxrss x 1024 / 2^20), whatever the field's older name says; the bar is 500 MB = 476.8 MiB */
  peak_rss_mb: number | null;
  exit: number | null;
  /** CPU seconds (user + system, all threads) from the probe; null when the process died before its exit handler. */
  cpu_s: number | null;
  note?: string;
}

/** Spawn the CLI with the probe; `interact` (view) gets the first stdout line and must end the process. */
async function measure(name: string, n: number, args: string[], logDir: string, interact?: (firstLine: string, kill: () => void) => Promise<string>): Promise<Measured> {
  const probe = path.join(os.tmpdir(), `ipi-after-probe-${process.pid}-${name}.json`);
  fs.rmSync(probe, { force: true });
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", PROBE, CLI, ...args], { env: { ...process.env, IPI_BENCH_PROBE: probe }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  // the whole stderr and stdout kept beside the run: the progress lines and the figures (issue 26: "with progress")
  const errLog = fs.createWriteStream(path.join(logDir, `${name}-${n}.stderr`));
  const outLog = fs.createWriteStream(path.join(logDir, `${name}-${n}.stdout`));
  child.stderr!.on("data", (d) => {
    errLog.write(d);
    err = (err + d).slice(-2000);
  });
  let note: string | undefined;
  let out = "";
  const firstLine = new Promise<string>((resolve) => {
    child.stdout!.on("data", (d) => {
      outLog.write(d);
      if (out.length < 4096) out += d;
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
  });
  const done = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  if (interact) note = await interact(await firstLine, () => child.kill("SIGTERM"));
  const exit = await done;
  const wall = (performance.now() - t0) / 1000;
  errLog.end();
  outLog.end();
  let rss: number | null = null;
  let cpu: number | null = null;
  try {
    const p = JSON.parse(fs.readFileSync(probe, "utf8"));
    rss = p.maxRssBytes / 2 ** 20;
    cpu = (p.cpuMs.user + p.cpuMs.system) / 1000;
  } catch {
    /* the process died before its exit handler */
  }
  // 3: finished, the stub judge's rates marked (it never finds compliance: denies_reference_goal), not a failure
  if (exit !== 0 && exit !== 3 && !interact) note = `exit ${exit}: ${err.trim().split("\n").slice(-2).join(" | ")}`;
  return { name, n, wall_s: +wall.toFixed(2), peak_rss_mb: rss === null ? null : Math.round(rss), exit, cpu_s: cpu === null ? null : +cpu.toFixed(1), ...(note ? { note } : {}) };
}

/** The view's session: a list page, a filtered page, one item, the last page; timings in the note. */
async function viewSession(url: string, kill: () => void): Promise<string> {
  const u = new URL(url);
  const tok = u.searchParams.get("token")!;
  const get = async (p: string) => {
    const t = performance.now();
    const r = await fetch(`${u.origin}${p}${p.includes("?") ? "&" : "?"}token=${tok}`);
    const body = (await r.json()) as Record<string, unknown>;
    return { ms: Math.round(performance.now() - t), status: r.status, body };
  };
  // a browser asks for the menus and the judges' health first (GET /api/meta), then the first page
  const meta = await get("/api/meta");
  const list = await get("/api/list?offset=0&limit=100");
  const rows = (list.body.rows as Array<{ id: string }>) ?? [];
  const total = Number(list.body.total ?? 0);
  const filt = await get("/api/list?offset=0&limit=100&label.signature=full_compliance");
  const item = rows[0] ? await get(`/api/item?id=${encodeURIComponent(rows[0].id)}`) : null;
  const last = await get(`/api/list?offset=${Math.max(0, total - 100)}&limit=100`);
  kill();
  return `meta ${meta.ms} ms (${meta.status}), list ${list.ms} ms (${total} rows), filter ${filt.ms} ms, item ${item?.ms ?? "-"} ms (${item?.status ?? "-"}), last page ${last.ms} ms`;
}

/** Run every command on one run folder. */
export async function benchAfter(labelsDir: string, run: string, n: number, human: string, work: string, only?: Set<string>): Promise<Measured[]> {
  const common = ["--run", run, "--labels-dir", labelsDir];
  const cmds: Array<[string, string[], ((l: string, k: () => void) => Promise<string>)?]> = [
    ["agree-reference", ["agree", ...common, "--reference", "security", "--json"]],
    ["agree-judges", ["agree", ...common, "--judges", "signature,sig2", "--json"]],
    ["agree-human", ["agree", ...common, "--human", human, "--bootstrap", "200", "--json"]],
    ["committee", ["committee", ...common, "--bootstrap", "0", "--json"]],
    ["sample", ["sample", ...common, "--random", "500", "--disagreement", "100", "--seed", "1", "--force", "--out", path.join(work, `sample-${n}`), "--json"]],
    ["estimate-table", ["estimate", ...common, "--table", "--judge", "sig2", "--json"]],
    ["estimate-committee", ["estimate", ...common, "--table", "--committee", "--json"]],
    ["compare", ["compare", ...common, "--judge", "signature", "--bootstrap", "200", "--json"]],
    ["report", ["report", ...common, "--out", path.join(work, `report-${n}.html`), "--bootstrap", "200", "--json"]],
    ["view", ["view", ...common, "--no-open"], viewSession],
  ];
  const out: Measured[] = [];
  for (const [name, args, interact] of cmds) {
    if (only && !only.has(name) && !only.has(name.split("-")[0])) continue;
    const m = await measure(name, n, args, work, interact);
    out.push(m);
    const load = os.loadavg()[0].toFixed(1);
    console.log(`${String(n).padStart(8)} ${name.padEnd(18)} ${m.wall_s.toFixed(1).padStart(7)} s ${String(m.cpu_s ?? "?").padStart(6)} s CPU ${String(m.peak_rss_mb ?? "?").padStart(6)} MiB  load ${load}${m.note ? `  ${m.note}` : ""}`);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string, dflt?: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const base = arg("base", process.env.IPI_BENCH_BASE);
  if (!base || !fs.existsSync(path.join(base, "verdicts.jsonl"))) {
    console.log(`after-label section skipped: give --base (or IPI_BENCH_BASE) a labelled run of real trajectories (got ${base ?? "none"})`);
    process.exit(0);
  }
  const sizes = (arg("sizes", "100000,1000000") ?? "").split(",").map(Number);
  const work = path.resolve(arg("work", path.join(os.tmpdir(), "ipi-after-bench"))!);
  const only = arg("only") ? new Set(arg("only")!.split(",")) : undefined;
  const reuse = process.argv.includes("--reuse");
  fs.mkdirSync(work, { recursive: true });
  console.log(`after label: ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}, ${new Date().toISOString()}`);
  const all: Measured[] = [];
  for (const n of sizes) {
    const name = `after${n}`;
    const human = path.join(work, `human-${n}.jsonl`);
    if (!(reuse && fs.existsSync(path.join(work, "labels", name, "verdicts.jsonl")))) {
      const t0 = performance.now();
      const r = buildScaleRun({ base, n, out: path.join(work, "labels"), name, secondJudge: "sig2", flip: 0.1, human, humanN: 2000, seed: 1 });
      console.log(`built ${r.dir}: ${r.trajectories} trajectories, ${r.verdicts} verdicts, ${(fs.statSync(path.join(r.dir, "verdicts.jsonl")).size / 1e6).toFixed(0)} MB of verdicts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    all.push(...(await benchAfter(path.join(work, "labels"), name, n, human, work, only)));
    if (!process.argv.includes("--keep")) fs.rmSync(path.join(work, "labels", name), { recursive: true, force: true });
  }
  console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  if (arg("json-out")) fs.writeFileSync(arg("json-out")!, JSON.stringify(all, null, 2) + "\n");
}
