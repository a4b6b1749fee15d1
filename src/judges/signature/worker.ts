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
import { heapGcTrigger, LABEL_BACKSTOP_RULE } from "../../io/heap-gc.js";
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
 * Least growth of this worker's heap between two forced collections, bytes: a backstop only. V8 collects a worker's
 * heap by itself at the growing factor `label` sets for the process (`../../cli/v8-tuning.ts` `tuneHeapForLabel`, 50%:
 * a worker's live set is small and steady, the injected-text table cache ~30-35 MB, so its heap stays near 50 MB), and
 * a forced collection drops the worker's optimized code (issue 26, session 19: the 32 MB rule before forced one every
 * ~1,600 trajectories, each followed by tens of recompilations). Forced only past 96 MB or double the last live heap.
 */
const WORKER_GC_HEADROOM = 96 * 1024 * 1024;

/**
 * A full collection of this worker's heap when it has grown by max({@link WORKER_GC_HEADROOM}, the live heap) over
 * what the last one left: `label`'s backstop (`../../io/heap-gc.ts` `LABEL_BACKSTOP_RULE`) over this isolate's own heap,
 * with a smaller least headroom and no resident floor. Only where `gc` is exposed (`label` sets `--expose-gc` before
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
  const trigger = heapGcTrigger(gc as () => void, () => ({ heapUsed: v8.getHeapStatistics().used_heap_size, rss: 0 }), { ...LABEL_BACKSTOP_RULE, rssFloor: 0, minHeadroom: WORKER_GC_HEADROOM });
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
