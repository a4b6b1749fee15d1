/**
 * The progress of the other commands' reads and analysis steps (src/cli/read-progress.ts) in each `--progress`
 * mode, on a simulated clock (no clock is read).
 */
import { describe, expect, it } from "vitest";
import { readProgress, stepLine } from "../../src/cli/read-progress.js";

const BAR = { mode: "bar", intervalMs: 30_000 } as const;
const LINES = { mode: "lines", intervalMs: 30_000 } as const;
const OFF = { mode: "off", intervalMs: 30_000 } as const;

function sim(start = 0) {
  let t = start;
  const out: string[] = [];
  return { io: { now: () => t, write: (s: string) => void out.push(s) }, out, at: (ms: number) => void (t = ms) };
}

describe("stepLine: the status of a long analysis step (issue 26)", () => {
  it("bar: writes the text in place and clears it when done; off: nothing", () => {
    const s = sim();
    stepLine("comparing 10 observations", OFF, s.io).done();
    expect(s.out).toEqual([]);
    const step = stepLine("comparing 10 observations", BAR, s.io);
    expect(s.out).toEqual(["\r\x1b[Kcomparing 10 observations..."]);
    step.done();
    expect(s.out[1]).toBe("\r\x1b[K");
  });

  it("lines: a step of a short command writes nothing (the command's time counts from its start, not the process's)", () => {
    const s = sim(2_000);
    const step = stepLine("comparing 10 observations", LINES, s.io);
    s.at(5_000);
    step.done();
    expect(s.out).toEqual([]);
    const again = sim(605_000);
    stepLine("comparing 10 observations", { ...LINES, startMs: 600_000 }, again.io).done();
    expect(again.out).toEqual([]);
  });

  it("lines: a start line once the command has run 10 s, and a done line for a step that took 10 s itself (once)", () => {
    const late = sim(12_000);
    const a = stepLine("comparing 954,033 observations (bootstrap 200)", LINES, late.io);
    late.at(13_000);
    a.done();
    expect(late.out).toEqual(["ipi-judge: comparing 954,033 observations (bootstrap 200)...\n"]);

    const long = sim(1_000);
    const b = stepLine("building the table over 1,000,000 trajectories", LINES, long.io);
    long.at(53_500);
    b.done();
    b.done();
    expect(long.out).toEqual(["ipi-judge: building the table over 1,000,000 trajectories: done in 52s\n"]);
  });
});

describe("readProgress", () => {
  it("lines: the first line after 10 s of reading, then one per interval; none for a short read", () => {
    const s = sim(5_000);
    const p = readProgress(LINES, s.io);
    for (let t = 5_000; t <= 75_000; t += 500) {
      s.at(t);
      p.progress!(t * 1e5, 7.5e9, "/runs/x/verdicts.jsonl");
    }
    p.stop();
    expect(s.out).toEqual([
      "ipi-judge: reading verdicts.jsonl 20% (1.5 GB of 7.5 GB) after 10s\n",
      "ipi-judge: reading verdicts.jsonl 60% (4.5 GB of 7.5 GB) after 40s\n",
      "ipi-judge: reading verdicts.jsonl 100% (7.5 GB of 7.5 GB) after 1m10s\n",
    ]);
    const short = sim();
    const q = readProgress(LINES, short.io);
    short.at(9_000);
    q.progress!(5e6, 5e6, "verdicts.jsonl");
    expect(short.out).toEqual([]);
  });

  it("bar: in place after a second, cleared at the end; off: no callback", () => {
    const s = sim();
    const p = readProgress(BAR, s.io);
    s.at(500);
    p.progress!(1e6, 4e6, "verdicts.jsonl");
    s.at(1_500);
    p.progress!(2e6, 4e6, "verdicts.jsonl");
    p.stop();
    expect(s.out).toEqual(["\r\x1b[Kreading verdicts.jsonl 50% (2 MB of 4 MB)", "\r\x1b[K"]);
    expect(readProgress(OFF, s.io).progress).toBeUndefined();
  });
});
