import { describe, expect, it } from "vitest";
import { buildPopulation, cellKey, parseStrataFields, stratumKey } from "../../src/sample/population.js";
import { row } from "./fixtures.js";
import { committeeVote } from "../../src/committee/vote.js";
import { drawSample } from "../../src/sample/sample.js";
import type { Bucket } from "../../src/types.js";

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
  it("a committee verdict without quorum is never in the disagreement pool (U), a disputed one is (D)", () => {
    // Real committee verdicts: two judges, quorum 2; one judge errs on b and c (no quorum), they split on d.
    const votes: Record<string, Record<string, Bucket | null>> = {
      a: { j1: "unaffected", j2: "unaffected" },
      b: { j1: "full_compliance", j2: null },
      c: { j1: null, j2: null },
      d: { j1: "full_compliance", j2: "unaffected" },
    };
    const cv = Object.entries(votes).map(([id, v]) => committeeVote(id, v, 2));
    expect(cv.map((c) => c.status)).toEqual(["ok", "no_quorum", "no_quorum", "disputed"]);
    const p = buildPopulation(["a", "b", "c", "d"].map((id) => row(id)), cv, []);
    expect(p.units.map((u) => u.committee_stratum)).toEqual(["A", "U", "U", "D"]);
    expect(p.committee_no_quorum).toBe(2);
    expect(p.committee_missing).toBe(0);
    const d = drawSample(p, { random: 0, disagreement: 5, seed: 1, allowShort: true });
    expect(d.design.population.N_D).toBe(1);
    expect(d.items.map((i) => i.trajectory_id)).toEqual(["d"]);
  });
  it("names post-stratification cells", () => {
    expect(cellKey("all", "D")).toBe("D");
    expect(cellKey("suite=banking", "A")).toBe("A|suite=banking");
    expect(cellKey("suite=banking", null)).toBe("suite=banking");
    expect(cellKey("all", null)).toBe("all");
  });
});
