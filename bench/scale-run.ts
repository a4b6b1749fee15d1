/**
 * Build a large run folder from a real labelled one (a bench fixture, not a test): every journal line of the base
 * run (`verdicts.jsonl`, `trajectories.jsonl`) is copied with its trajectory id suffixed `~r<k>` (k = 0, 1, ...)
 * until `--n` trajectories, consistently across the files, so every command after `label` sees a valid run whose
 * index rows still point at the real source files (a trajectory page still opens).
 *
 * With `--second-judge ID`, each trajectory also gets a verdict of a second judge: the base verdict under that
 * judge id (and its judge_model `ID-v1`), its label changed on a seeded fraction (`--flip`, default 0.1) of the
 * attacked trajectories with a decided label (to another bucket of the six, `label_claimed` and `compromised`
 * with it), so `agree --judges`, `committee` and `compare --committee` have disagreements to find.
 * With `--human FILE --human-n M`, M attacked trajectories drawn at random (seeded) get one human label row each
 * (JSONL `trajectory_id, annotator, label`): the first judge's label, changed on a seeded 15%.
 *
 * Lines are written as the base stores them (only the id and the second judge's fields change), streamed: the
 * base run is held once in memory (11,384 lines: ~40 MB), never the output.
 *
 * Usage: `node --import tsx bench/scale-run.ts --base labels/scale --n 1000000 --out /tmp/labels --name s1m
 *   [--second-judge sig2 --flip 0.1] [--human /tmp/human.jsonl --human-n 2000] [--seed 1]`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BUCKETS } from "../src/types.js";

/** One base line split around its id: `head + id + suffix + tail`. */
interface SplitLine {
  head: string;
  id: string;
  tail: string;
}

/** Deterministic 32-bit PRNG (mulberry32). @returns a function giving floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Split a journal line around the first `"<key>":"<id>"` (the id key comes first in both journals). */
function splitAt(line: string, key: string, id: string): SplitLine {
  const needle = `"${key}":${JSON.stringify(id)}`;
  const at = line.indexOf(needle);
  if (at < 0) throw new Error(`line has no ${needle}`);
  const idStart = at + key.length + 4; // `"key":"`
  const idEnd = idStart + JSON.stringify(id).length - 2;
  return { head: line.slice(0, idStart), id: line.slice(idStart, idEnd), tail: line.slice(idEnd) };
}

/** The base verdict as the second judge's: judge id and model renamed, its label changed when `flip`. */
function secondJudgeLine(line: string, judge: string, flip: boolean, pick: () => number): string {
  const v = JSON.parse(line) as Record<string, unknown>;
  v.judge_id = judge;
  v.judge_model = `${judge}-v1`;
  if (flip && typeof v.label === "string") {
    const others = BUCKETS.filter((b) => b !== v.label);
    const to = others[Math.floor(pick() * others.length)];
    v.label = to;
    v.label_claimed = to;
    v.compromised = to === "full_compliance" || to === "partial_compliance";
  }
  return JSON.stringify(v);
}

/** Buffered line writer (one `writeSync` per ~1 MiB). */
function writer(file: string): { line: (s: string) => void; close: () => void } {
  const fd = fs.openSync(file, "w");
  let buf: string[] = [];
  let size = 0;
  const flush = () => {
    if (buf.length) fs.writeSync(fd, buf.join(""));
    buf = [];
    size = 0;
  };
  return {
    line(s) {
      buf.push(s, "\n");
      size += s.length + 1;
      if (size > 1 << 20) flush();
    },
    close() {
      flush();
      fs.closeSync(fd);
    },
  };
}

/** Options of {@link buildScaleRun}. */
export interface ScaleRunOptions {
  /** the labelled base run folder (holds verdicts.jsonl, trajectories.jsonl, store.json) */
  base: string;
  /** trajectories wanted */
  n: number;
  /** labels dir to create the run in */
  out: string;
  /** the new run's name */
  name: string;
  secondJudge?: string;
  /** fraction of decided attacked verdicts whose label the second judge changes (default 0.1) */
  flip?: number;
  human?: string;
  humanN?: number;
  seed?: number;
}

/**
 * Write the scaled run `<out>/<name>/` (and the human file when asked).
 * @returns the run folder, and the trajectory and verdict counts written.
 * @throws Error when the base is not a run folder or a line lacks its id.
 */
export function buildScaleRun(o: ScaleRunOptions): { dir: string; trajectories: number; verdicts: number } {
  const base = path.resolve(o.base);
  if (!fs.existsSync(path.join(base, "verdicts.jsonl"))) throw new Error(`--base ${base}: not a run folder (no verdicts.jsonl)`);
  const dir = path.join(path.resolve(o.out), o.name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const lines = (f: string) => fs.readFileSync(path.join(base, f), "utf8").split("\n").filter((l) => l.trim() !== "");
  const index = lines("trajectories.jsonl").map((l) => splitAt(l, "id", (JSON.parse(l) as { id: string }).id));
  const byId = new Map<string, SplitLine[]>();
  const attacked = new Set<string>();
  const labelOf = new Map<string, string>();
  for (const l of lines("verdicts.jsonl")) {
    const v = JSON.parse(l) as { trajectory_id: string; label?: string | null; attacked?: boolean };
    const s = splitAt(l, "trajectory_id", v.trajectory_id);
    byId.set(s.id, [...(byId.get(s.id) ?? []), s]);
    if (v.attacked && typeof v.label === "string") {
      attacked.add(s.id);
      labelOf.set(s.id, v.label);
    }
  }
  const seed = o.seed ?? 1;
  const flipRate = o.flip ?? 0.1;
  const flipDraw = rng(seed);
  const pick = rng(seed + 1);
  const ti = writer(path.join(dir, "trajectories.jsonl"));
  const vi = writer(path.join(dir, "verdicts.jsonl"));
  const second = new Map<SplitLine, SplitLine>(); // the base verdict as the second judge's, unflipped (cached)
  let made = 0;
  let verdicts = 0;
  for (let k = 0; made < o.n; k++) {
    const suffix = `~r${k}`;
    for (const row of index) {
      if (made >= o.n) break;
      ti.line(row.head + row.id + suffix + row.tail);
      for (const v of byId.get(row.id) ?? []) {
        vi.line(v.head + v.id + suffix + v.tail);
        verdicts++;
        if (!o.secondJudge) continue;
        const flip = attacked.has(row.id) && flipDraw() < flipRate;
        let s: SplitLine;
        if (flip) {
          const line = secondJudgeLine(v.head + v.id + v.tail, o.secondJudge, true, pick);
          s = splitAt(line, "trajectory_id", v.id);
        } else {
          s = second.get(v) ?? splitAt(secondJudgeLine(v.head + v.id + v.tail, o.secondJudge, false, pick), "trajectory_id", v.id);
          second.set(v, s);
        }
        vi.line(s.head + s.id + suffix + s.tail);
        verdicts++;
      }
      made++;
    }
  }
  ti.close();
  vi.close();
  for (const f of ["errors.jsonl"]) if (fs.existsSync(path.join(base, f))) fs.writeFileSync(path.join(dir, f), "");
  const store = JSON.parse(fs.readFileSync(path.join(base, "store.json"), "utf8")) as Record<string, unknown> & {
    judges: Array<Record<string, unknown>>;
    counts?: Record<string, number>;
  };
  store.run = o.name;
  if (o.secondJudge) store.judges = [...store.judges, { ...store.judges[0], id: o.secondJudge, model: `${o.secondJudge}-v1` }];
  store.counts = { ...(store.counts ?? {}), trajectories: made, verdicts, errors: 0 };
  fs.writeFileSync(path.join(dir, "store.json"), JSON.stringify(store, null, 2) + "\n");
  if (o.human) writeHuman(o.human, o.humanN ?? 2000, [...attacked], labelOf, o.n, index.length, seed + 2);
  return { dir, trajectories: made, verdicts };
}

/** Human label rows for `m` attacked trajectories of the scaled run, drawn at random; 15% of the labels changed. */
function writeHuman(file: string, m: number, attacked: string[], labelOf: Map<string, string>, n: number, perCopy: number, seed: number): void {
  const r = rng(seed);
  const copies = Math.ceil(n / perCopy);
  const seen = new Set<string>();
  const w = writer(file);
  for (let tries = 0; seen.size < m && tries < m * 20; tries++) {
    const id = attacked[Math.floor(r() * attacked.length)];
    const k = Math.floor(r() * copies);
    const full = `${id}~r${k}`;
    if (seen.has(full)) continue;
    seen.add(full);
    let label = labelOf.get(id)!;
    if (r() < 0.15) {
      const others = BUCKETS.filter((b) => b !== label);
      label = others[Math.floor(r() * others.length)];
    }
    w.line(JSON.stringify({ trajectory_id: full, annotator: "a1", label }));
  }
  w.close();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string, dflt?: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const t0 = performance.now();
  const r = buildScaleRun({
    base: arg("base") ?? "",
    n: Number(arg("n", "100000")),
    out: arg("out", "/tmp/ipi-scale-labels")!,
    name: arg("name", "scale")!,
    secondJudge: arg("second-judge"),
    flip: Number(arg("flip", "0.1")),
    human: arg("human"),
    humanN: Number(arg("human-n", "2000")),
    seed: Number(arg("seed", "1")),
  });
  process.stderr.write(`${r.dir}: ${r.trajectories} trajectories, ${r.verdicts} verdicts in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
