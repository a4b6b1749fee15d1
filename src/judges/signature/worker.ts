/**
 * The signature judge's worker thread (`./pool.ts`): builds the judge from `workerData` (`{id, maxChars}`), then
 * for each `PoolRequest` message judges the trajectory on this thread and answers a `PoolReply` (the verdict, or the
 * judge's error as `{name, message, stack}`). The bundled command line runs it as `dist/bin/signature-worker.js`.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { HEAP_GC_RULE, heapGcTrigger } from "../../io/heap-gc.js";
import { createSignatureJudge } from "./index.js";
import type { PoolReply, PoolRequest } from "./pool.js";

if (!parentPort) throw new Error("the signature judge worker runs only as a worker thread (./pool.ts)");
const port = parentPort;
const opts = workerData as { id: string; maxChars: number };
const judge = createSignatureJudge({ id: opts.id, maxChars: opts.maxChars, workers: 0 });

/**
 * A full collection of this worker's heap when it has grown by max(64 MB, half) over what the last one left: the
 * rule `label` applies to the main thread (`../../io/heap-gc.ts`), over this isolate's own heap and with no resident
 * floor (issue 26: V8 collects a worker's old generation lazily, so on a long run each worker isolate held 100+ MB of
 * garbage). Only where `gc` is exposed (`label` sets `--expose-gc` before its workers start); a look every 16
 * trajectories.
 */
const collect = (() => {
  let gc: unknown;
  try {
    gc = vm.runInNewContext("gc");
  } catch {
    gc = undefined;
  }
  if (typeof gc !== "function") return () => {};
  const trigger = heapGcTrigger(gc as () => void, () => ({ heapUsed: v8.getHeapStatistics().used_heap_size, rss: 0 }), { ...HEAP_GC_RULE, rssFloor: 0 });
  let n = 0;
  return () => {
    if (++n % 16 === 0) trigger.check();
  };
})();

port.on("message", (req: PoolRequest) => {
  judge.judge(req.t, { repeat: req.ctx.repeat, minQuoteChars: req.ctx.minQuoteChars }).then(
    (verdict) => {
      port.postMessage({ seq: req.seq, verdict } satisfies PoolReply);
      collect();
    },
    (e: unknown) => {
      const err = e instanceof Error ? e : new Error(String(e));
      port.postMessage({ seq: req.seq, error: { name: err.name, message: err.message, stack: err.stack } } satisfies PoolReply);
    },
  );
});
