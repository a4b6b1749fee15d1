/**
 * Preloaded into the measured `ipi-judge` process (`node --import bench/probe.mjs ...`): at exit it writes
 * `{maxRssBytes, peak: {rss, heapUsed, heapTotal, external, arrayBuffers}}` to the file named by
 * `IPI_BENCH_PROBE`. `maxRssBytes` is `process.resourceUsage().maxRSS` (getrusage(2) ru_maxrss, kilobytes) x 1024,
 * the peak resident set size; `peak` holds the largest of each `process.memoryUsage()` field sampled every 250 ms;
 * `cpuMs` is `{user, system}`, the process's CPU time in milliseconds (`process.resourceUsage()`: getrusage(2)
 * ru_utime and ru_stime, all threads) at exit; `threadsMs` is `{main, other, busiestOther}`, the same CPU split
 * between the main thread and all other threads (V8's GC and compiler helpers, libuv's pool, worker threads such as
 * the signature judge's), and the CPU of the busiest other thread alone (in a signature `label`, its worker), from
 * `/proc/self/task/<tid>/stat` (utime + stime, clock ticks of 10 ms), or absent where /proc is not readable. The
 * threads are read about every second (a timer on the main thread: later while it is busy) and at exit: a thread
 * that ended before the exit (a finished worker) counts with what it had used at the last reading before it ended
 * (short by what it used since).
 */
import fs from "node:fs";
import { isMainThread } from "node:worker_threads";

const out = process.env.IPI_BENCH_PROBE;
/** CPU ms of each thread of this process seen so far (its last reading), by thread id and start time. */
const seen = new Map();
/** Read every thread's CPU into `seen`; false where /proc cannot be read. */
function readThreads() {
  try {
    for (const tid of fs.readdirSync("/proc/self/task")) {
      let stat;
      try {
        stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      } catch {
        continue; // ended between the listing and the read
      }
      // fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // keyed by thread id and start time (field 22): a thread id the kernel gives again is another thread
      seen.set(`${tid}@${f[19]}`, { tid, ms: (Number(f[11]) + Number(f[12])) * 10 });
    }
    return true;
  } catch {
    return false;
  }
}
/** `{threadsMs: {main, other, busiestOther}}` from the readings (ms), or `{}` where /proc cannot be read. */
function threadsMs() {
  if (!readThreads()) return {};
  const ms = { main: 0, other: 0, busiestOther: 0 };
  for (const { tid, ms: t } of seen.values()) {
    if (tid === String(process.pid)) ms.main += t;
    else {
      ms.other += t;
      ms.busiestOther = Math.max(ms.busiestOther, t);
    }
  }
  return { threadsMs: ms };
}

// the main thread only: a worker started with the process's execArgv loads this too, and must not write the figures
if (out && isMainThread) {
  const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], m[k]);
  };
  setInterval(sample, 250).unref();
  setInterval(readThreads, 1000).unref();
  process.on("exit", () => {
    sample();
    const ru = process.resourceUsage();
    const cpuMs = { user: ru.userCPUTime / 1000, system: ru.systemCPUTime / 1000 };
    fs.writeFileSync(out, JSON.stringify({ maxRssBytes: ru.maxRSS * 1024, peak, cpuMs, ...threadsMs() }));
  });
}
