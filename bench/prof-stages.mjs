/**
 * CPU profile of `ipi-judge label` grouped by stage (README-bench.md, "LLM CPU, round five"): start-up, ingest,
 * rendering, SDK, transport, reply parse, evidence, store, summaries, GC. Usage:
 * `node bench/prof-stages.mjs <file.cpuprofile> <dist/bin of the profiled build> <items> [measured CPU ms]`, with the
 * profile from `IPI_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" node --import tsx bench/run.ts ...`.
 * Each main-thread sample goes to the stage of the nearest frame of its stack (leaf first) whose module belongs to a
 * stage; bundled lines are mapped to their source module by the `// path` comments esbuild writes before each
 * module; a stack under Node's module loader counts as start-up; idle samples are left out. With the measured CPU
 * (user + system of the whole process), each stage's share is also given as ms per item. Keep a copy of `dist/bin`
 * from the profiled build: chunk names and lines change with every build.
 */
import fs from "node:fs";
const [file, binCopy, items, cpuMs] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n])); const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const maps = new Map();
function modOf(cf) {
  const url = cf.url; if (!url) return "(native) " + cf.functionName;
  if (!url.includes("/dist/bin/")) return url;
  const f = url.split("/").pop();
  if (!maps.has(f)) { const arr = []; let cur = f; for (const l of fs.readFileSync(`${binCopy}/${f}`, "utf8").split("\n")) { const m = /^\/\/ (\S+\.(js|mjs|cjs|json))$/.exec(l); if (m) cur = m[1]; arr.push(cur); } maps.set(f, arr); }
  return maps.get(f)[cf.lineNumber] ?? f;
}
function stageOfMod(m) {
  if (/node_modules\/openai/.test(m)) return "SDK (openai)";
  if (/node_modules\/zod|judges\/parse|judges\//.test(m)) return "reply parse + judge (zod, conversation)";
  if (/node_modules\/undici|providers\/chat-transport|^node:(net|_http|internal\/deps\/undici|internal\/stream_base_commons)|^\(native\) (writev|writeBuffer|writeUtf8String)|wasm/.test(m)) return "transport (undici, socket)";
  if (/dist\/providers/.test(m)) return "our request code (providers: body, send, fetch, signals)";
  if (/dist\/ingest|yauzl|jsonc-parser/.test(m)) return "ingest (read, parse, convert)";
  if (/dist\/serialize|dist\/rubric/.test(m)) return "rendering (serialize, rubric)";
  if (/dist\/evidence|dist\/verdict/.test(m)) return "evidence verification + verdict";
  if (/dist\/store|dist\/io\/hash|dist\/run\/resume/.test(m)) return "store writes (journal, columns, hashes)";
  if (/dist\/(summary|stats|report)|@stdlib/.test(m)) return "summaries";
  if (/dist\/(run|cli|io)|commander|p-limit/.test(m)) return "run loop / CLI";
  return undefined;
}
const self = new Map(); for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const st = new Map(); let busy = 0;
for (const [id, t] of self) {
  const n = byId.get(id); const fn = n.callFrame.functionName; let s;
  if (fn === "(idle)") continue;
  busy += t;
  if (fn === "(garbage collector)") s = "GC (main thread)"; else if (fn === "(program)") s = "V8 other ((program))";
  else {
    let c = id; const chain = []; while (c !== undefined) { chain.push(byId.get(c)); c = parent.get(c); }
    if (chain.some((x) => /^node:internal\/(modules|bootstrap|main|process\/pre_execution)/.test(x.callFrame.url) )) s = "start-up + module loading";
    else for (const x of chain) { const m = stageOfMod(modOf(x.callFrame)); if (m) { s = m; break; } }
    s ??= "node (other: timers, microtasks, fs)";
  }
  st.set(s, (st.get(s) ?? 0) + t);
}
const scale = cpuMs ? Number(cpuMs) / busy : 1;
console.log(`busy main-thread samples ${(busy / 1000).toFixed(0)} ms; ms/item scaled to measured CPU ${cpuMs ?? "-"} ms over ${items} items`);
console.log("| stage | share of busy samples | ms/item (scaled) |\n|---|---|---|");
for (const [s, t] of [...st].sort((a, b) => b[1] - a[1])) console.log(`| ${s} | ${(100 * t / busy).toFixed(1)}% | ${(t / busy * Number(cpuMs) / Number(items)).toFixed(3)} |`);
