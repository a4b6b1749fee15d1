/**
 * Preloaded into the measured `ipi-judge` process (`node --import bench/probe.mjs ...`): at exit it writes
 * `{maxRssBytes, peak: {rss, heapUsed, heapTotal, external, arrayBuffers}}` to the file named by
 * `IPI_BENCH_PROBE`. `maxRssBytes` is `process.resourceUsage().maxRSS` (getrusage(2) ru_maxrss, kilobytes) x 1024,
 * the peak resident set size; `peak` holds the largest of each `process.memoryUsage()` field sampled every 250 ms;
 * `cpuMs` is `{user, system}`, the process's CPU time in milliseconds (`process.resourceUsage()`: getrusage(2)
 * ru_utime and ru_stime, all threads) at exit.
 */
import fs from "node:fs";

const out = process.env.IPI_BENCH_PROBE;
if (out) {
  const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], m[k]);
  };
  setInterval(sample, 250).unref();
  process.on("exit", () => {
    sample();
    const ru = process.resourceUsage();
    const cpuMs = { user: ru.userCPUTime / 1000, system: ru.systemCPUTime / 1000 };
    fs.writeFileSync(out, JSON.stringify({ maxRssBytes: ru.maxRSS * 1024, peak, cpuMs }));
  });
}
