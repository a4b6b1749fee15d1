/**
 * On-CPU profile of a whole `ipi-judge` process, every thread, from Linux `perf` (README-bench.md, "Session 28").
 * `node --cpu-prof` samples the main thread by wall clock: a blocking `readSync` waiting on the host counts as CPU
 * there (13% of a 10,000-item LLM run's samples were `read`, of which ~10x more than the reads cost in CPU), and
 * V8's compiler and GC threads are not seen at all. `perf record -e cpu-clock` samples only what runs, on every
 * thread, with the kernel's share. Usage:
 *
 *   perf record -e cpu-clock -F 1999 -g -o perf.data -- node --perf-basic-prof --interpreted-frames-native-stack \
 *     dist/bin/ipi-judge.js label ...
 *   perf script -i perf.data -F tid,ip,sym > stacks.txt
 *   node bench/perf-stages.mjs stacks.txt <copy of the profiled build's dist/bin>
 *
 * Prints, per thread, its samples and what its leaf frames are (V8 compiler, GC, kernel, JIT code, builtins); for
 * the main thread (the process's first thread id), each sample goes to the source module of its nearest
 * JavaScript frame (bundled lines mapped back through the `// path` comments esbuild writes before each module),
 * grouped by folder (`ours:store`, `nm:openai`, `node:fs`, ...). Keep a copy of `dist/bin` from the profiled build:
 * chunk names and lines change with every build.
 */
import fs from "node:fs";

const [file, bin] = process.argv.slice(2);
if (!file || !bin) {
  console.error("usage: node bench/perf-stages.mjs <perf script output> <dist/bin of the profiled build>");
  process.exit(2);
}
const maps = new Map();
function modOf(url, line) {
  if (!url.includes("/dist/bin/")) return url.replace(/^.*node_modules\//, "nm/").replace(/:\d+:\d+$/, "");
  const f = url.split("/").pop();
  if (!maps.has(f)) {
    const arr = [];
    let cur = f;
    for (const l of fs.readFileSync(`${bin}/${f}`, "utf8").split("\n")) {
      const m = /^\/\/ (\S+\.(js|mjs|cjs|json))$/.exec(l);
      if (m) cur = m[1];
      arr.push(cur);
    }
    maps.set(f, arr);
  }
  return maps.get(f)[line - 1] ?? f;
}
function group(m) {
  let r;
  if ((r = /^dist\/(\w+)/.exec(m))) return `ours:${r[1]}`;
  if ((r = /^(?:nm|node_modules)\/(@[\w.-]+\/[\w.-]+|[\w.-]+)/.exec(m))) return `nm:${r[1]}`;
  if (/^node:/.test(m)) return `node:${m.split("/").pop().replace(/^node:/, "")}`;
  return m;
}
const LEAF = [
  ["V8 compiler", /compiler::|Maglev|Pipeline|Compile(?!Lazy)|Deoptim|Bytecode|Parser|Scanner/],
  ["GC", /Scaveng|Marking|Sweep|Heap::|Evacuat|RememberedSet|MarkCompact|MemoryAllocator/],
  ["JIT code", /^JS:\*/],
  ["interpreted / baseline JS", /^JS:[~^]/],
  ["V8 builtins and runtime", /Builtins_|IC::|Runtime_|v8::internal/],
];
const threads = new Map();
const mainGroups = new Map();
let mainTid;
for (const block of fs.readFileSync(file, "utf8").split("\n\n")) {
  const lines = block.trim().split("\n");
  if (lines.length < 2) continue;
  const tid = lines[0].trim();
  mainTid ??= tid;
  const frames = lines.slice(1).map((l) => l.trim().split(/\s+/).slice(1).join(" "));
  const kernel = /^ffffffff/.test(lines[1].trim());
  const leafKind = kernel ? "kernel" : (LEAF.find(([, re]) => re.test(frames[0]))?.[0] ?? "native (libc, node)");
  const t = threads.get(tid) ?? { n: 0, kinds: new Map() };
  t.n++;
  t.kinds.set(leafKind, (t.kinds.get(leafKind) ?? 0) + 1);
  threads.set(tid, t);
  if (tid !== mainTid) continue;
  const js = frames.map((f) => /^JS:\S?(\S*) (\S+?):(\d+):(\d+)/.exec(f)).find(Boolean);
  const g = js ? group(modOf(js[2], Number(js[3]))) : "(no JS frame: GC, kernel, native)";
  mainGroups.set(g, (mainGroups.get(g) ?? 0) + 1);
}
const all = [...threads.values()].reduce((a, t) => a + t.n, 0);
const pct = (a, b) => `${((100 * a) / b).toFixed(1)}%`;
console.log(`samples ${all} (all threads)`);
for (const [tid, t] of [...threads].sort((a, b) => b[1].n - a[1].n)) {
  if (t.n < all / 200) continue;
  const kinds = [...t.kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${pct(n, t.n)}`).join(", ");
  console.log(`thread ${tid}${tid === mainTid ? " (main)" : ""}: ${t.n} (${pct(t.n, all)}): ${kinds}`);
}
const mainN = threads.get(mainTid)?.n ?? 0;
console.log(`\nmain thread by nearest JavaScript frame's module group (${mainN} samples):`);
for (const [g, n] of [...mainGroups].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${String(n).padStart(7)} ${pct(n, mainN).padStart(6)}  ${g}`);
