/**
 * progressRate (src/cli/label-rate.ts): the bar's rate counts the trajectories read, not a resume's files taken as
 * unchanged unread (red team 9: 100,000 passed over in 3 s, then 1,000 at 5/s; the ETA said "1s" with 193 s left).
 */
import { describe, expect, it } from "vitest";
import { progressRate } from "../../src/cli/label-rate.js";
import type { LabelProgress } from "../../src/run/label-core.js";
import type { RateState } from "../../src/cli/eta.js";

const progress = (read: number, unread: number, total: number): LabelProgress =>
  ({ read, unread, total, errors: 0, judged: read - unread, skipped: unread, in_flight: 0, changed: 0 }) as unknown as LabelProgress;

describe("progressRate", () => {
  it("a resume: files passed over unread do not count in the rate; the ETA is the judged pace's", () => {
    let state: RateState | undefined;
    let last: ReturnType<typeof progressRate> | undefined;
    // 100,000 unread in the first 3 s (one report per 100 ms), then 5 trajectories a second, reported each second
    for (let t = 0; t <= 3000; t += 100) last = progressRate(state, progress(Math.round((100_000 * t) / 3000), Math.round((100_000 * t) / 3000), 101_000), t), (state = last.state);
    for (let s = 1; s <= 60; s++) {
      last = progressRate(state, progress(100_000 + 5 * s, 100_000, 101_000), 3000 + s * 1000);
      state = last.state;
    }
    const left = 1_000 - 300; // 700 trajectories at 5/s
    // within 2%: the first 3 s, with no trajectory read, still weigh a little after a minute (exp(-60/30))
    expect(Math.abs(last!.rate! - 5) / 5).toBeLessThan(0.02);
    expect(Math.abs(last!.eta! - left / 5) / (left / 5)).toBeLessThan(0.02);
  });

  it("a fresh run: the rate is trajectories read per second", () => {
    let state: RateState | undefined;
    let last: ReturnType<typeof progressRate> | undefined;
    for (let s = 0; s <= 20; s++) (last = progressRate(state, progress(10 * s, 0, 1_000), s * 1000)), (state = last.state);
    expect(last!.rate).toBeCloseTo(10, 5);
    expect(last!.eta).toBeCloseTo(80, 3);
  });

  it("a resume's skip pass before its first verdict: no ETA (its pace is not the judging's), then the judged pace's", () => {
    const p = (read: number, judged: number, skipped: number) => ({ read, unread: 0, total: 10_018, errors: 0, judged, skipped, in_flight: 0, changed: 0 }) as unknown as LabelProgress;
    let state: RateState | undefined;
    let last: ReturnType<typeof progressRate> | undefined;
    // 2,431 stored before a kill -9, read again at ~10/s: no verdict stored yet
    for (let s = 0; s <= 40; s++) (last = progressRate(state, p(Math.min(2_431, 10 * s), 0, Math.min(2_431, 10 * s)), s * 1000)), (state = last.state);
    expect(last!.rate).toBeGreaterThan(0);
    expect(last!.eta).toBeUndefined();
    // judging has started: an ETA again
    last = progressRate(state, p(2_500, 69, 2_431), 41_000);
    expect(last.eta).toBeGreaterThan(0);
  });
});
