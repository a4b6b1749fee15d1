/**
 * Timers of one request past the longest Node.js timer (src/providers/signals.ts `longTimer`; red team 31 F5: a
 * timeout of 1e12 s aborted every request after 1 ms, a pacing wait past 2^31-1 ms fired at once).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultSleep, longTimer, requestSignal } from "../../src/providers/signals.js";
import { MAX_TIMER_MS } from "../../src/config/judges.js";

afterEach(() => vi.useRealTimers());

describe("longTimer", () => {
  it("a delay over 2^31-1 ms is waited in steps, not fired after 1 ms", () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    longTimer(fn, MAX_TIMER_MS * 2 + 10);
    vi.advanceTimersByTime(5);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_MS * 2);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5);
    expect(fn).toHaveBeenCalledTimes(1);
  });
  it("clear() cancels it in any step; a short delay is one timer", () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const t = longTimer(fn, MAX_TIMER_MS + 100);
    vi.advanceTimersByTime(MAX_TIMER_MS + 1);
    t.clear();
    vi.advanceTimersByTime(1000);
    expect(fn).not.toHaveBeenCalled();
    const g = vi.fn();
    longTimer(g, 20);
    vi.advanceTimersByTime(20);
    expect(g).toHaveBeenCalledTimes(1);
  });
});

describe("the request's timeout and waits, real timers", () => {
  it("requestSignal with a timeout past the limit does not abort at once", async () => {
    const r = requestSignal(undefined, 1e15);
    await new Promise((z) => setTimeout(z, 30));
    expect(r.signal.aborted).toBe(false);
    r.dispose();
  });
  it("defaultSleep past the limit does not resolve at once; an abort rejects it", async () => {
    const ac = new AbortController();
    let done = false;
    const p = defaultSleep(60_000 / 1e-5, ac.signal).then(() => (done = true));
    await new Promise((z) => setTimeout(z, 30));
    expect(done).toBe(false);
    ac.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
  });
});
