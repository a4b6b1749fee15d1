import { describe, expect, it } from "vitest";
import { PooledExposureTally, pooledExposureLowWarning } from "../../src/stats/pooled-exposure.js";

describe("pooled exposure: the EXPOSURE LOW groups of a pooled figure (red team 25 M2)", () => {
  it("names each low group with its counts; weights count; below 10% only", () => {
    const t = new PooledExposureTally();
    for (let i = 0; i < 40; i++) t.add("m", "no_defense", true);
    t.add("m", "tool_filter", false, 35);
    t.add("m", "tool_filter", true, 3); // 3/38 = 7.9%: low
    t.add("n", undefined, false, 9);
    t.add("n", undefined, true, 1); // 1/10 = 10%: not low
    expect(t.size).toBe(3);
    expect(t.low()).toEqual([{ model: "m", condition: "tool_filter", exposed: 3, n: 38 }]);
    expect(pooledExposureLowWarning("the figure's rates", t)).toMatch(/^the figure's rates pool 3 \(agent model, condition\) groups, 1 of them EXPOSURE LOW \(fewer than 10% .*\): m \| tool_filter 3\/38 exposed; /);
  });
  it("one group, or none low: no warning (the figure's own exposure says it)", () => {
    const one = new PooledExposureTally();
    one.add("m", "c", false, 50);
    expect(pooledExposureLowWarning("x", one)).toBeNull();
    const none = new PooledExposureTally();
    none.add("m", "a", true);
    none.add("m", "b", true);
    expect(pooledExposureLowWarning("x", none)).toBeNull();
  });
  it("names holding ' | ' are kept apart (model 'a | b' under c, model 'a' under 'b | c')", () => {
    const t = new PooledExposureTally();
    t.add("a | b", "c", false, 10);
    t.add("a", "b | c", true, 10);
    expect(t.size).toBe(2);
    expect(t.low()).toEqual([{ model: "a | b", condition: "c", exposed: 0, n: 10 }]);
  });
});
