/**
 * Self time by function of each stage profile `bench/llm-stages.ts` wrote (`IPI_STAGES_PROFILE=DIR`).
 * Usage: `node bench/llm-stages-prof.mjs DIR [TOP]`.
 */
import fs from "node:fs";
import path from "node:path";

const [dir, topArg] = process.argv.slice(2);
const TOP = Number(topArg ?? 12);
// the profiles of one stage (one per batch: `<k>-<stage>.cpuprofile`) are added up
const byStage = new Map();
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".cpuprofile")).sort((a, b) => parseInt(a) - parseInt(b))) {
  const stage = f.replace(/^\d+-/, "").replace(/\.cpuprofile$/, "");
  if (!byStage.has(stage)) byStage.set(stage, []);
  byStage.get(stage).push(f);
}
for (const [f, files] of byStage) {
  const self = new Map();
  let total = 0;
  for (const file of files) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const dt = p.timeDeltas;
  p.samples.forEach((id, i) => {
    const n = byId.get(id);
    const cf = n.callFrame;
    const key = `${cf.functionName || "(anon)"} ${path.basename(cf.url)}:${cf.lineNumber + 1}`;
    const d = dt[i + 1] ?? 0;
    self.set(key, (self.get(key) ?? 0) + d);
    total += d;
  });
  }
  console.log(`== ${f} (${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
}
