import { describe, expect, it } from "vitest";
import { gcDue, heapGcTrigger, HEAP_GC_RULE } from "../../src/io/heap-gc.js";

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
});
