/**
 * The scale section of `npm run bench` (issue 26): `label` with the offline signature judge on 100,000 and
 * 1,000,000 trajectories made from the 11,384 real runs of `agentdojo-scale.tgz` (copies of its folders, `./common.ts`
 * `inputsFor`), side by side in one run with a bare read + `JSON.parse` of the same files:
 *
 * - **bare parse** (`bench/bare-parse.mjs`, a child process): the first N `*.json` files in `label`'s order, read
 *   and parsed, nothing kept, after one untimed pass that warms the page cache (as label's own read is warm): wall
 *   time from spawn to exit, peak RSS;
 * - **label**: `ipi-judge label <folders> --run s<N> --labels-dir <tmp> --limit N --json` (signature judge, the
 *   default), wall from spawn to exit, peak RSS (`bench/probe.mjs`), and its ratio to the bare parse (target <= 5x);
 * - **resume**: the same command again over the finished run (nothing to judge): wall (target < 2 min at 1M), RSS.
 * Peak RSS target for `label` and the resume: < 500 MB.
 *
 * Options: `--scale-sizes 100000,1000000` (default), `--scale-only` (from `bench/run.ts`: only this section),
 * `--no-scale` (skip it). Standalone: `node --import tsx bench/scale.ts [--scale-sizes N,...]` (builds nothing: run
 * `npm run build` first). Env `IPI_BENCH_RUNS` names an extracted `runs/` folder instead of extracting the archive.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CLI, HERE, inputsFor, PER_COPY, readProbe, ROOT, runNode, type ThreadsMs } from "./common.js";

/** Targets of issue 26 (printed as PASS/FAIL). */
export const SCALE_TARGETS = { ratio: 5, rssMB: 500, resumeSeconds: 120 };

/** The sizes of `--scale-sizes` (default 100,000 and 1,000,000). */
export function scaleSizes(argv: string[] = process.argv): number[] {
  const i = argv.indexOf("--scale-sizes");
  const v = i >= 0 && argv[i + 1] ? argv[i + 1] : "100000,1000000";
  const sizes = v.split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error(`--scale-sizes takes positive integers, comma-separated, not "${v}"`);
  return sizes;
}

interface Row {
  n: number;
  bare: { s: number; mb: number | null };
  label: { s: number; mb: number | null; verdicts: number | null };
  resume: { s: number; mb: number | null; skipped: number | null };
}

const f1 = (x: number | null) => (x === null ? "n/a (no probe)" : x.toFixed(0));

/**
 * Run the scale section over an extracted `runs/` folder; prints a table and PASS/FAIL per target.
 * @param runsDir the extracted archive's `runs/`; @param tmp a scratch folder (links and run folders go there).
 * @returns true when every target is met.
 */
export async function scaleSection(runsDir: string, tmp: string, sizes: number[]): Promise<boolean> {
  console.log(`\n== scale: signature label vs a bare read + JSON.parse of the same files (sizes ${sizes.join(", ")}) ==`);
  const labels = path.join(tmp, "scale-labels");
  fs.mkdirSync(labels, { recursive: true });
  const rows: Row[] = [];
  let pass = true;
  for (const n of sizes) {
    const inputs = inputsFor(runsDir, path.join(tmp, "links"), Math.ceil(n / PER_COPY));
    const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
    console.log(`N=${n}: ${inputs.length} input folders; load average ${load()}`);
    const pb = path.join(tmp, `probe-bare-${n}.json`);
    // One untimed pass first: the first read of a folder comes from disk, every later one (label's, resume's) from the
    // page cache, so a cold bare read would make label look up to 7x faster than it is (session 51: 2.30x "PASS" at
    // 11,384 cold against 14-15x warm). The ratio compares two warm reads.
    const warm = await runNode(path.join(HERE, "bare-parse.mjs"), [String(n), ...inputs], path.join(tmp, `probe-warm-${n}.json`));
    if (warm.code !== 0) throw new Error(`bare parse failed: ${warm.stderr}`);
    console.log(`  warm-up read (untimed in the ratio): ${warm.seconds.toFixed(1)} s`);
    const bare = await runNode(path.join(HERE, "bare-parse.mjs"), [String(n), ...inputs], pb);
    if (bare.code !== 0) throw new Error(`bare parse failed: ${bare.stderr}`);
    console.log(`  bare parse: ${bare.seconds.toFixed(1)} s, ${f1(readProbe(pb))} MB (${bare.stdout.trim()}); load ${load()}`);
    const args = ["label", ...inputs, "--run", `s${n}`, "--labels-dir", labels, "--limit", String(n), "--json"];
    const pl = path.join(tmp, `probe-label-${n}.json`);
    const lab = await runNode(CLI, args, pl);
    const labOut = parseJson(lab.stdout);
    if (lab.code !== 0 && !labOut) throw new Error(`label failed (exit ${lab.code}): ${lab.stderr.slice(-2000)}`);
    const verdicts = labOut?.this_run?.judged ?? null;
    console.log(`  label: ${lab.seconds.toFixed(1)} s, ${f1(readProbe(pl))} MB, ${verdicts} judged (exit ${lab.code}); load ${load()}`);
    console.log(`  label CPU: ${cpuSplit(pl, lab.seconds)}`);
    const pr = path.join(tmp, `probe-resume-${n}.json`);
    const res = await runNode(CLI, args, pr);
    const resOut = parseJson(res.stdout);
    const skipped = resOut?.this_run?.skipped ?? null;
    console.log(`  resume: ${res.seconds.toFixed(1)} s, ${f1(readProbe(pr))} MB, ${skipped} skipped (exit ${res.code}); load ${load()}`);
    rows.push({ n, bare: { s: bare.seconds, mb: readProbe(pb) }, label: { s: lab.seconds, mb: readProbe(pl), verdicts }, resume: { s: res.seconds, mb: readProbe(pr), skipped } });
    fs.rmSync(path.join(labels, `s${n}`), { recursive: true, force: true });
  }
  console.log("\n| N | bare read+parse | label (signature) | label / bare | label peak RSS | resume | resume peak RSS |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const ratio = r.label.s / r.bare.s;
    console.log(
      `| ${r.n} | ${r.bare.s.toFixed(1)} s, ${f1(r.bare.mb)} MB | ${r.label.s.toFixed(1)} s | ${ratio.toFixed(2)}x | ${f1(r.label.mb)} MB | ${r.resume.s.toFixed(1)} s | ${f1(r.resume.mb)} MB |`,
    );
    const checks: Array<[string, boolean]> = [
      [`label / bare <= ${SCALE_TARGETS.ratio}x`, ratio <= SCALE_TARGETS.ratio],
      [`label peak RSS < ${SCALE_TARGETS.rssMB} MB`, r.label.mb !== null && r.label.mb < SCALE_TARGETS.rssMB],
      [`resume peak RSS < ${SCALE_TARGETS.rssMB} MB`, r.resume.mb !== null && r.resume.mb < SCALE_TARGETS.rssMB],
      [`resume < ${SCALE_TARGETS.resumeSeconds} s`, r.resume.s < SCALE_TARGETS.resumeSeconds],
      // every one of the N inputs judged: a count short of N measures fewer trajectories than the row says
      [`label judged all ${r.n}`, r.label.verdicts === r.n],
      [`resume judged nothing`, r.resume.skipped === r.label.verdicts],
    ];
    for (const [what, ok] of checks) {
      console.log(`  N=${r.n}: ${ok ? "PASS" : "FAIL"} ${what}`);
      pass &&= ok;
    }
  }
  return pass;
}

/**
 * The CPU a `label` used, from its probe (`bench/probe.mjs`): user + system seconds, how many cores that is over
 * `wall` seconds, and the split between the main thread (reading, converting, hashing, storing), the busiest other
 * thread (on the 2-core machine the signature judge's one worker: the analysis; with more cores one of several) and the rest (V8's garbage-collection and compiler helper
 * threads, libuv's pool). On the 2-core machine the wall time cannot fall below half the total: what one thread is
 * relieved of runs on the other core (issue 26, session 25).
 */
function cpuSplit(probe: string, wall: number): string {
  let p: { cpuMs?: { user: number; system: number }; threadsMs?: ThreadsMs };
  try {
    p = JSON.parse(fs.readFileSync(probe, "utf8"));
  } catch {
    return "n/a (no probe)";
  }
  if (!p.cpuMs) return "n/a (no probe)";
  const total = (p.cpuMs.user + p.cpuMs.system) / 1000;
  const t = p.threadsMs;
  const split =
    t && t.busiestOther !== undefined
      ? `; main thread ${(t.main / 1000).toFixed(1)} s, busiest other thread (${os.availableParallelism() <= 2 ? "the one signature worker" : "one of the signature workers"}) ${(t.busiestOther / 1000).toFixed(1)} s, the other threads (V8's GC and compiler helpers, libuv, any further workers) ${((t.other - t.busiestOther) / 1000).toFixed(1)} s`
      : "";
  return `${total.toFixed(1)} s user + system (${(total / wall).toFixed(2)} cores over the wall time)${split}`;
}

function parseJson(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

// standalone: `node --import tsx bench/scale.ts [--scale-sizes N,...]`
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-scale-"));
  process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));
  let runsDir = process.env.IPI_BENCH_RUNS;
  if (!runsDir) {
    const tgz = process.env.IPI_BENCH_TGZ ?? path.resolve(ROOT, "../shared/corpus/agentdojo-scale.tgz");
    execFileSync("tar", ["-xzf", tgz, "-C", tmp]);
    runsDir = path.join(tmp, "runs");
  }
  console.log(`ipi-judge scale bench — node ${process.version}, ${os.cpus().length} cores, commit ${gitCommit()}, ${new Date().toISOString()}`);
  const ok = await scaleSection(runsDir, tmp, scaleSizes());
  console.log(ok ? "SCALE TARGETS MET" : "SCALE TARGETS MISSED");
  process.exitCode = ok ? 0 : 1;
}

/** The commit measured (short hash, `+dirty` when the tree has changes). */
export function gitCommit(): string {
  try {
    const h = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: ROOT }).toString().trim() !== "";
    return dirty ? `${h}+dirty` : h;
  } catch {
    return "unknown";
  }
}
