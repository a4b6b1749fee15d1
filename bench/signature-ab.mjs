/**
 * The signature judge's own CPU, two builds compared in one process (issue 26): every trajectory of a corpus is judged
 * on the calling thread (`workers: 0`) by build A and by build B, in chunks that alternate A-B / B-A, so both builds
 * see the same load at the same moments (on a busy 2-core host, separate runs of the same build differed by 10-30%).
 * Reading, converting and parsing are outside the measured spans. Prints CPU (user + system of the process: GC and
 * compiler threads included) and wall time per trajectory for each build, their ratio, and whether the verdicts
 * (`created_at` fixed) are byte-identical.
 *
 * Usage: `node bench/signature-ab.mjs <distA> <distB> <runs folder> [chunk=50]`, e.g.
 * `node bench/signature-ab.mjs /tmp/main-dist ./dist /tmp/corpus/agentdojo-scale/runs`. Each build's judge has its own
 * module instances (its memo and table caches); copy a build's `dist` to a folder of its own to compare it with itself.
 */
import { createHash } from "node:crypto";
import path from "node:path";

const [distA, distB, runs, chunkArg] = process.argv.slice(2);
if (!distA || !distB || !runs) {
  console.error("usage: node bench/signature-ab.mjs <distA> <distB> <runs folder> [chunk]");
  process.exit(2);
}
const chunk = Number(chunkArg ?? 50);
const load = async (dist) => (await import(path.resolve(dist, "judges/signature/index.js"))).createSignatureJudge({ workers: 0, now: () => new Date(0) });
const judges = { A: await load(distA), B: await load(distB) };
const { readTrajectories } = await import(path.resolve(distA, "ingest/index.js"));
// JSON texts, parsed just before judging: each build judges its own copy, as a worker receives its own clone
const texts = [];
for await (const it of readTrajectories([runs])) if (it.kind === "trajectory") texts.push(JSON.stringify(it.trajectory));
const cpu = { A: 0, B: 0 };
const wall = { A: 0, B: 0 };
const hash = { A: createHash("sha256"), B: createHash("sha256") };

async function run(name, from, to) {
  const ts = [];
  for (let i = from; i < to; i++) ts.push(JSON.parse(texts[i]));
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (const t of ts) hash[name].update(JSON.stringify(await judges[name].judge(t, { repeat: 0 })) + "\n");
  const c = process.cpuUsage(c0);
  cpu[name] += c.user + c.system;
  wall[name] += performance.now() - w0;
}

for (let k = 0, r = 0; k < texts.length; k += chunk, r++) {
  const to = Math.min(texts.length, k + chunk);
  const order = r % 2 === 0 ? ["A", "B"] : ["B", "A"];
  for (const name of order) await run(name, k, to);
}
const n = texts.length;
const per = (x) => (x / n).toFixed(1);
console.log(
  `${n} trajectories | A cpu ${per(cpu.A)} us wall ${per(wall.A * 1000)} us | B cpu ${per(cpu.B)} us wall ${per(wall.B * 1000)} us | ` +
    `B/A cpu ${(cpu.B / cpu.A).toFixed(3)} wall ${(wall.B / wall.A).toFixed(3)} | verdicts identical: ${hash.A.digest("hex") === hash.B.digest("hex")}`,
);
