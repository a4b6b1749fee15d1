/**
 * A pool of `node:worker_threads` workers that run the signature judge (`./worker.ts`), so that on a machine with
 * several cores the analysis of one trajectory overlaps the reading and parsing of the next ones and the run
 * store's writes on the main thread (issue 26: the offline judge ran synchronously on the main thread whatever its
 * `concurrency`).
 *
 * Behaviour:
 * - `run(t, ctx)` sends the trajectory (structured clone) to the least busy worker and resolves with its verdict;
 *   results are handed back in submission order (a result that finishes early waits for the ones sent before it),
 *   so a run's verdicts are stored in the same order as with the judge on the main thread;
 * - trajectories travel in batches: one message carries up to {@link BATCH} of them (sent when that many wait, or
 *   at the next turn of the event loop, `setImmediate`, whatever waits then), and a worker answers a batch with one
 *   message of its replies (issue 26: a message each way per trajectory was ~10% of `label`'s main-thread CPU);
 * - an error thrown by the judge in a worker rejects that trajectory's promise with an `Error` naming its id
 *   (the runner records it as the item's `judge_crash`); the worker goes on;
 * - a worker that dies (exit, uncaught error, out of memory) is replaced (red team 17 F5: one item must not stop the
 *   judge): the replies it sent before it died are kept, and the trajectories it still held are sent again ONE PER
 *   BATCH, in order, each to a worker that holds nothing else. A trajectory that kills a worker that held it alone
 *   (and had started: its first message came) is that trajectory's own error (an `Error` naming it and why
 *   the worker died; the runner records it as the item's `judge_crash`, judged again on resume / `--retry-errors`),
 *   and the run goes on. A started worker that dies holding several trajectories explains its death by one of them:
 *   they are sent again alone (red team 18: on a resume the crashed items come together, two to a worker, and counting
 *   such deaths as unexplained stopped every resume). The respawns are bounded: a second death in a row of a worker
 *   that had not started or held nothing (the worker module is broken, or the host kills workers), more
 *   deaths holding several trajectories than trajectories found to kill a worker, plus {@link MAX_BATCH_DEATHS_UNFOUND},
 *   reject what is held and every later `run` with a `JudgeFatalError` (kind `worker_crash`), as before: the runner
 *   stops the judge and says why; nothing hangs. Trajectories found to kill a worker alone are not bounded in number:
 *   each ends one item (its error), so a run always gets through its input, and a resume re-sends only them (red
 *   team 18b: a bound on them relative to this invocation's verdicts stopped every resume of a run with 17 or more).
 *   A worker killed from outside while it judges one trajectory alone blames that trajectory (it cannot be told apart);
 * - a time limit per trajectory ({@link PoolOptions.timeLimitMs}; red team M2: an analysis that never ends held
 *   `label` for good): each worker adds 1 to a shared counter (`SharedArrayBuffer`, `Atomics`) when it finishes a
 *   trajectory, so the pool sees per-trajectory progress with no message per trajectory (the batched hand-over stays);
 *   a look every {@link watchEvery} finds a started worker that holds work and has made no progress (no finished
 *   trajectory, no reply) for the limit, and terminates it. Its death takes the path above: what it held is sent again
 *   alone, and the trajectory that holds a worker past the limit alone (still unfinished when the worker exits: one
 *   that ends as it is stopped is sent again) is that trajectory's own error ("analysis took
 *   longer than the N s time limit", not a crash; judged again on resume). A trajectory is stopped after it has run
 *   between the limit and the limit plus one look. Such a death is ours, not unexplained: it counts toward none of the
 *   bounds above (neither a death holding several trajectories, nor a culprit, nor one with none to blame), and the
 *   neighbours it held are judged again alone, never blamed. The clock of a worker runs from when it started (its
 *   first message) or was given work while idle, whichever is later: a worker whose start never ends (its module, not
 *   an item) is not timed; a pool without a limit (the default of this class) has no clock;
 * - idle workers do not keep the process alive (they are `unref`'d while they hold no work).
 * Errors: the constructor throws `RangeError` for a size below 1 or a time limit not above 0.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { JudgeFatalError } from "../../errors.js";
import type { Trajectory, Verdict } from "../../types.js";
import type { JudgeContext } from "../judge.js";

/** What the pool sends a worker for one trajectory. */
export interface PoolRequest {
  seq: number;
  t: Trajectory;
  ctx: { repeat: number; minQuoteChars?: number };
}

/** What a worker answers for one trajectory: its verdict or the judge's error. */
export type PoolReply = { seq: number; verdict: Verdict } | { seq: number; error: { name: string; message: string; stack?: string } };

/** One message to a worker: the requests of a batch, in submission order. */
export type PoolBatch = PoolRequest[];

/** One message from a worker: the replies to (part of) the batches it holds, any order (matched by `seq`). */
export type PoolReplies = PoolReply[];

/** Options of {@link SignaturePool}. */
export interface PoolOptions {
  /** Number of workers (>= 1). */
  size: number;
  /** The worker's module (`./worker.ts` compiled, or the bundle's `signature-worker.js`). */
  entry: URL;
  /** Node options of the workers (e.g. `["--import", "tsx"]` to run the TypeScript source). */
  execArgv?: string[];
  /** Options of the judge each worker builds (`createSignatureJudge`; plain data only). */
  judgeOptions: { id: string; maxChars: number };
  /** Most trajectories sent to one worker before it answers (default {@link PER_WORKER}). */
  perWorker?: number;
  /** Most trajectories in one message (default {@link BATCH}; at most `perWorker`). */
  batch?: number;
  /**
   * Longest a worker may spend on one trajectory, ms (module docstring): past it, the worker is terminated and the
   * trajectory, once found alone, is its own error. Absent (or not finite): no limit.
   */
  timeLimitMs?: number;
}

/**
 * How often the pool looks at its workers' progress for a time limit of `limitMs`: an eighth of it, at least 10 ms,
 * at most a timer's longest delay (2^31 - 1 ms: past it Node sets 1 ms, red team 19 L1).
 */
export function watchEvery(limitMs: number): number {
  return Math.min(2 ** 31 - 1, Math.max(10, Math.floor(limitMs / 8)));
}

/**
 * The young generation of each worker isolate, MiB (`resourceLimits.maxYoungGenerationSizeMb`; V8's default on
 * 64-bit is 48, of which a worker kept two 16 MB semi-spaces committed). A worker's objects are short-lived (one
 * trajectory's analysis; its live set is the injected-text table cache, `./tables.ts`, ~30 MB), so a small young
 * generation only moves more of that garbage into the old one, which V8 and the worker's heap-growth collection
 * (`./worker.ts`) clear. Measured (issue 26; 20,000 AgentDojo runs, 2 workers, load 15-18, back to back): 64 MB
 * headroom and V8's default young generation 46.6 s CPU, peak RSS 369 MB; with 8 MB 46.9 s, 299 MB. Not an upper
 * bound on anything: a trajectory whose analysis needs more than this is promoted, never refused (large objects go
 * to their own space).
 */
export const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * Default most trajectories a worker holds before it answers ({@link PoolOptions.perWorker}): two batches
 * ({@link BATCH}), so that it goes on with the next batch while the calling thread stores the replies to the last
 * one (or is descheduled) instead of sleeping until more arrives. With one trajectory per message it was 4 (measured,
 * issue 26; 11,384 AgentDojo runs, 1 worker, 2 cores, load 8.5-13, interleaved: user+sys 16.3-17.2 s with 2,
 * 15.2-15.8 s with 4, 15.3-15.6 s with 8). The queued trajectories are serialized copies of ones the runner already
 * holds (its `concurrency`, 128 by default for the signature judge, bounds them), each deserialized when the worker
 * takes its batch.
 */
export const PER_WORKER = 16;

/**
 * Most trajectories in one message to a worker (and so in one message back). A batch is sent as soon as this many
 * wait, or at the next turn of the event loop with fewer; `label`'s reading loop turns it every 8 files
 * (`../../ingest/index.ts` `READ_TURN`), and the judge's concurrency (default 128) bounds what waits. Each message
 * wakes the other thread: measured (issue 26; a worker echoing trajectory-sized objects, idle host) 44-48 us of CPU
 * per trajectory over both threads one by one, 12-17 us in batches of 8; on the loaded 2-core host the difference in
 * `label`'s CPU was larger (README-bench.md).
 */
export const BATCH = 8;

/**
 * How many more deaths of workers holding several trajectories a pool accepts than trajectories found (sent again
 * alone) to kill a worker: each such death holds one culprit that the re-sending finds, unless something else kills
 * the workers (red team 18).
 */
export const MAX_BATCH_DEATHS_UNFOUND = 8;

interface Task {
  seq: number;
  req: PoolRequest;
  resolve: (v: Verdict) => void;
  reject: (e: unknown) => void;
  /** Held by a worker that died: sent again alone. */
  alone?: boolean;
}

interface Slot {
  worker: Worker;
  busy: Map<number, Task>;
  /** Holds one trajectory sent alone ({@link Task.alone}): nothing else is sent to it until it answers. */
  alone: boolean;
  /** Its first message came (the worker module loaded and built its judge): a death then can be an item's doing. */
  started: boolean;
  /** Why it died, from its `error` event (the death is handled at `exit`, after its last replies are read). */
  why?: string;
  /** Trajectories it has finished: the worker adds 1 to `[0]` after each (present with a time limit). */
  progress?: Int32Array;
  /** `progress[0]` at the pool's last look. */
  seen: number;
  /** When it last made progress (a finished trajectory or a reply seen, or work given while idle), `performance.now()`. */
  progressAt: number;
  /** Terminated by the pool for the time limit: it takes no more work, and its death is not counted as unexplained. */
  timedOut: boolean;
  /** With `timedOut`: the trajectories it held when the pool stopped it. */
  heldAtTimeOut?: number;
}

/** The pool (module docstring). */
/**
 * A trajectory the structured clone cannot copy to a worker (a library caller's object holding a function, or nested
 * deeper than the clone allows): the judge analyses it on the calling thread instead (`./index.ts`), as with
 * `workers: 0`.
 */
export class NotCloneableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotCloneableError";
  }
}

export class SignaturePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  /** Finished tasks not yet handed back, by seq. */
  private readonly done = new Map<number, { task: Task; verdict?: Verdict; error?: unknown }>();
  private nextSeq = 0;
  private nextOut = 0;
  private broken: JudgeFatalError | null = null;
  private readonly perWorker: number;
  private readonly batch: number;
  /** The `setImmediate` that sends what waits, while one is set. */
  private flushTimer: NodeJS.Immediate | undefined;
  /** Trajectories that killed a worker that held them alone (each its item's error). */
  private culprits = 0;
  /** Deaths of started workers that held several trajectories (sent again alone). */
  private batchDeaths = 0;
  /** Deaths in a row of workers that had not started or held nothing. */
  private unexplained = 0;
  /** The time limit per trajectory, ms (Infinity: none). */
  private readonly limitMs: number;
  /** The look at the workers' progress (`setInterval`, unref'd), while the pool has a limit and is open. */
  private watch: NodeJS.Timeout | undefined;

  /** @throws RangeError when `opts.size < 1`. */
  constructor(private readonly opts: PoolOptions) {
    if (!(opts.size >= 1)) throw new RangeError(`a signature pool needs at least one worker, got ${opts.size}`);
    this.perWorker = Math.max(1, opts.perWorker ?? PER_WORKER);
    this.batch = Math.max(1, Math.min(opts.batch ?? BATCH, this.perWorker));
    const limit = opts.timeLimitMs ?? Infinity;
    if (!(limit > 0)) throw new RangeError(`a signature pool's time limit must be > 0 ms, got ${opts.timeLimitMs}`);
    this.limitMs = limit;
  }

  /** Number of workers. */
  get size(): number {
    return this.opts.size;
  }

  /**
   * Judge one trajectory in a worker.
   * @returns the verdict, after every trajectory submitted before this one has been handed back
   * @throws (rejects) an `Error` naming the trajectory when the judge threw; `JudgeFatalError` (kind `worker_crash`)
   *   when a worker died
   */
  run(t: Trajectory, ctx: JudgeContext): Promise<Verdict> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<Verdict>((resolve, reject) => {
      const seq = this.nextSeq++;
      this.queue.push({ seq, req: { seq, t, ctx: { repeat: ctx.repeat, minQuoteChars: ctx.minQuoteChars } }, resolve, reject });
      if (this.queue.length >= this.batch) this.pump();
      else this.flushTimer ??= setImmediate(() => {
        this.flushTimer = undefined;
        this.pump();
      });
    });
  }

  /** Stop every worker (pending trajectories are rejected). */
  async close(): Promise<void> {
    const workers = this.slots.map((s) => s.worker);
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    clearInterval(this.watch);
    this.watch = undefined;
    this.fail(new JudgeFatalError(this.opts.judgeOptions.id, "worker_crash", "the signature worker pool was closed"));
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /**
   * Send what waits, in batches of at most {@link BATCH}, to the least busy workers that can take more; what waits is
   * shared over the pool's workers (at most its share, `ceil(waiting / size)`, per batch), so that several workers
   * each get work (red team 17: a batch of everything made one worker of three judge 3,246 of 3,268).
   */
  private pump(): void {
    let share = 0; // of the trajectories that wait, once the ones sent again alone are sent
    while (this.queue.length > 0 && !this.broken) {
      if (this.queue[0].alone) {
        // a trajectory a dead worker held goes alone to a worker that holds nothing (a new one if there is room)
        let free = this.slots.find((s) => s.busy.size === 0 && !s.alone && !s.timedOut);
        if (!free && this.slots.length < this.opts.size) free = this.spawn();
        if (!free) return;
        const task = this.queue.shift()!;
        free.alone = true;
        free.progressAt = performance.now();
        free.worker.ref();
        free.busy.set(task.seq, task);
        this.sendAlone(free, task);
        continue;
      }
      share ||= Math.max(1, Math.ceil(this.queue.length / this.opts.size));
      if (this.slots.length < this.opts.size && this.slots.every((s) => s.busy.size > 0)) this.spawn();
      let best: Slot | undefined;
      for (const s of this.slots) if (!s.alone && !s.timedOut && s.busy.size < this.perWorker && (!best || s.busy.size < best.busy.size)) best = s;
      if (!best) return;
      const tasks = this.queue.splice(0, Math.min(this.batch, share, this.perWorker - best.busy.size));
      if (best.busy.size === 0) {
        best.worker.ref();
        best.progressAt = performance.now();
      }
      for (const task of tasks) best.busy.set(task.seq, task);
      try {
        best.worker.postMessage(tasks.map((task) => task.req) satisfies PoolBatch);
      } catch {
        // one of them is not cloneable (a function in the trajectory): each is sent alone, so that only that item errs
        for (const task of tasks) this.sendAlone(best, task);
      }
    }
  }

  /** Send one trajectory in a batch of its own; one that cannot be cloned is its item's error, not the worker's. */
  private sendAlone(slot: Slot, task: Task): void {
    try {
      slot.worker.postMessage([task.req] satisfies PoolBatch);
    } catch (e) {
      slot.busy.delete(task.seq);
      if (slot.busy.size === 0) {
        slot.alone = false;
        slot.worker.unref();
      }
      this.finish(task, undefined, new NotCloneableError(`signature judge: trajectory ${task.req.t?.id} cannot be sent to a worker: ${(e as Error)?.message ?? e}`));
    }
  }

  private spawn(): Slot {
    // with a time limit, the worker counts the trajectories it finishes in shared memory (./worker.ts `progress`)
    const progress = Number.isFinite(this.limitMs) ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
    const workerData = progress ? { ...this.opts.judgeOptions, progress: progress.buffer } : this.opts.judgeOptions;
    const worker = new Worker(this.opts.entry, { workerData, execArgv: this.opts.execArgv, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, busy: new Map(), alone: false, started: false, progress, seen: 0, progressAt: performance.now(), timedOut: false };
    if (progress && !this.watch) {
      this.watch = setInterval(() => this.look(), watchEvery(this.limitMs));
      this.watch.unref();
    }
    worker.unref();
    worker.on("message", (replies: PoolReplies) => {
      // the worker's first message is an empty one once its judge is built (./worker.ts); any message is progress
      slot.started = true;
      slot.progressAt = performance.now();
      for (const m of replies) {
        const task = slot.busy.get(m.seq);
        if (!task) continue;
        slot.busy.delete(m.seq);
        if ("verdict" in m) this.finish(task, m.verdict);
        else {
          const e = new Error(`signature judge on ${task.req.t?.id}: ${m.error.name}: ${m.error.message}`);
          if (m.error.stack) e.stack = m.error.stack;
          this.finish(task, undefined, e);
        }
      }
      if (slot.busy.size === 0) {
        slot.alone = false;
        worker.unref();
      }
      this.pump();
    });
    // an uncaught error (or out of memory) is followed by `exit`, once the replies the worker sent before are read
    worker.on("error", (e) => (slot.why ??= `${e?.name ?? "Error"}: ${e?.message ?? e}`));
    worker.on("exit", (code) => this.died(slot, slot.why ?? `exit code ${code}`));
    this.slots.push(slot);
    return slot;
  }

  /**
   * The look at the workers' progress (module docstring): a started worker that holds work and has finished nothing
   * since the limit is terminated; its death (`exit`) is handled by {@link died}.
   */
  private look(): void {
    const now = performance.now();
    for (const s of this.slots) {
      if (!s.progress || s.timedOut || !s.started || s.busy.size === 0) continue;
      const n = Atomics.load(s.progress, 0);
      if (n !== s.seen) {
        s.seen = n;
        s.progressAt = now;
      } else if (now - s.progressAt >= this.limitMs) {
        s.timedOut = true;
        s.heldAtTimeOut = s.busy.size;
        void s.worker.terminate().catch(() => undefined);
      }
    }
  }

  /** The time limit as said in messages: `60 s`, `0.3 s`. */
  private limitSeconds(): string {
    return `${Number((this.limitMs / 1000).toPrecision(6))} s`;
  }

  /**
   * A worker died (module docstring): a trajectory it held alone is that trajectory's error; what else it held is sent
   * again one by one; past the bounds, the pool fails with `worker_crash`.
   */
  private died(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at < 0 || this.broken) return;
    this.slots.splice(at, 1);
    const held = [...slot.busy.values()].sort((a, b) => a.seq - b.seq);
    slot.busy.clear();
    if (slot.timedOut) {
      // terminated by the pool for the time limit: no bound counts it. What it held alone, still unfinished when it
      // exited, is that item's error; a reply or a finished trajectory that came in between (the stuck one ended as it
      // was stopped) leaves no one to blame: what is left is sent again alone
      const stuck = held.length === 1 && slot.heldAtTimeOut === 1 && slot.progress !== undefined && Atomics.load(slot.progress, 0) === slot.seen;
      if (stuck) {
        const t = held[0];
        this.finish(t, undefined, new Error(`signature judge on ${t.req.t?.id}: analysis took longer than the ${this.limitSeconds()} time limit (its worker was stopped): raise --signature-time-limit if the input is legitimately large; the other trajectories go on`));
      } else this.resendAlone(held);
      this.pump();
      return;
    }
    // it held one trajectory (sent again alone, or the only one it had): that one killed it
    const culprit = slot.started && held.length === 1 ? held[0] : undefined;
    // it held several: one of them did (they are sent again alone); it had not started or held nothing: no item did
    const several = slot.started && held.length > 1;
    if (culprit) this.culprits++;
    if (several) this.batchDeaths++;
    this.unexplained = culprit || several ? 0 : this.unexplained + 1;
    const bound =
      this.unexplained >= 2
        ? "twice in a row with no trajectory to blame"
        : this.batchDeaths > this.culprits + MAX_BATCH_DEATHS_UNFOUND
          ? `${this.batchDeaths} times holding several trajectories, while only ${this.culprits} trajectories were found to kill a worker`
          : null;
    if (bound) {
      const ids = held.map((task) => task.req.t?.id);
      for (const task of held) this.queue.unshift(task); // rejected with the rest, in order
      this.queue.sort((a, b) => a.seq - b.seq);
      this.fail(
        new JudgeFatalError(
          this.opts.judgeOptions.id,
          "worker_crash",
          `a signature judge worker died (${why})${ids.length ? ` while judging ${ids.join(", ").slice(0, 300)}` : ""}; workers died ${bound}: the judge stops; re-run the same command to resume`,
        ),
      );
      return;
    }
    if (culprit) {
      this.finish(culprit, undefined, new Error(`signature judge on ${culprit.req.t?.id}: the worker judging this trajectory alone died (${why}); the other trajectories go on`));
    } else this.resendAlone(held);
    this.pump();
  }

  /** What a dead worker held goes first in the queue, each to be sent alone, in order. */
  private resendAlone(held: Task[]): void {
    for (const task of held) task.alone = true;
    this.queue.unshift(...held);
    this.queue.sort((a, b) => (a.alone === b.alone ? a.seq - b.seq : a.alone ? -1 : 1));
  }

  /** A worker died: reject everything in flight and queued, and every later call. */
  private fail(e: JudgeFatalError): void {
    this.broken ??= e;
    clearInterval(this.watch);
    this.watch = undefined;
    for (const s of this.slots) {
      for (const task of s.busy.values()) this.finish(task, undefined, this.broken);
      s.busy.clear();
      void s.worker.terminate().catch(() => undefined);
    }
    this.slots.length = 0;
    for (const task of this.queue.splice(0)) this.finish(task, undefined, this.broken);
    this.flushAll();
  }

  private finish(task: Task, verdict?: Verdict, error?: unknown): void {
    this.done.set(task.seq, { task, verdict, error });
    while (this.done.has(this.nextOut)) {
      const d = this.done.get(this.nextOut)!;
      this.done.delete(this.nextOut);
      this.nextOut++;
      if (d.error !== undefined) d.task.reject(d.error);
      else d.task.resolve(d.verdict!);
    }
  }

  /** After a crash: hand back whatever finished, in order, even past a result that will never come. */
  private flushAll(): void {
    for (const seq of [...this.done.keys()].sort((a, b) => a - b)) {
      const d = this.done.get(seq)!;
      this.done.delete(seq);
      if (d.error !== undefined) d.task.reject(d.error);
      else d.task.resolve(d.verdict!);
    }
    this.nextOut = this.nextSeq;
  }
}

/**
 * Where the worker's module is, from this module's location: the bundled command line's `signature-worker.js`
 * beside its chunks (`dist/bin/`), the compiled library's `worker.js` beside `pool.js`, or the TypeScript source's
 * `worker.ts` (run with the `tsx` loader).
 * @param here `import.meta.url` of this module (a parameter for tests)
 * @returns the entry and the Node options it needs, or null when none is found
 */
export function signatureWorkerEntry(here: string = import.meta.url): { entry: URL; execArgv: string[]; source: boolean } | null {
  for (const [name, execArgv, source] of [
    ["./signature-worker.js", [], false],
    ["./worker.js", [], false],
    ["./worker.ts", ["--import", "tsx"], true],
  ] as const) {
    const entry = new URL(name, here);
    if (entry.protocol === "file:" && existsSync(fileURLToPath(entry))) return { entry, execArgv: [...execArgv], source };
  }
  return null;
}
