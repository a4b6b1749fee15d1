/**
 * `label`'s line while a resume reads its journals back (m1m51, session 51: 23 silent minutes on a 1M run):
 * throttled to one line per interval, none before the first interval, nothing with --progress off; fed only while
 * the run store opens (`loadCheck`), not by the summary's later reads.
 */
import { describe, expect, it } from "vitest";
import { loadProgressLine } from "../../src/cli/load-progress.js";
import { loadCheck } from "../../src/run/before-reading.js";
import type { LabelOptions } from "../../src/run/label-options.js";

describe("the journals' read-back line", () => {
  it("one line per interval, the run quoted, lines and seconds so far; none for a quick read; none when off", () => {
    let t = 0;
    const out: string[] = [];
    const f = loadProgressLine({ mode: "lines", intervalMs: 10_000 }, 'big "run"', { intervalMs: 5000, now: () => t, out: (s) => out.push(s) })!;
    f(1024);
    t = 4999;
    f(2048);
    expect(out).toEqual([]);
    t = 5000;
    f(3072);
    t = 7000;
    f(4096);
    t = 10_100;
    f(1_048_576);
    expect(out).toEqual([
      `reading back run "big \\"run\\""'s journals (resume): 3,072 lines so far (5 s)\n`,
      `reading back run "big \\"run\\""'s journals (resume): 1,048,576 lines so far (10 s)\n`,
    ]);
    expect(loadProgressLine({ mode: "off", intervalMs: 0 }, "r")).toBeUndefined();
  });

  it("loadCheck passes the lines read while the store opens, then only the heap check", () => {
    const seen: number[] = [];
    let heap = 0;
    const opening = { done: false };
    const check = loadCheck({ onLoadProgress: (n: number) => seen.push(n), onHeapCheck: () => heap++ } as unknown as LabelOptions, opening)!;
    check();
    check();
    opening.done = true;
    check();
    expect(seen).toEqual([1024, 2048]);
    expect(heap).toBe(3);
  });
});
