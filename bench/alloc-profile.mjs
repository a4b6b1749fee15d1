/**
 * Bytes allocated per item by function, collected objects included (issue 26 part 2: on the LLM path the young
 * generation's collections copy what the requests in flight hold, and their number follows the bytes allocated per
 * request; unlike CPU seconds on a shared 2-core host, the bytes do not move with the load).
 *
 * Two uses of one file:
 * - as a preload, `IPI_ALLOC_OUT=F node --import ./bench/alloc-profile.mjs dist/bin/ipi-judge.js label ... --limit N`:
 *   V8's sampling heap profiler (`HeapProfiler.startSampling`, one sample per 4 KiB on average, with
 *   `includeObjectsCollectedByMajorGC` and `...MinorGC` so garbage counts too) runs from start-up to exit, and the
 *   profile is written to F (default `alloc.heapprofile` in the working directory);
 * - as a program, `node bench/alloc-profile.mjs F N [self|incl] [top]`: KB per item (the profile's bytes / N) by function,
 *   self (allocated in the function itself, the default) or inclusive (in it or anything it called, each sample
 *   counted once per distinct function on its stack). Start-up is included: use N large enough (2,000) or subtract a
 *   run of 1 item.
 * Main thread only (the profiler's session is the main isolate's). The sampling interval makes each figure an
 * estimate: two runs of the same build agree to a few percent on the larger rows.
 */
import fs from "node:fs";
import inspector from "node:inspector";
import path from "node:path";
import { fileURLToPath } from "node:url";

const asProgram = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (!asProgram) {
  const session = new inspector.Session();
  session.connect();
  session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  process.on("exit", () => {
    // the inspector's callbacks run synchronously on the session's own thread of control: the file is written before exit
    session.post("HeapProfiler.stopSampling", (err, r) => {
      if (err) process.stderr.write(`alloc-profile: ${err.message}\n`);
      else fs.writeFileSync(process.env.IPI_ALLOC_OUT ?? "alloc.heapprofile", JSON.stringify(r.profile));
    });
  });
} else {
  const [file, items, mode = "self", topArg = "45"] = process.argv.slice(2);
  if (!file || !items) {
    console.error("usage: node bench/alloc-profile.mjs <file.heapprofile> <items> [self|incl] [top]");
    process.exit(2);
  }
  const n = Number(items);
  const profile = JSON.parse(fs.readFileSync(file, "utf8"));
  const self = new Map();
  const incl = new Map();
  let total = 0;
  const walk = (node, above) => {
    const f = node.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
    total += node.selfSize;
    self.set(key, (self.get(key) ?? 0) + node.selfSize);
    const stack = new Set(above).add(key);
    for (const k of stack) incl.set(k, (incl.get(k) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c, stack);
  };
  walk(profile.head, new Set());
  console.log(`${(total / 1024 / n).toFixed(1)} KB allocated per item on the main thread (${(total / 1024 / 1024).toFixed(1)} MB / ${n}); ${mode}:`);
  const rows = [...(mode === "incl" ? incl : self)].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg));
  for (const [k, v] of rows) console.log(`${(v / 1024 / n).toFixed(1).padStart(7)}  ${k}`);
}
