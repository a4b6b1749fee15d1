import { describe, expect, it } from "vitest";
import { buildPopulation, cellKey, parseStrataFields, stratumKey } from "../../src/sample/population.js";
import { row } from "./fixtures.js";

describe("population", () => {
  it("deduplicates by content hash (smallest id kept) and by id, whatever the input order", () => {
    const rows = [row("c", { content_sha256: "same" }), row("a", { content_sha256: "same" }), row("b"), row("b", { content_sha256: "other" })];
    const p1 = buildPopulation(rows, null, []);
    const p2 = buildPopulation([...rows].reverse(), null, []);
    expect(p1.units.map((u) => u.id)).toEqual(["a", "b"]);
    expect(p2.units).toEqual(p1.units);
    expect(p1.dropped).toEqual([
      { id: "b", duplicate_of: "b", reason: "same_id" },
      { id: "c", duplicate_of: "a", reason: "same_content" },
    ]);
    expect(p1.units.find((u) => u.id === "b")!.content_sha256).toBe("other"); // the smaller hash
  });
  it("builds stratum keys from the given fields, with (none) for missing values", () => {
    const f = parseStrataFields(["agent_model", " suite", "agent_model", ""]);
    expect(f).toEqual(["agent_model", "suite"]);
    expect(stratumKey(row("x", { agent_model: "gpt-4o" }), f)).toBe("agent_model=gpt-4o,suite=(none)");
    expect(stratumKey(row("x"), [])).toBe("all");
    expect(stratumKey(row("x", { attacked: false }), ["attacked"])).toBe("attacked=false");
    expect(() => parseStrataFields(["model"])).toThrow(/unknown stratum field "model" \(allowed: agent_model/);
  });
  it("puts each trajectory in A (unanimous), D (not) or U (no committee verdict)", () => {
    const p = buildPopulation([row("a"), row("b"), row("c")], [
      { trajectory_id: "a", unanimous: true },
      { trajectory_id: "b", unanimous: true },
      { trajectory_id: "b", unanimous: false },
      { trajectory_id: "zzz", unanimous: false },
    ], []);
    expect(p.units.map((u) => u.committee_stratum)).toEqual(["A", "D", "U"]);
    expect(p.committee_missing).toBe(1);
    expect(p.committee_unmatched).toBe(1);
    expect(() => buildPopulation([row("a")], [{ trajectory_id: "a" } as never], [])).toThrow(/boolean unanimous/);
    expect(buildPopulation([row("a")], null, []).units[0].committee_stratum).toBeNull();
  });
  it("names post-stratification cells", () => {
    expect(cellKey("all", "D")).toBe("D");
    expect(cellKey("suite=banking", "A")).toBe("A|suite=banking");
    expect(cellKey("suite=banking", null)).toBe("suite=banking");
    expect(cellKey("all", null)).toBe("all");
  });
});
