/**
 * Inclusive main-thread time of a `label` CPU profile by source folder, module and function of ours (issue 26 part 2:
 * a flat self-time profile hides which whole stage costs what; inclusive time says what skipping a stage would save).
 * Usage: `node bench/prof-inclusive.mjs <file.cpuprofile> <dist/bin of the profiled build> <items> [top functions]`,
 * with the profile from `node --cpu-prof --cpu-prof-dir=DIR dist/bin/ipi-judge.js label ... --limit N`; keep a copy of
 * `dist/bin` of the profiled build (chunk names and lines change with every build).
 *
 * Each sample's time counts once for every distinct folder (module, function) on its stack: a stage's figure includes
 * what it calls, and the rows overlap (they do not add up to 100%). Bundled lines are mapped to their source module by
 * the `// path` comments esbuild writes before each module (`dist/x/y.js` is shown as `src/x/y.js`); packages are
 * grouped by name (`nm/openai`). Idle samples are left out. The stacks are synchronous: work an `await` resumes is
 * counted under the event loop's frames (`node:internal/process/task_queues`, timers), not under the function that
 * awaited. The figures are ms of sampled wall time per item: under load they include time the thread was not on a
 * core (scale by the measured CPU to compare with it), and blocking system calls (`read`) count their wait.
 */
import fs from "node:fs";

const [file, bin, items, topArg] = process.argv.slice(2);
if (!file || !bin || !items) {
  console.error("usage: node bench/prof-inclusive.mjs <file.cpuprofile> <dist/bin copy> <items> [top]");
  process.exit(2);
}
const N = Number(items);
const TOP = Number(topArg ?? 60);
const p = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Module path of each line of each bundled file, from esbuild's `// path` comments. */
const lineMods = new Map();
function moduleOf(cf) {
  const url = cf.url;
  if (!url) return "(native)";
  let mod = url;
  if (url.includes("/dist/bin/")) {
    const f = url.split("/").pop();
    if (!lineMods.has(f)) {
      const arr = [];
      let cur = f;
      for (const l of fs.readFileSync(`${bin}/${f}`, "utf8").split("\n")) {
        const m = /^\/\/ (\S+\.(js|mjs|cjs|json|ts))$/.exec(l);
        if (m) cur = m[1];
        arr.push(cur);
      }
      lineMods.set(f, arr);
    }
    mod = lineMods.get(f)[cf.lineNumber] ?? f;
  }
  return mod
    .replace(/^dist\//, "src/")
    .replace(/^.*node_modules\//, "nm/")
    .replace(/^(nm\/@[^/]+\/[^/]+|nm\/[^/@]+)\/.*/, "$1");
}

const info = new Map();
function infoOf(id) {
  let r = info.get(id);
  if (r) return r;
  const cf = byId.get(id).callFrame;
  const mod = moduleOf(cf);
  const folder = mod.startsWith("src/") ? mod.split("/").slice(0, 2).join("/") : mod.startsWith("node:") ? "node:*" : mod;
  r = { mod, folder, fn: mod.startsWith("src/") ? `${cf.functionName || "(anon)"} ${mod}:${cf.lineNumber + 1}` : undefined };
  info.set(id, r);
  return r;
}

const byFolder = new Map();
const byModule = new Map();
const byFn = new Map();
let busy = 0;
let gc = 0;
for (let i = 0; i < p.samples.length; i++) {
  const id = p.samples[i];
  const t = p.timeDeltas[i + 1] ?? 0;
  const leaf = byId.get(id).callFrame.functionName;
  if (leaf === "(idle)") continue;
  if (leaf === "(garbage collector)") gc += t;
  busy += t;
  const folders = new Set();
  const modules = new Set();
  const fns = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const r = infoOf(x);
    folders.add(r.folder);
    modules.add(r.mod);
    if (r.fn) fns.add(r.fn);
  }
  for (const k of folders) byFolder.set(k, (byFolder.get(k) ?? 0) + t);
  for (const k of modules) byModule.set(k, (byModule.get(k) ?? 0) + t);
  for (const k of fns) byFn.set(k, (byFn.get(k) ?? 0) + t);
}

const perItem = (us) => (us / 1000 / N).toFixed(3);
console.log(`busy main-thread samples ${perItem(busy)} ms/item (garbage collector ${perItem(gc)}), ${N} items`);
function show(title, m, top) {
  console.log(`\n== ${title} (ms/item, share of busy)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${perItem(v).padStart(8)} ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
}
show("inclusive by folder", byFolder, 30);
show("inclusive by module", byModule, 50);
show("inclusive by function of ours", byFn, TOP);
