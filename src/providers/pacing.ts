/**
 * Pacing a judge's requests to its rate limits, and adapting its concurrency to the 429s it gets.
 *
 * - {@link RatePacer}: requests per minute (`rpm`) and estimated tokens per minute (`tpm`), as evenly spaced
 *   request starts: request i may start at `max(now, start(i-1) + interval(i-1))` with `interval = max(60000 /
 *   rpm, tokens * 60000 / tpm)` ms. This is the "virtual scheduling" form of the Generic Cell Rate Algorithm
 *   (ITU-T I.371; the leaky bucket used as a meter) with no burst allowance. Providers enforce per-minute limits
 *   over shorter windows too (OpenAI: "rate limits may be enforced over shorter periods, e.g. 600 RPM as 10
 *   requests per second"), so a burst of a whole minute's quota, which a sliding 60 s window would allow, draws
 *   429s; even spacing does not, and a run of n requests takes about `(n - 1) * 60000 / rpm` ms, the least the
 *   limit allows.
 * - {@link AimdLimiter}: requests in flight, adapted by additive increase / multiplicative decrease (AIMD, as TCP
 *   congestion control, RFC 5681): each 429 halves the number of requests in flight (at most once per round:
 *   429s of requests started before the last cut are the same congestion event), each success adds `1 / limit`
 *   (about +1 per round), between 1 and `max`. Waiters are served in order.
 *
 * Both take an injectable `sleep` and clock so tests run on virtual time.
 *
 * Why not a library (issue 27 asked; checked against p-throttle 8.1, limiter 4.1, bottleneck 2.19, p-limit 6):
 * - What {@link RatePacer} needs is one gate for two limits in different units (requests and estimated tokens
 *   per minute), spacing each start by the cost of the request before it, a per-request AbortSignal (a stopped
 *   run must not wait out its queue), an after-the-fact correction by the real token count (`settle`, both ways),
 *   and virtual time for tests. p-throttle counts weighted calls per fixed window (a whole minute's quota may
 *   start at once, which providers enforcing the limit over shorter windows answer with 429s; `strict` spaces
 *   but per call, not per token), aborts only the whole queue, has no correction and no clock to inject.
 *   limiter's RateLimiter/TokenBucket meter one unit per bucket (its README: awaiting two limiters in sequence
 *   is not atomic, and parent buckets share one unit), reject a request larger than the bucket, take no
 *   AbortSignal, cannot refund, and read the system clock. bottleneck's `minTime` is one fixed spacing, not one
 *   per request cost, it has no AbortSignal, and it has had no release since 2019.
 * - {@link AimdLimiter} needs a limit cut on a 429 at most once per round (by the start order of the request
 *   that got it) and waiters that leave the queue when their signal aborts. p-limit's `concurrency` can be
 *   changed at run time, but it cannot tell which round a 429 belongs to nor drop one aborted waiter; the
 *   AIMD rule would still be written here, so the library would add a dependency and remove no logic.
 */
import { defaultSleep } from "./signals.js";

/** What `sendChat` needs of a rate gate: wait until a request of `tokens` estimated tokens may start. */
export interface RequestGate {
  /** Resolves when the request may start (and books it); rejects when `signal` aborts. */
  acquire(tokens: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Even pacing to `rpm` and `tpm` (module docstring). Unset limits are unlimited; with neither set, `acquire`
 * resolves at once. Calls are served in order.
 */
export class RatePacer implements RequestGate {
  private next = 0;
  private chain: Promise<void> = Promise.resolve();
  /**
   * @param rpm requests per minute (> 0) or undefined.
   * @param tpm estimated tokens per minute (> 0) or undefined.
   * @param sleep waits `ms` milliseconds; rejects when the signal aborts.
   * @param now clock in ms.
   */
  constructor(
    readonly rpm: number | undefined,
    readonly tpm: number | undefined,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = defaultSleep,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spacing in ms after a request of `tokens` estimated tokens. */
  interval(tokens: number): number {
    const a = this.rpm ? 60_000 / this.rpm : 0;
    const b = this.tpm ? (Math.max(0, tokens) * 60_000) / this.tpm : 0;
    return Math.max(a, b);
  }

  acquire(tokens: number, signal?: AbortSignal): Promise<void> {
    const run = async () => {
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
      const now = this.now();
      const start = Math.max(now, this.next);
      if (start > now) await this.sleep(start - now, signal);
      this.next = start + this.interval(tokens);
    };
    const p = this.chain.then(run);
    this.chain = p.catch(() => undefined);
    return p;
  }

  /**
   * Correct the booking of a request once its real token count is known (`usage`): the next start moves by the
   * difference, so an estimate far from the truth does not drift the tokens-per-minute rate. Only with `tpm`.
   */
  settle(estimatedTokens: number, actualTokens: number): void {
    if (!this.tpm || !Number.isFinite(actualTokens) || actualTokens <= 0) return;
    this.next += ((actualTokens - estimatedTokens) * 60_000) / this.tpm;
  }
}

/** A request slot: call it to release the slot (idempotent); `seq` is the request's start order. */
export type Slot = (() => void) & { seq: number };

/** What `sendChat` needs of a concurrency limiter. */
export interface Pacer {
  /** Wait for a request slot. Rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<Slot>;
  /** A slot at once when `acquire` would grant one without waiting (nobody waits, one is free); else undefined. */
  tryAcquire?(): Slot | undefined;
  /** The server answered 429 (rate limited, not out of quota) to the request of slot `seq`. */
  onRateLimited(seq: number): void;
  /** A request succeeded. */
  onSuccess(): void;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Requests in flight, limited to an AIMD-adapted limit between 1 and `max` (module docstring).
 * `limit` is a real number; `floor(limit)` requests may be in flight.
 */
export class AimdLimiter implements Pacer {
  limit: number;
  inFlight = 0;
  /** How many times the limit was cut (for tests and logs). */
  decreases = 0;
  readonly max: number;
  private waiters: Waiter[] = [];
  private started = 0;
  /** 429s of requests started before this sequence number belong to a round already cut. */
  private cutAt = 0;

  /**
   * @param max the highest limit (>= 1; default unbounded: the runner's own concurrency then bounds what is in
   *   flight, and the first cut halves what was really in flight). The limit starts there.
   */
  constructor(max = Infinity) {
    this.max = Math.max(1, Math.floor(max));
    this.limit = this.max;
  }

  tryAcquire(): Slot | undefined {
    return this.inFlight < Math.floor(this.limit) && this.waiters.length === 0 ? this.grant() : undefined;
  }

  acquire(signal?: AbortSignal): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    const free = this.tryAcquire();
    if (free) return Promise.resolve(free);
    return new Promise<Slot>((resolve, reject) => {
      const w: Waiter = { resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason ?? new Error("aborted"));
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      this.waiters.push(w);
    });
  }

  private grant(): Slot {
    this.inFlight++;
    let done = false;
    const release = (() => {
      if (done) return;
      done = true;
      this.inFlight--;
      this.pump();
    }) as Slot;
    release.seq = this.started++;
    return release;
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.inFlight < Math.floor(this.limit)) {
      const w = this.waiters.shift()!;
      if (w.signal && w.onAbort) w.signal.removeEventListener("abort", w.onAbort);
      w.resolve(this.grant());
    }
  }

  onRateLimited(seq: number): void {
    if (seq < this.cutAt) return;
    // Halve what was really in flight (the 429'd request has released its slot: +1), not a limit never reached.
    this.limit = Math.max(1, Math.min(this.limit, this.inFlight + 1) / 2);
    this.decreases++;
    this.cutAt = this.started;
  }

  onSuccess(): void {
    const before = Math.floor(this.limit);
    this.limit = Math.min(this.max, this.limit + 1 / this.limit);
    if (Math.floor(this.limit) > before) this.pump();
  }
}
