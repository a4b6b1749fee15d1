/**
 * label's progress lines for logs (src/cli/progress-lines.ts): the line's text, when one is due, and the reporter
 * driven by a simulated clock and timer (no clock is read, nothing is timed).
 */
import { describe, expect, it } from "vitest";
import { batchLineGate, formatElapsed, labelLinesReporter, labelProgressLine, lineDue } from "../../src/cli/progress-lines.js";
import type { LabelProgress } from "../../src/run/label-core.js";

const progress = (o: Partial<LabelProgress>): LabelProgress =>
  ({ read: 0, total: 0, judged: 0, skipped: 0, errors: 0, judge_crashes: 0, empty_placeholders: 0, in_flight: 0, changed: 0, unread: 0, ...o }) as LabelProgress;

describe("labelProgressLine", () => {
  it("says done/total, the share (floored), elapsed, rate, ETA and the counts", () => {
    const p = progress({ read: 12_301, errors: 44, total: 100_000, judged: 12_001, skipped: 300, in_flight: 128 });
    expect(labelProgressLine(p, 450.4, 192, 250_000)).toBe(
      "ipi-judge: label: 12,345/100,000 trajectories (12.3%) after 4m10s, 450/s, ETA 3m12s; verdicts stored 12,001, already stored 300, input errors 44, judge crashes 0, in flight 128",
    );
    // read ahead and waiting for the judge's turn: said apart from what is at the judge (was "in flight 8" at concurrency 4)
    expect(labelProgressLine({ ...p, in_flight: 4, queued: 4 }, 450.4, 192, 250_000)).toMatch(/, in flight 4, queued 4$/);
    // 99.99% done is not 100.0%
    expect(labelProgressLine(progress({ read: 9_999, total: 10_000 }), 10, 0.1, 1000)).toContain("9,999/10,000 trajectories (99.9%)");
  });

  it("an unknown rate or ETA reads --; a total not yet counted gives no share and no ETA (not 0s)", () => {
    expect(labelProgressLine(progress({ read: 5, total: 20 }), undefined, undefined, 1500)).toContain("5/20 trajectories (25.0%) after 1s, --/s, ETA --;");
    const line = labelProgressLine(progress({ read: 500 }), 50, 0, 12_000);
    expect(line).toContain("500 (total not counted yet) trajectories after 12s, 50.0/s, ETA --;");
    expect(line).not.toContain("%");
  });

  it("counts input errors and empty placeholders as done, and a total below done as done", () => {
    expect(labelProgressLine(progress({ read: 10, errors: 2, empty_placeholders: 3, total: 12 }), 1, 0, 0)).toContain("15/15 trajectories (100.0%)");
  });

  it("formatElapsed floors to whole seconds", () => {
    expect(formatElapsed(999)).toBe("0s");
    expect(formatElapsed(61_500)).toBe("1m01s");
    expect(formatElapsed(-5)).toBe("0s");
  });
});

describe("lineDue", () => {
  it("the first line after min(interval, 10 s), then one per interval since the last", () => {
    expect(lineDue(0, undefined, 9_999, 30_000)).toBe(false);
    expect(lineDue(0, undefined, 10_000, 30_000)).toBe(true);
    expect(lineDue(0, undefined, 50, 100)).toBe(false);
    expect(lineDue(0, undefined, 100, 100)).toBe(true);
    expect(lineDue(0, 10_000, 39_999, 30_000)).toBe(false);
    expect(lineDue(0, 10_000, 40_000, 30_000)).toBe(true);
    expect(lineDue(1000, undefined, 1000 + 5_000, 60_000, 5_000)).toBe(true);
  });
});

/** A simulated clock and timer: `advance` moves the clock and fires the timer at each period it passes. */
function simulated() {
  let t = 0;
  const out: string[] = [];
  let timer: { ms: number; next: number; tick: () => void } | undefined;
  const io = {
    now: () => t,
    write: (s: string) => void out.push(s),
    every: (ms: number, tick: () => void) => {
      timer = { ms, next: t + ms, tick };
      return () => (timer = undefined);
    },
  };
  const advance = (ms: number) => {
    const end = t + ms;
    while (timer && timer.next <= end) {
      t = timer.next;
      timer.next += timer.ms;
      timer.tick();
    }
    t = end;
  };
  return { io, out, advance, hasTimer: () => timer !== undefined };
}

describe("labelLinesReporter", () => {
  it("a run of 12 s at 10/s prints one line, at 10 s; a run of 9 s prints none", () => {
    const short = simulated();
    const r0 = labelLinesReporter(30_000, short.io);
    for (let s = 1; s <= 9; s++) short.advance(1000), r0.update(progress({ read: 10 * s, total: 1000 }));
    r0.stop();
    expect(short.out).toEqual([]);

    const sim = simulated();
    const r = labelLinesReporter(30_000, sim.io);
    for (let s = 1; s <= 12; s++) sim.advance(1000), r.update(progress({ read: 10 * s, judged: 10 * s, total: 1000 }));
    expect(sim.out).toHaveLength(1);
    // the timer's look at 10 s comes before that second's report: the line shows the last one (90 read)
    expect(sim.out[0]).toMatch(/^ipi-judge: label: 90\/1,000 trajectories \(9\.0%\) after 10s, \d\.\d\/s, ETA 1m\d\ds; verdicts stored 90, already stored 0, input errors 0, judge crashes 0, in flight 0\n$/);
    r.stop();
  });

  it("then one line per interval, from the updates or, when the run stalls, from the timer (its rate falling)", () => {
    const sim = simulated();
    const r = labelLinesReporter(30_000, sim.io);
    for (let s = 1; s <= 70; s++) sim.advance(1000), r.update(progress({ read: 10 * s, total: 10_000, in_flight: 8 }));
    expect(sim.out.map((l) => l.match(/after (\S+),/)![1])).toEqual(["10s", "40s", "1m10s"]);
    // stalled: no update for two minutes; the timer still writes a line per interval
    sim.advance(120_000);
    expect(sim.out).toHaveLength(7);
    const rates = sim.out.slice(3).map((l) => Number(l.match(/, ([\d.]+)\/s,/)![1]));
    for (let i = 1; i < rates.length; i++) expect(rates[i]).toBeLessThan(rates[i - 1]);
    expect(sim.out.at(-1)).toContain("700/10,000 trajectories");
    r.stop();
    expect(sim.hasTimer()).toBe(false);
    sim.advance(120_000);
    expect(sim.out).toHaveLength(7);
  });

  it("leaves a line out when nothing moved, every input was read and nothing is in flight (a Batch API wait)", () => {
    const sim = simulated();
    const r = labelLinesReporter(1000, sim.io);
    sim.advance(1000);
    r.update(progress({ read: 50, total: 50 }));
    sim.advance(10_000);
    expect(sim.out).toHaveLength(1);
    // something moved (verdicts of a batch stored): a line again
    r.update(progress({ read: 50, total: 50, judged: 20 }));
    expect(sim.out).toHaveLength(2);
    // in flight (an endpoint that stopped answering): a line per interval though nothing moved
    r.update(progress({ read: 50, total: 50, judged: 20, in_flight: 4 }));
    sim.advance(5_000);
    expect(sim.out.length).toBeGreaterThanOrEqual(7);
    r.stop();
  });
});

describe("batchLineGate", () => {
  it("a status change always; an unchanged status at every poll (bar), once per interval (lines), never (off)", () => {
    let t = 0;
    const now = () => t;
    const bar = batchLineGate({ mode: "bar", intervalMs: 30_000 }, now);
    const lines = batchLineGate({ mode: "lines", intervalMs: 30_000 }, now);
    const off = batchLineGate({ mode: "off", intervalMs: 30_000 }, now);
    const polls: Array<[number, string]> = [[0, "validating"], [10_000, "in_progress"], [20_000, "in_progress"], [30_000, "in_progress"], [40_000, "in_progress"], [50_000, "completed"]];
    const seen = { bar: [] as number[], lines: [] as number[], off: [] as number[] };
    for (const [at, status] of polls) {
      t = at;
      if (bar("b1", status)) seen.bar.push(at);
      if (lines("b1", status)) seen.lines.push(at);
      if (off("b1", status)) seen.off.push(at);
    }
    expect(seen.bar).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(seen.lines).toEqual([0, 10_000, 40_000, 50_000]);
    expect(seen.off).toEqual([0, 10_000, 50_000]);
  });
});
