/**
 * Preloaded into the measured `ipi-judge` process (`node --import bench/probe.mjs ...`): at exit it writes
 * `{maxRssBytes, peak: {rss, heapUsed, heapTotal, external, arrayBuffers}}` to the file named by
 * `IPI_BENCH_PROBE`. `maxRssBytes` is `process.resourceUsage().maxRSS` (getrusage(2) ru_maxrss, kilobytes) x 1024,
 * the peak resident set size; `peak` holds the largest of each `process.memoryUsage()` field sampled every 250 ms;
 * `cpuMs` is `{user, system}`, the process's CPU time in milliseconds (`process.resourceUsage()`: getrusage(2)
 * ru_utime and ru_stime, all threads) at exit; `threadsMs` is `{main, other}`, the same CPU split between the main
 * thread and all other threads (V8's GC and compiler helpers, libuv's pool) from `/proc/self/task/<tid>/stat`
 * (utime + stime, clock ticks of 10 ms), or absent where /proc is not readable. Threads that ended before the exit
 * (a finished worker) are not in it, so `main + other` can be below `cpuMs`.
 */
import fs from "node:fs";

const out = process.env.IPI_BENCH_PROBE;
/** `{threadsMs: {main, other}}` from /proc/self/task (ms), or `{}` where it cannot be read. */
function threadsMs() {
  try {
    const ms = { main: 0, other: 0 };
    for (const tid of fs.readdirSync("/proc/self/task")) {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const t = (Number(f[11]) + Number(f[12])) * 10;
      if (tid === String(process.pid)) ms.main += t;
      else ms.other += t;
    }
    return { threadsMs: ms };
  } catch {
    return {};
  }
}

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
    fs.writeFileSync(out, JSON.stringify({ maxRssBytes: ru.maxRSS * 1024, peak, cpuMs, ...threadsMs() }));
  });
}
