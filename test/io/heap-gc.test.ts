import { describe, expect, it } from "vitest";
import { gcDue, heapGcTrigger, HEAP_GC_RULE, LABEL_BACKSTOP_RULE } from "../../src/io/heap-gc.js";

const MB = 1024 * 1024;

describe("heap-size GC trigger (issue 26: no collection on a fixed count)", () => {
  it("never collects below the resident floor", () => {
    expect(gcDue(1000 * MB, HEAP_GC_RULE.rssFloor - 1, 0)).toBe(false);
  });
  it("collects once the heap grew past the live set plus the headroom", () => {
    expect(gcDue(100 * MB, 300 * MB, 40 * MB)).toBe(false); // 40 + 64 = 104 MB allowed
    expect(gcDue(105 * MB, 300 * MB, 40 * MB)).toBe(true);
    expect(gcDue(440 * MB, 500 * MB, 300 * MB)).toBe(false); // 300 + 150 = 450 MB allowed
    expect(gcDue(451 * MB, 500 * MB, 300 * MB)).toBe(true);
  });
  it("spaces collections by allocation, so their number does not grow with the checks", () => {
    // a simulated run: 1 MB of garbage per step, a live set growing 0.1 MB per step; a check every step
    let garbage = 0;
    let live = 10 * MB;
    const mem = () => ({ heapUsed: live + garbage, rss: 400 * MB });
    const t = heapGcTrigger(() => (garbage = 0), mem);
    for (let i = 0; i < 10_000; i++) {
      garbage += MB;
      live += 0.1 * MB;
      t.check();
    }
    // headroom >= 64 MB of garbage between collections: at most 10,000 / 64 of them; and far fewer checks collect
    expect(t.collections()).toBeGreaterThan(0);
    expect(t.collections()).toBeLessThanOrEqual(Math.ceil(10_000 / 64));
  });
  it("label's backstop forces one only past double the last live heap (and 128 MB): V8's own collections do the rest", () => {
    expect(gcDue(127 * MB, 300 * MB, 0, LABEL_BACKSTOP_RULE)).toBe(false);
    expect(gcDue(129 * MB, 300 * MB, 0, LABEL_BACKSTOP_RULE)).toBe(true);
    expect(gcDue(199 * MB, 300 * MB, 100 * MB, LABEL_BACKSTOP_RULE)).toBe(false); // 100 + max(128, 100) = 228 MB allowed
    expect(gcDue(229 * MB, 300 * MB, 100 * MB, LABEL_BACKSTOP_RULE)).toBe(true);
    expect(gcDue(599 * MB, 700 * MB, 300 * MB, LABEL_BACKSTOP_RULE)).toBe(false); // 300 + 300
    expect(gcDue(1000 * MB, LABEL_BACKSTOP_RULE.rssFloor - 1, 300 * MB, LABEL_BACKSTOP_RULE)).toBe(false);
  });
  it("under the backstop, a live set growing steadily is forced a few times, not once per 64 MB of garbage", () => {
    // V8 collecting by itself at 1.5x the live set (the factor label sets); the live set grows 0.1 MB per step
    let live = 10 * MB;
    let heap = live;
    const mem = () => ({ heapUsed: heap, rss: 400 * MB });
    const t = heapGcTrigger(() => (heap = live), mem, LABEL_BACKSTOP_RULE);
    for (let i = 0; i < 10_000; i++) {
      live += 0.1 * MB;
      heap += MB;
      if (heap > live * 1.5 + 8 * MB) heap = live; // V8's own collection
      t.check();
    }
    // the live set went 10 -> 1010 MB: forced when V8 let it grow past double the last forced live, so ~log2(100)
    expect(t.collections()).toBeLessThanOrEqual(8);
  });
});
