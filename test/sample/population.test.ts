import { describe, expect, it } from "vitest";
import { buildPopulation, cellKey, parseStrataFields, stratumKey } from "../../src/sample/population.js";
import { row } from "./fixtures.js";
import { committeeVote } from "../../src/verdict/vote.js";
import { drawSample } from "../../src/sample/sample.js";
import type { Bucket } from "../../src/types.js";

describe("population", () => {
  it("one unit per id: the same id twice is one run (smaller hash kept); the same content under two ids is two runs", () => {
    // (this test used to assert that "c" was dropped as a content duplicate of "a": distinct runs are distinct units)
    const rows = [row("c", { content_sha256: "same" }), row("a", { content_sha256: "same" }), row("b"), row("b", { content_sha256: "other" })];
    const p1 = buildPopulation(rows, null, []);
    const p2 = buildPopulation([...rows].reverse(), null, []);
    expect(p1.units.map((u) => u.id)).toEqual(["a", "b", "c"]);
    expect(p2.units).toEqual(p1.units);
    expect(p1.dropped).toEqual([{ id: "b", duplicate_of: "b", reason: "same_id" }]);
    expect(p1.content_twins).toEqual([{ id: "c", same_content_as: "a" }]);
    expect(p1.units.find((u) => u.id === "b")!.content_sha256).toBe("other"); // the smaller hash
  });
  it("identical content never changes stratum sizes or inclusion probabilities (AgentDyn: a no_defense run and its repeat_user_prompt twin)", () => {
    const rows = [
      row("gemini/no_defense/t1", { content_sha256: "h1", condition: "no_defense" }),
      row("gemini/repeat_user_prompt/t1", { content_sha256: "h1", condition: "repeat_user_prompt" }),
      row("gemini/repeat_user_prompt/t2", { content_sha256: "h2", condition: "repeat_user_prompt" }),
    ];
    const pop = buildPopulation(rows, null, ["condition"]);
    const { design } = drawSample(pop, { random: 2, disagreement: 0, seed: 7 });
    expect(design.population.N).toBe(3);
    expect(design.population.content_twins).toBe(1);
    expect(design.phase1.allocation.map((a) => [a.sampling_stratum, a.N])).toEqual([
      ["condition=no_defense", 1],
      ["condition=repeat_user_prompt", 2],
    ]);
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
