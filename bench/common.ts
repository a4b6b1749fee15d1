/**
 * Helpers shared by the benchmark scripts (`bench/run.ts`, `bench/scale.ts`): the input folders that reach N
 * distinct AgentDojo ids from the 11,384 real runs of `agentdojo-scale.tgz` (copies of its folders), and spawning the
 * measured CLI with the peak-RSS probe (`bench/probe.mjs`).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, "..");
/** The CLI measured (env `IPI_BENCH_CLI` measures another build, e.g. a baseline side by side). */
export const CLI = process.env.IPI_BENCH_CLI ? path.resolve(process.env.IPI_BENCH_CLI) : path.join(ROOT, "dist", "bin", "ipi-judge.js");
/** Runs in `agentdojo-scale.tgz`: each copy adds this many distinct ids. */
export const PER_COPY = 11_384;

/**
 * The model folders of the extracted corpus, then `copies - 1` copies of them as `<model>~r<k>` folders (under
 * `linksDir/r<k>/`). An AgentDojo id is the path from the model folder on, so each copy gives new ids for the same
 * runs. The copies are real files: `label` reads a folder reached through a link, or a hard-linked file, once
 * (`read_once`), so link sets would silently measure 11,384 trajectories at any N. A copy is made under a
 * `.partial` name and renamed when complete; copies already there are reused, link sets of older benches replaced.
 * Disk: about 115 MB per copy (10 GB at 1M).
 */
export function inputsFor(runsDir: string, linksDir: string, copies: number): string[] {
  const models = fs.readdirSync(runsDir).sort();
  const out = models.map((m) => path.join(runsDir, m));
  for (let k = 1; k < copies; k++) {
    const d = path.join(linksDir, `r${k}`);
    fs.mkdirSync(d, { recursive: true });
    for (const m of models) {
      const copy = path.join(d, `${m}~r${k}`);
      const st = fs.lstatSync(copy, { throwIfNoEntry: false });
      if (st?.isSymbolicLink()) fs.rmSync(copy);
      if (!st || st.isSymbolicLink()) {
        const partial = `${copy}.partial`;
        fs.rmSync(partial, { recursive: true, force: true });
        fs.cpSync(path.join(runsDir, m), partial, { recursive: true });
        fs.renameSync(partial, copy);
      }
      out.push(copy);
    }
  }
  return out;
}

/**
 * Spawn `node [extra node args] --import bench/probe.mjs <script> ...args` and time it from spawn to exit (seconds).
 * The probe writes the peak RSS to `probe` at exit (read it with {@link readProbe}).
 */
export function runNode(
  script: string,
  args: string[],
  probe: string,
  opts: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; nice?: number } = {},
): Promise<{ seconds: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), "--import", path.join(HERE, "probe.mjs"), script, ...args], {
      cwd: ROOT,
      env: { ...process.env, IPI_BENCH_PROBE: probe, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ seconds: (performance.now() - t0) / 1000, code, stdout, stderr }));
  });
}

/** The probe's CPU split by thread, ms (`bench/probe.mjs` `threadsMs`): main thread, all others, the busiest other. */
export interface ThreadsMs {
  main: number;
  other: number;
  busiestOther?: number;
}

/** Peak RSS in MB written by `bench/probe.mjs` (null when the probe wrote nothing: the process died early). */
export function readProbe(probe: string): number | null {
  try {
    return JSON.parse(fs.readFileSync(probe, "utf8")).maxRssBytes / (1024 * 1024);
  } catch {
    return null;
  }
}
