/**
 * The signature judge's worker thread (`./pool.ts`): builds the judge from `workerData` (`{id, maxChars}`), then
 * for each `PoolRequest` message judges the trajectory on this thread and answers a `PoolReply` (the verdict, or the
 * judge's error as `{name, message, stack}`). The bundled command line runs it as `dist/bin/signature-worker.js`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createSignatureJudge } from "./index.js";
import type { PoolReply, PoolRequest } from "./pool.js";

if (!parentPort) throw new Error("the signature judge worker runs only as a worker thread (./pool.ts)");
const port = parentPort;
const opts = workerData as { id: string; maxChars: number };
const judge = createSignatureJudge({ id: opts.id, maxChars: opts.maxChars, workers: 0 });

port.on("message", (req: PoolRequest) => {
  judge.judge(req.t, { repeat: req.ctx.repeat, minQuoteChars: req.ctx.minQuoteChars }).then(
    (verdict) => port.postMessage({ seq: req.seq, verdict } satisfies PoolReply),
    (e: unknown) => {
      const err = e instanceof Error ? e : new Error(String(e));
      port.postMessage({ seq: req.seq, error: { name: err.name, message: err.message, stack: err.stack } } satisfies PoolReply);
    },
  );
});
