/**
 * Cells the draw left empty though their inclusion probability is above 0 (new user 47: `D|...,suite=travel  N 1  n 0
 * pi 0.833` and no word): every cell with N > 0 and n = 0 is warned of, those with π = 0 by the design's own warning
 * (`uncovered`), the others by {@link undrawnCellsWarning}, whichever committee stratum (A, D or U) they are of.
 */
import { describe, expect, it } from "vitest";
import { buildPopulation, type CommitteeRow } from "../../src/sample/population.js";
import { drawSample } from "../../src/sample/sample.js";
import { undrawnCells, undrawnCellsWarning } from "../../src/sample/undrawn-cells.js";
import { row } from "./fixtures.js";

/** 30 trajectories in 3 suites of 10; D = ids with i % 4 == 1; U = i % 7 == 0 (no committee verdict). */
function population() {
  const rows = Array.from({ length: 30 }, (_, i) => row(`t${String(i).padStart(2, "0")}`, { suite: ["banking", "slack", "travel"][i % 3] }));
  const committee: CommitteeRow[] = rows.flatMap((r, i) => (i % 7 === 0 ? [] : [{ trajectory_id: r.id, unanimous: i % 4 !== 1 }]));
  return buildPopulation(rows, committee, ["suite"]);
}

describe("undrawnCells", () => {
  it("every cell with trajectories and no item is warned of, of every committee stratum, whatever the seed", () => {
    const pop = population();
    const kinds = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const { design } = drawSample(pop, { random: 4, disagreement: 2, seed });
      const empty = design.cells.filter((c) => c.N > 0 && c.n === 0).map((c) => c.stratum);
      const undrawn = undrawnCells(design);
      // the two warnings together name every empty cell, each once
      expect([...design.uncovered.map((c) => c.stratum), ...undrawn.map((c) => c.stratum)].sort()).toEqual(empty.sort());
      for (const c of undrawn) {
        expect(c.inclusion_probability).toBeGreaterThan(0);
        kinds.add(c.stratum.slice(0, 1));
      }
      const w = undrawnCellsWarning(undrawn);
      if (undrawn.length === 0) expect(w).toBeNull();
      else for (const c of undrawn.slice(0, 6)) expect(w).toContain(`${c.stratum} (N ${c.N}, inclusion probability ${c.inclusion_probability.toFixed(6)})`);
    }
    // the case of the new user (a disagreement cell phase 2 passed over) is one kind of three
    expect([...kinds].sort()).toEqual(["A", "D", "U"]);
  });

  it("the warning counts the cells and their trajectories, names at most 6, and gives advice that can be followed", () => {
    const cells = Array.from({ length: 8 }, (_, i) => ({ stratum: `D|s=${i}`, N: i + 1, inclusion_probability: 0.5 }));
    const w = undrawnCellsWarning(cells)!;
    expect(w).toMatch(/^8 cells of the design got no draw \(n 0\) though their inclusion probability is above 0: D\|s=0 \(N 1, inclusion probability 0\.500000\);/);
    expect(w).toContain("D|s=5 (N 6, inclusion probability 0.500000), and 2 more:");
    expect(w).not.toContain("D|s=6 (");
    expect(w).toContain("do not represent their 36 trajectories, and no labelling can change that");
    expect(w).toContain("draw again with coarser --strata");
    expect(w).toContain("or accept the gap");
    const one = undrawnCellsWarning([{ stratum: "D|agent_model=m,suite=travel", N: 1, inclusion_probability: 0.833138 }])!;
    expect(one).toMatch(/^1 cell of the design got no draw \(n 0\) though its inclusion probability is above 0: D\|agent_model=m,suite=travel \(N 1, inclusion probability 0\.833138\): the sample holds no item of it, .* do not represent its 1 trajectory,/);
  });
});
