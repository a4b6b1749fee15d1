/**
 * `bench/marginal.ts`: the marginal CPU per request the realistic bench prints for `--realistic-marginal` (issue 26
 * point 2), a straight line through two runs of one program.
 */
import { describe, expect, it } from "vitest";
import { marginalCpu, marginalLines } from "../../bench/marginal.js";

describe("bench marginal CPU", () => {
  it("splits two runs into a per-item slope and a one-off cost", () => {
    // 2 ms per item plus 4 s paid once
    const r = marginalCpu({ n: 5000, cpuMs: 4000 + 5000 * 2 }, { n: 20000, cpuMs: 4000 + 20000 * 2 });
    expect(r.marginal).toBeCloseTo(2, 12);
    expect(r.fixed).toBeCloseTo(4000, 9);
  });

  it("refuses two runs of the same size", () => {
    expect(() => marginalCpu({ n: 5000, cpuMs: 1 }, { n: 5000, cpuMs: 2 })).toThrow(/two run sizes/);
  });

  it("prints the marginal ratio beside the whole-run ratios", () => {
    const lines = marginalLines(
      { label: [{ n: 1000, cpuMs: 1000 + 3000 }, { n: 3000, cpuMs: 1000 + 9000 }] },
      [{ n: 1000, cpuMs: 2000 + 1000 }, { n: 3000, cpuMs: 2000 + 3000 }],
    );
    expect(lines[0]).toContain("marginal 1.00 ms/item, fixed 2.0 s");
    // whole-run 4.00 / 3.33 ms/item, 1.33x / 2.00x the bare loop's; marginal 3 against 1
    expect(lines[1]).toContain("4.00 / 3.33 ms/item whole-run (1.33x / 2.00x the bare loop's)");
    expect(lines[1]).toContain("marginal 3.00 ms/item, fixed 1.0 s: marginal ratio 3.00x");
  });
});
