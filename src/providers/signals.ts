/**
 * Abort signals and waits of one request: a per-request signal bounded by a timeout, a child signal that does not
 * pile listeners on the run's signal, and a timer that an abort cancels. Every delay goes through {@link longTimer}: a
 * Node.js timer longer than 2^31-1 ms fires after 1 ms (red team 31 F5), so a longer one is waited in steps.
 */
import { MAX_TIMER_MS } from "../config/judges.js";

/**
 * `setTimeout(fn, ms)` for any delay: one over {@link MAX_TIMER_MS} (which Node.js would fire after 1 ms, with a
 * TimeoutOverflowWarning) is waited in steps of at most that; `Infinity` never fires. `clear()` cancels it.
 */
export function longTimer(fn: () => void, ms: number): { clear: () => void } {
  let t: ReturnType<typeof setTimeout> | undefined;
  const arm = (left: number) => {
    t = left > MAX_TIMER_MS ? setTimeout(() => arm(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(fn, left);
  };
  arm(Number.isNaN(ms) ? 0 : Math.max(0, ms));
  return { clear: () => clearTimeout(t) };
}

/**
 * The signal of one request: aborts when `parent` aborts (through the fan-out of {@link scopedSignal}, so no listener piles up
 * on the run's signal) or after `timeoutMs` (reason a `TimeoutError`). Unlike the client's own timeout, which
 * stops when the headers arrive, this one bounds the whole request, body included. `dispose()` clears the timer.
 */
export function requestSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  const ac = new AbortController();
  // one controller: the request's own, aborted by `parent` through its shared fan-out (no scoped controller between)
  const unlink = linkChild(parent, ac);
  let timedOut = false;
  const timer = longTimer(() => {
    timedOut = true;
    ac.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, "TimeoutError"));
  }, Math.max(1, timeoutMs));
  return {
    signal: ac.signal,
    timedOut: () => timedOut && !parent?.aborted,
    dispose: () => {
      timer.clear();
      unlink();
    },
  };
}

/** A timer that rejects when the signal aborts; any delay ({@link longTimer}). */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = longTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      t.clear();
      reject(signal?.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A per-request signal that follows `parent` (aborts when it aborts) and whose link to `parent` is removed by
 * `dispose()`. The `openai` client adds an `abort` listener to the signal it is given and never removes it, so
 * passing one long-lived run signal to every request would pile up one listener (and its closure) per request:
 * memory growing with the run and `addEventListener` getting slower with every request (a quadratic run).
 */
export function scopedSignal(parent: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose: () => void } {
  if (!parent) return { signal: undefined, dispose: () => {} };
  const ac = new AbortController();
  return { signal: ac.signal, dispose: linkChild(parent, ac) };
}

/**
 * Abort `ac` with `parent`'s reason when `parent` aborts (at once when it already has), through one listener per
 * parent that fans out to its live children (no MaxListenersExceededWarning at any concurrency).
 * @returns the unlink (idempotent): after it, `parent` no longer reaches `ac`.
 */
function linkChild(parent: AbortSignal | undefined, ac: AbortController): () => void {
  if (!parent) return () => {};
  if (parent.aborted) {
    ac.abort(parent.reason);
    return () => {};
  }
  let live = scopedChildren.get(parent);
  if (!live) {
    const set = new Set<AbortController>();
    live = set;
    scopedChildren.set(parent, set);
    parent.addEventListener(
      "abort",
      () => {
        for (const c of set) c.abort(parent.reason);
        set.clear();
      },
      { once: true },
    );
  }
  const set = live;
  set.add(ac);
  return () => set.delete(ac);
}

const scopedChildren = new WeakMap<AbortSignal, Set<AbortController>>();
