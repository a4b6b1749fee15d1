/**
 * `TransportWorker`: sends the chat requests of a run's LLM judges from a `worker_threads` worker
 * (`./transport-worker-entry.ts`), so the `openai` client and HTTP work (about 1 ms of CPU per request, the
 * largest part of a label run's main-thread time on a fast server) run on a second core while the main thread
 * reads, renders, verifies and stores. Judges get it as `common.remote` (`createOpenAIJudge`); the CLI uses it
 * unless `IPI_NO_WORKER=1`.
 *
 * Semantics are those of sending in this thread (`createChatSender`): the worker holds each judge's client, rate
 * pacing, AIMD limiter and health record, so a judge's limits hold across all its requests. A `JudgeFatalError`
 * in the worker rejects the send with a `JudgeFatalError` here; the run's signal aborts the request there. The
 * worker is started by `warm()` or the first send and does not keep the process alive while no request is in flight. If
 * it dies after it got ready, the sends in flight reject (the runner records them as `judge_crash`, judged again on
 * resume) and the next send starts a new one. If it dies before (a missing or broken file, a crash while loading),
 * every send rejects with a `JudgeFatalError` of kind `transport_worker`: the judges stop, the run exits 1.
 */
import { Worker } from "node:worker_threads";
import type { JudgeConfig } from "../judges/config.js";
import { JudgeFatalError } from "../errors.js";
import type { ChatSender, RemoteTransport, SendOptions } from "./sender.js";
import { encodeRequest, type EncodedRequest } from "./request-body.js";
import type { ChatRequest, SendResult } from "./send.js";
import type { TransportWorkerData } from "./transport-worker-entry.js";

/** A message from the worker. */
type FromWorker =
  | { t: "ready"; id?: undefined }
  | { t: "done"; id: number; res: SendResult }
  | { t: "fatal"; id: number; judgeId: string; kind: string; message: string }
  | { t: "crash"; id: number; message: string };

interface Pending {
  judgeId: string;
  resolve: (r: SendResult) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
}

/** The default worker script: the compiled entry beside this module. */
const DEFAULT_ENTRY = new URL("./transport-worker-entry.js", import.meta.url);

/** Whether the CLI sends chat requests from the transport worker: yes, unless `IPI_NO_WORKER=1`. */
export function transportWorkerEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.IPI_NO_WORKER !== "1";
}

/** A worker started ahead of time by {@link preloadTransportWorker}, taken by the first `TransportWorker`. */
interface Preloaded {
  worker: Worker;
  entry: string;
  /** Why it died before being taken. */
  dead?: string;
}
let preloaded: Preloaded | undefined;

/**
 * Start the transport worker now, before the judges are known: it loads its modules (the `openai` client, ~0.2 s)
 * on the other core while this thread loads the rest of the CLI. The first `TransportWorker` started with the
 * same entry takes it. Does not keep the process alive; harmless when never taken.
 */
export function preloadTransportWorker(entry: URL | string = DEFAULT_ENTRY): void {
  if (preloaded) return;
  const worker = new Worker(entry);
  worker.unref();
  const p: Preloaded = { worker, entry: String(entry) };
  // a preloaded worker that died (a broken install, a crash while loading) is not taken: a new one is started
  worker.on("error", (e) => (p.dead ??= e.message));
  worker.on("exit", (code) => (p.dead ??= `exited (code ${code})`));
  preloaded = p;
}

export class TransportWorker implements RemoteTransport {
  private worker: Worker | undefined;
  /** The current worker answered `init` (it loaded its modules and holds the judges). */
  private ready = false;
  /** Why a worker could not start: every send then fails at once with a `JudgeFatalError` (no restart loop). */
  private broken: string | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  /**
   * Signals already listened to: one `abort` listener per signal (the run's one signal), which aborts every
   * request in flight under it, not one listener per request (16 in flight drew a MaxListenersExceededWarning).
   */
  private readonly watched = new WeakSet<AbortSignal>();

  /**
   * @param data the judges (configs; keys are read in the worker from the environment) and plain transport settings.
   * @param entry the worker script (default: `transport-worker-entry.js` beside this module, i.e. in `dist/`).
   */
  constructor(
    private readonly data: TransportWorkerData,
    private readonly entry: URL | string = DEFAULT_ENTRY,
  ) {}

  /** The sender of one judge of `data.judges`. */
  sender(cfg: JudgeConfig): ChatSender {
    return { send: (req, opts) => this.send(cfg.id, req, opts) };
  }

  /** Requests in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Start the worker now (it loads its modules, ~0.3 s, while this thread reads the first items) instead of on
   * the first send. Does not keep the process alive.
   */
  warm(): void {
    this.worker ??= this.start();
  }

  private start(): Worker {
    let w: Worker;
    const pre = preloaded;
    if (pre && pre.entry === String(this.entry) && !pre.dead) {
      w = pre.worker;
      preloaded = undefined;
    } else {
      if (pre && pre.entry === String(this.entry)) preloaded = undefined;
      w = new Worker(this.entry);
    }
    this.ready = false;
    w.postMessage({ t: "init", ...this.data });
    w.on("message", (m: FromWorker) => {
      if (m.t === "ready") {
        if (this.worker === w) this.ready = true;
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.settle(m.id);
      if (m.t === "done") p.resolve(m.res);
      else if (m.t === "fatal") p.reject(new JudgeFatalError(m.judgeId, m.kind, m.message));
      else p.reject(new Error(m.message));
    });
    const lost = (why: string) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      // A worker that never got ready will not get ready on a retry either (a missing or broken file, a crash
      // while loading): the judges stop with a clear message instead of every item failing the same way.
      if (!this.ready) this.broken = why;
      for (const [id, p] of [...this.pending]) {
        this.settle(id);
        p.reject(this.broken !== undefined ? this.startFailure(p.judgeId) : new Error(`the transport worker ${why}; the request is judged again on resume`));
      }
    };
    w.on("error", (e) => lost(`failed: ${e.message}`));
    w.on("exit", (code) => lost(`exited (code ${code})`));
    w.unref();
    this.worker = w;
    return w;
  }

  /** The error of a send when no worker could start. */
  private startFailure(judgeId: string): JudgeFatalError {
    return new JudgeFatalError(
      judgeId,
      "transport_worker",
      `the transport worker could not start (${this.broken}); its requests were not sent. Set IPI_NO_WORKER=1 to send from the main thread, and report the problem.`,
    );
  }

  private settle(id: number) {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }

  /** Send one chat request of judge `judgeId` through the worker (see the module docstring). */
  send(judgeId: string, req: ChatRequest | EncodedRequest, opts: SendOptions): Promise<SendResult> {
    if (this.broken !== undefined) return Promise.reject(this.startFailure(judgeId));
    const w = this.worker ?? this.start();
    const id = this.next++;
    if (this.pending.size === 0) w.ref();
    const signal = opts.signal;
    if (signal && !this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener(
        "abort",
        () => {
          for (const [pid, p] of this.pending) if (p.signal === signal) this.worker?.postMessage({ t: "abort", id: pid });
        },
        { once: true },
      );
    }
    return new Promise<SendResult>((resolve, reject) => {
      this.pending.set(id, { judgeId, resolve, reject, signal });
      // serialized here (this thread has time to spare; the worker is the busier one) and moved, not copied
      const encoded = "encoded" in req ? { ...req, encoded: req.encoded.slice() } : encodeRequest(req, opts.tokenParam);
      w.postMessage({ t: "send", id, judge: judgeId, req: encoded }, [encoded.encoded.buffer as ArrayBuffer]);
      if (signal?.aborted) w.postMessage({ t: "abort", id });
    });
  }

  /** Stop the worker (requests in flight reject). */
  async close(): Promise<void> {
    const w = this.worker;
    if (w) await w.terminate();
  }
}
