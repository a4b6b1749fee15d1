/**
 * The signature judge's worker thread (`./pool.ts`): builds the judge from `workerData` (`{id, maxChars}`), then
 * for each message (a `PoolBatch`: requests in order) judges each trajectory on this thread, in order, and answers
 * one message with a `PoolReply` per request (the verdict, or the judge's error as `{name, message, stack}`). Its first
 * message, once the judge is built, is an empty one: the pool then knows that a later death of this worker is the
 * doing of what it held, not of its start (red team 17 F5). The bundled command line runs it as
 * `dist/bin/signature-worker.js`. With a time limit, `workerData.progress` is a `SharedArrayBuffer` of one Int32 to
 * which it adds 1 as it finishes each trajectory (an `Atomics.add`, no message): the pool's clock (red team M2).
 */
import v8 from "node:v8";
import vm from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { HEAP_GC_RULE, heapGcTrigger } from "../../io/heap-gc.js";
import { createSignatureJudge } from "./index.js";
import type { PoolBatch, PoolReplies, PoolReply } from "./pool.js";

if (!parentPort) throw new Error("the signature judge worker runs only as a worker thread (./pool.ts)");
const port = parentPort;
const opts = workerData as { id: string; maxChars: number; progress?: SharedArrayBuffer };
const judge = createSignatureJudge({ id: opts.id, maxChars: opts.maxChars, workers: 0 });
const progress = opts.progress ? new Int32Array(opts.progress) : undefined;
// started: the judge is built (an empty PoolReplies)
port.postMessage([] satisfies PoolReplies);

/**
 * Least growth of this worker's heap between two forced collections, bytes. A worker's live set is small and steady
 * (the injected-text table cache, ~30-35 MB), and it promotes ~20 KB of an analysis' garbage per trajectory to its old
 * generation (sampled with `v8.getHeapSpaceStatistics`, issue 26: 10 MB per 500 trajectories), so 32 MB of headroom
 * is a full collection (~30-50 ms at that live set) every ~1,600 trajectories, ~0.03 ms each, while each worker's heap
 * peaks ~35 MB lower than with 64 MB (it swung 40-100 MB over 8,000 trajectories with 64).
 */
const WORKER_GC_HEADROOM = 32 * 1024 * 1024;

/**
 * A full collection of this worker's heap when it has grown by max({@link WORKER_GC_HEADROOM}, half) over what the
 * last one left: the rule `label` applies to the main thread (`../../io/heap-gc.ts`), over this isolate's own heap,
 * with a smaller least headroom and no resident floor (issue 26: V8 collects a worker's old generation lazily, so on a
 * long run each worker isolate held 100+ MB of garbage). Only where `gc` is exposed (`label` sets `--expose-gc` before
 * its workers start); a look every 16 trajectories.
 */
const collect = (() => {
  let gc: unknown;
  try {
    gc = vm.runInNewContext("gc");
  } catch {
    gc = undefined;
  }
  if (typeof gc !== "function") return () => {};
  const trigger = heapGcTrigger(gc as () => void, () => ({ heapUsed: v8.getHeapStatistics().used_heap_size, rss: 0 }), { ...HEAP_GC_RULE, rssFloor: 0, minHeadroom: WORKER_GC_HEADROOM });
  let n = 0;
  return () => {
    if (++n % 16 === 0) trigger.check();
  };
})();

/** One request's reply: its verdict, or the judge's error. */
async function reply(req: PoolBatch[number]): Promise<PoolReply> {
  let verdict;
  try {
    verdict = await judge.judge(req.t, { repeat: req.ctx.repeat, minQuoteChars: req.ctx.minQuoteChars });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    if (progress) Atomics.add(progress, 0, 1);
    return { seq: req.seq, error: { name: err.name, message: err.message, stack: err.stack } };
  }
  if (progress) Atomics.add(progress, 0, 1);
  collect();
  return { seq: req.seq, verdict };
}

port.on("message", (batch: PoolBatch) => {
  void (async () => {
    const replies: PoolReplies = [];
    for (const req of batch) replies.push(await reply(req));
    port.postMessage(replies);
  })();
});
