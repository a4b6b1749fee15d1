/**
 * The transport worker's thread (started by `TransportWorker`, `./transport-worker.ts`): it holds one chat
 * sender per judge of the run (`createChatSender`: the `openai` client, rate pacing, AIMD limiter, health) and
 * sends the chat requests the main thread posts, so the HTTP client's work runs on another core than reading,
 * rendering, verification and the store.
 *
 * Messages in: `{t: "init", judges, transport}` (first, once), `{t: "send", id, judge, req}` (`req` an
 * `EncodedRequest`: the body already serialized by the main thread, its buffer transferred, not copied),
 * `{t: "abort", id}` (the run was stopped). The judges come in a message, not as `workerData`, so the worker can be
 * started (and load its modules on the other core) before the CLI has read the judges config.
 * Messages out: `{t: "ready"}` (after `init`), `{t: "done", id, res}` (a `SendResult`), `{t: "fatal", id, judgeId, kind, message}` (a
 * `JudgeFatalError`), `{t: "crash", id, message}` (anything else thrown). The API keys are read from this
 * thread's environment (a copy of the process's) and never posted.
 */
import { parentPort } from "node:worker_threads";
import type { JudgeConfig } from "../judges/config.js";
import { JudgeFatalError } from "../errors.js";
import { createChatSender, type ChatSender } from "./sender.js";
import type { EncodedRequest, TransportOptions } from "./send.js";

/** What the worker is initialized with (its first message). */
export interface TransportWorkerData {
  judges: JudgeConfig[];
  /** Transport settings without functions (functions cannot cross threads). */
  transport?: Omit<TransportOptions, "sleep" | "random">;
}

/** A message from the main thread. */
export type ToWorker =
  | ({ t: "init" } & TransportWorkerData)
  | { t: "send"; id: number; judge: string; req: EncodedRequest }
  | { t: "abort"; id: number };

const port = parentPort;
if (port) {
  const senders = new Map<string, ChatSender>();
  const inflight = new Map<number, AbortController>();
  const start = (m: Extract<ToWorker, { t: "send" }>, ac: AbortController) => {
    const sender = senders.get(m.judge);
    const p = sender
      ? sender.send(m.req, { signal: ac.signal, tokenParam: m.req.tokenParam })
      : Promise.reject(new Error(`transport worker: no judge "${m.judge}"`));
    p.then(
      (res) => port.postMessage({ t: "done", id: m.id, res }),
      (e: unknown) =>
        port.postMessage(
          e instanceof JudgeFatalError
            ? { t: "fatal", id: m.id, judgeId: e.judgeId, kind: e.kind, message: e.message }
            : { t: "crash", id: m.id, message: String((e as Error)?.message ?? e) },
        ),
    ).finally(() => inflight.delete(m.id));
  };
  // Sends start one per event-loop turn, so answers that arrived in between (a 429 that cuts the AIMD limit) are
  // read before the next request leaves: messages queued while the worker was busy (or still loading) would
  // otherwise all leave in one burst, where sending from the main thread interleaves them with reading files.
  const queue: [Extract<ToWorker, { t: "send" }>, AbortController][] = [];
  let draining = false;
  const drain = () => {
    const next = queue.shift();
    if (next) start(...next);
    if (queue.length > 0) setImmediate(drain);
    else draining = false;
  };
  port.on("message", (m: ToWorker) => {
    if (m.t === "init") {
      for (const cfg of m.judges) senders.set(cfg.id, createChatSender(cfg, { transport: m.transport }));
      port.postMessage({ t: "ready" });
      return;
    }
    if (m.t === "abort") {
      inflight.get(m.id)?.abort();
      return;
    }
    const ac = new AbortController();
    inflight.set(m.id, ac);
    queue.push([m, ac]);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  });
}
