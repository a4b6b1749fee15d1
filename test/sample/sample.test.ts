import { describe, expect, it } from "vitest";
import { buildPopulation, type CommitteeRow } from "../../src/sample/population.js";
import { drawSample, SampleError } from "../../src/sample/sample.js";
import { row } from "./fixtures.js";

/** 30 trajectories in 3 suites of 10; D = ids with i % 4 == 1 (8 disagreements, spread over the suites). */
function population(strata: string[] = ["suite"]) {
  const rows = Array.from({ length: 30 }, (_, i) => row(`t${String(i).padStart(2, "0")}`, { suite: ["banking", "slack", "travel"][i % 3] }));
  const committee: CommitteeRow[] = rows.map((r, i) => ({ trajectory_id: r.id, unanimous: i % 4 !== 1 }));
  return buildPopulation(rows, committee, strata as never);
}

describe("drawSample", () => {
  it("draws n1 proportional + n2 disagreements, disjoint, each with pi and weight 1/pi", () => {
    const pop = population();
    const { items, design } = drawSample(pop, { random: 9, disagreement: 4, seed: 3 });
    expect(items).toHaveLength(13);
    expect(items.filter((i) => i.phase === 1)).toHaveLength(9);
    expect(items.filter((i) => i.phase === 2)).toHaveLength(4);
    expect(new Set(items.map((i) => i.trajectory_id)).size).toBe(13);
    for (const it of items.filter((i) => i.phase === 2)) expect(it.committee_stratum).toBe("D");
    for (const it of items) {
      expect(it.weight).toBeCloseTo(1 / it.inclusion_probability, 12);
      expect(it.stratum).toBe(`${it.committee_stratum}|${it.sampling_stratum}`);
    }
    expect(design.phase1.allocation.map((a) => a.n)).toEqual([3, 3, 3]);
    expect(design.population).toMatchObject({ N: 30, N_D: 8, committee: true });
    expect(new Set(design.phase1.allocation.map((a) => a.N_D))).toEqual(new Set([2, 3]));
    expect(design.cells.reduce((s, c) => s + c.N, 0)).toBe(30);
    expect(design.cells.reduce((s, c) => s + c.n, 0)).toBe(13);
    expect(items.map((i) => i.trajectory_id)).toEqual(items.map((i) => i.trajectory_id).sort());
  });
  it("a stratum with trajectories but no draw is named (inclusion probability 0: no Horvitz-Thompson estimate covers it)", () => {
    // AgentDyn: 50 draws over strata of very different sizes leave gpt-5-mini/tool_filter (N=4) with n=0
    const rows = [
      ...Array.from({ length: 96 }, (_, i) => row(`big${String(i).padStart(3, "0")}`, { agent_model: "gemini", condition: "no_defense" })),
      ...Array.from({ length: 4 }, (_, i) => row(`small${i}`, { agent_model: "gpt-5-mini", condition: "tool_filter" })),
    ];
    const pop = buildPopulation(rows, null, ["agent_model", "condition"]);
    const { design } = drawSample(pop, { random: 10, disagreement: 0, seed: 7 });
    const small = "agent_model=gpt-5-mini,condition=tool_filter";
    expect(design.phase1.allocation.find((a) => a.sampling_stratum === small)).toMatchObject({ N: 4, n: 0, pi: 0 });
    expect(design.uncovered).toEqual([{ stratum: small, N: 4 }]);
    expect(design.warnings).toHaveLength(1);
    expect(design.warnings[0]).toContain(`stratum ${small}: 4 trajectories, none drawn (inclusion probability 0)`);
    // every stratum drawn: no warning
    const all = drawSample(pop, { random: 50, disagreement: 0, seed: 7 }).design;
    expect(all.uncovered).toEqual([]);
    expect(all.warnings).toEqual([]);
  });
  it("does not depend on input order; the same seed gives the same sample", () => {
    const pop = population();
    const rev = { ...pop, units: [...pop.units].reverse() };
    const a = drawSample(pop, { random: 9, disagreement: 4, seed: 11 });
    const b = drawSample(rev, { random: 9, disagreement: 4, seed: 11 });
    expect(b).toEqual(a);
    const c = drawSample(pop, { random: 9, disagreement: 4, seed: 12 });
    expect(c.items.map((i) => i.trajectory_id)).not.toEqual(a.items.map((i) => i.trajectory_id));
  });
  it("empirical inclusion frequencies over many seeds match the exact pi (design and draws agree)", () => {
    const pop = population();
    const R = 4000;
    const hits = new Map<string, number>();
    let pis = new Map<string, number>();
    for (let s = 0; s < R; s++) {
      const { items, design } = drawSample(pop, { random: 7, disagreement: 6, seed: s, allowShort: true });
      for (const it of items) hits.set(it.trajectory_id, (hits.get(it.trajectory_id) ?? 0) + 1);
      if (s === 0) {
        pis = new Map();
        for (const u of pop.units) {
          const a = design.phase1.allocation.find((x) => x.sampling_stratum === u.sampling_stratum)!;
          pis.set(u.id, u.committee_stratum === "D" ? a.pi_disagreement! : a.pi);
        }
      }
    }
    for (const u of pop.units) {
      const p = pis.get(u.id)!;
      const f = (hits.get(u.id) ?? 0) / R;
      expect(Math.abs(f - p)).toBeLessThan(4.5 * Math.sqrt((p * (1 - p)) / R) + 1e-9);
    }
  });
  it("without committee verdicts: n2 = 0 works, n2 > 0 is a clear error", () => {
    const pop = buildPopulation(population().units.map((u) => row(u.id)), null, []);
    const { items, design } = drawSample(pop, { random: 5, disagreement: 0, seed: 1 });
    expect(items).toHaveLength(5);
    expect(items.every((i) => i.stratum === "all" && i.committee_stratum === null && i.inclusion_probability === 5 / 30)).toBe(true);
    expect(design.population.N_D).toBeNull();
    expect(() => drawSample(pop, { random: 5, disagreement: 1, seed: 1 })).toThrow(SampleError);
    expect(() => drawSample(pop, { random: 5, disagreement: 1, seed: 1 })).toThrow(/needs committee verdicts.*--disagreement 0/);
  });
  it("too large a request is an error, or with allowShort takes all and says so", () => {
    const pop = population([]);
    expect(() => drawSample(pop, { random: 31, disagreement: 0, seed: 1 })).toThrow(/--random 31 .*holds \(30 after deduplication\).*--allow-short/);
    expect(() => drawSample(pop, { random: 0, disagreement: 9, seed: 1 })).toThrow(/--disagreement 9 .*pool holds \(8/);
    // pool after phase 1 too small: 20 random draws hit about 5 of the 8 D, 6 more cannot fit
    expect(() => drawSample(pop, { random: 20, disagreement: 6, seed: 1 })).toThrow(/once phase 1's draws are removed/);
    const all = drawSample(pop, { random: 31, disagreement: 0, seed: 1, allowShort: true });
    expect(all.items).toHaveLength(30);
    expect(all.design.short[0]).toMatch(/asked for 31, the run holds 30/);
    expect(all.items.every((i) => i.inclusion_probability === 1)).toBe(true);
    const s = drawSample(pop, { random: 20, disagreement: 6, seed: 1, allowShort: true });
    expect(s.items.filter((i) => i.committee_stratum === "D")).toHaveLength(8);
    expect(s.design.short[0]).toMatch(/left in the pool after phase 1: took all/);
    expect(() => drawSample(pop, { random: -1, disagreement: 0, seed: 1 })).toThrow(RangeError);
  });
});
