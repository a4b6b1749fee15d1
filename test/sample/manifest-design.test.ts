import { describe, expect, it } from "vitest";
import { emptyStrataWarning, manifestDesignProblems, strataWithoutLabels } from "../../src/sample/manifest-design.js";
import type { Manifest } from "../../src/sample/import.js";

const row = (item_id: string, trajectory_id: string, stratum: string, pi: number, N: number, phase: 1 | 2 = 1) => ({
  item_id,
  trajectory_id,
  stratum,
  sampling_stratum: stratum.slice(2),
  committee_stratum: stratum[0] as "A",
  stratum_size: N,
  phase,
  inclusion_probability: pi,
  weight: 1 / pi,
});
// two strata of 10, 2 items each (pi 0.2), as sample writes its header
const design = {
  population: { N: 20 },
  phase1: { allocation: [{ sampling_stratum: "s=a", N: 10, n: 2, pi: 0.2 }, { sampling_stratum: "s=b", N: 10, n: 2, pi: 0.2 }] },
  cells: [
    { stratum: "A|s=a", sampling_stratum: "s=a", committee_stratum: "A", N: 10, n: 2, inclusion_probability: 0.2 },
    { stratum: "A|s=b", sampling_stratum: "s=b", committee_stratum: "A", N: 10, n: 2, inclusion_probability: 0.2 },
  ],
};
const rows = [row("i1", "t1", "A|s=a", 0.2, 10), row("i2", "t2", "A|s=a", 0.2, 10), row("i3", "t3", "A|s=b", 0.2, 10), row("i4", "t4", "A|s=b", 0.2, 10)];
const manifest = (r = rows, d: object | undefined = design): Manifest => ({ header: { design: d } as never, rows: r as never });

describe("the manifest against the design it records", () => {
  it("a manifest as sample writes it has no problem", () => {
    expect(manifestDesignProblems(manifest(), "m")).toEqual([]);
  });
  it("allocation and header edited together still contradict n/N (probabilities that do not sum to the stratum's size)", () => {
    const d = { ...design, phase1: { allocation: [{ sampling_stratum: "s=a", N: 10, n: 2, pi: 0.4 }, design.phase1.allocation[1]] } };
    expect(manifestDesignProblems(manifest(rows, d), "m")).toContain("m: sampling stratum s=a: 2 items of probability 0.4 sum to 5.00, not its size 10");
    expect(manifestDesignProblems(manifest(rows, { ...design, population: { N: 25 } }), "m")).toEqual(["m: the design's strata hold 20 trajectories, its population N 25"]);
  });
  it("without a recorded design: one N_h and one pi per stratum, one item per trajectory, weight 1/pi", () => {
    const bad = [row("i1", "t1", "A|s=a", 0.2, 10), { ...row("i2", "t1", "A|s=a", 0.25, 10), weight: 5 }];
    expect(manifestDesignProblems(manifest(bad, {}), "m")).toEqual([
      "m: item i2 (trajectory t1): the same trajectory as item i1: a unit of the population is sampled once",
      "m: item i2 (trajectory t1): weight 5 is not 1/inclusion_probability (0.25)",
      "m: item i2 (trajectory t1): inclusion_probability 0.25 in stratum A|s=a, item i1 has 0.2 (one design cell, one probability)",
    ]);
  });
  it("names the sampled strata with no labelled item", () => {
    const empty = strataWithoutLabels(manifest(), new Set(["i1"]));
    expect(empty).toEqual([{ stratum: "A|s=b", N: 10, sampled: 2 }]);
    expect(emptyStrataWarning(empty)).toMatch(/^strata_without_labels: 1 stratum of the design has no labelled item: A\|s=b \(N 10; 2 sampled, none labelled\)/);
    expect(emptyStrataWarning([])).toBeNull();
  });
  it("a stratum phase 1 gave no draw (pi 0) is no problem of the manifest, and is named among the strata without a label", () => {
    const d = {
      population: { N: 25 },
      phase1: { allocation: [...design.phase1.allocation, { sampling_stratum: "s=c", N: 5, n: 0, pi: 0 }] },
      cells: [...design.cells, { stratum: "A|s=c", sampling_stratum: "s=c", committee_stratum: "A", N: 5, n: 0, inclusion_probability: 0 }],
    };
    expect(manifestDesignProblems(manifest(rows, d), "m")).toEqual([]);
    const empty = strataWithoutLabels(manifest(rows, d), new Set(["i1", "i3"]));
    expect(empty).toEqual([{ stratum: "A|s=c", N: 5, sampled: 0 }]);
    expect(emptyStrataWarning(empty)).toMatch(/A\|s=c \(N 5; none drawn\)/);
    // none drawn: labelling cannot fill it, so the advice is not to label (new user 47)
    const w = emptyStrataWarning(empty)!;
    expect(w).not.toContain("label at least one item");
    expect(w).toContain("it got no draw, so the sample holds no item of it and no labelling can fill the gap: draw a new sample with coarser --strata (fewer fields), or accept the gap and report that the human and calibrated figures do not cover the 5 trajectories");
  });
  it("the advice fits each cause when strata of both kinds lack a label, with the counts", () => {
    const w = emptyStrataWarning([
      { stratum: "A|s=b", N: 10, sampled: 2 },
      { stratum: "D|s=c", N: 1, sampled: 0 },
    ])!;
    expect(w).toContain("do not represent their 11 trajectories");
    expect(w).toContain("of the 1 with sampled items: label at least one item of each");
    expect(w).toContain("the 1 none drawn from got no draw, so the sample holds no item of it");
    expect(w).toContain("do not cover the 1 trajectory");
  });
});
