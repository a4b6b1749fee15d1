import { describe, expect, it } from "vitest";
import { killedCostText } from "../../src/run/killed-cost.js";
import { describeCost, emptyCost, addCost } from "../../src/providers/cost.js";

describe("the run's cost after a killed label invocation (break55 #3)", () => {
  it("no text without a killed invocation", () => {
    expect(killedCostText(undefined)).toBeUndefined();
    expect(killedCostText({ count: 0, last_started_at: "t" })).toBeUndefined();
  });
  it("names the invocations and the bound of docs/cost.md", () => {
    const t = killedCostText({ count: 1, last_started_at: "2026-12-07T10:00:00.000Z" })!;
    expect(t).toMatch(/^1 earlier label invocation of this run \(the last started 2026-12-07T10:00:00.000Z\) ended without finishing \(killed or crashed\)/);
    expect(t).toContain("at most each judge's concurrency conversations per such invocation");
    expect(killedCostText({ count: 2, last_started_at: "t" })).toMatch(/^2 earlier label invocations .* the requests they had in flight/);
  });
  it("describeCost prints the figure as at least, with the reason, and keeps an incomplete count", () => {
    const c = emptyCost();
    addCost(c, 0.127643, undefined);
    expect(describeCost(c)).toBe("$0.128");
    expect(describeCost({ ...c, lower_bound: "why" })).toBe("at least $0.128 (LOWER BOUND: why)");
    const u = emptyCost();
    addCost(u, 0.1, undefined);
    addCost(u, null, undefined);
    expect(describeCost({ ...u, lower_bound: "why" })).toMatch(/^at least \$0\.1\d* \(INCOMPLETE: 1 verdict\(s\) without a known cost: .*; LOWER BOUND: why\)$/);
  });
});
