/**
 * Preloaded into a measured process (`node --import bench/call-counts.mjs ...`): counts every call of every function
 * (V8's precise coverage, `callCount: true`, block coverage off) and at exit writes `count<TAB>name file:offset`
 * lines, most called first, to the file named by `IPI_CALLS_OUT`, for the bundle (`dist/bin`), undici and `openai`
 * (all scripts with `IPI_CALLS_ALL=1`). Divide by the items judged for calls per item; run it on `label` and on
 * `bench/openai-loop.mjs ... ipi` with the same bodies to see what `label` does beyond the client (README-bench.md,
 * session 16). Slows the process down (~10%): for counts, not for time.
 */
import inspector from "node:inspector";
import fs from "node:fs";

const out = process.env.IPI_CALLS_OUT;
if (out) {
  const s = new inspector.Session();
  s.connect();
  s.post("Profiler.enable");
  s.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  process.on("exit", () => {
    s.post("Profiler.takePreciseCoverage", (err, r) => {
      if (err) return;
      const rows = [];
      for (const sc of r.result) {
        if (!process.env.IPI_CALLS_ALL && !/dist\/bin|undici|openai/.test(sc.url)) continue;
        for (const f of sc.functions) {
          const c = f.ranges[0].count;
          if (c > 0) rows.push([c, `${f.functionName || "(anon)"} ${sc.url.replace(/.*\/dist\/bin\//, "")}:${f.ranges[0].startOffset}`]);
        }
      }
      rows.sort((a, b) => b[0] - a[0]);
      fs.writeFileSync(out, rows.map(([c, n]) => `${c}\t${n}`).join("\n") + "\n");
    });
  });
}
