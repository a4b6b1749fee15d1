/**
 * The weight-sum warning tests what it is for (new user 47: `sums ... to 406.04 of 414, not N` on a fully labelled
 * sample of the tool's own two-phase draw): said for items unlabelled, for probabilities that do not fit the recorded
 * design (recomputed by src/sample/design-fit.ts), for a manifest recording no design whose sums are not N; not for
 * a sum off N from phase 2 alone on the tool's own design.
 */
import { describe, expect, it } from "vitest";
import { buildPopulation, type CommitteeRow } from "../../src/sample/population.js";
import { drawSample, type SampleRequest } from "../../src/sample/sample.js";
import { designFit } from "../../src/sample/design-fit.js";
import { weightSums, weightSumWarning } from "../../src/sample/weight-sums.js";
import type { Manifest } from "../../src/sample/import.js";
import { row } from "./fixtures.js";

/** 60 trajectories in 3 suites of 20, D = i % 3 == 1 in banking, i % 5 == 1 elsewhere: the strata's D shares differ. */
function manifestOf(req: SampleRequest): Manifest {
  const rows = Array.from({ length: 60 }, (_, i) => row(`t${String(i).padStart(2, "0")}`, { suite: ["banking", "slack", "travel"][i % 3] }));
  const committee: CommitteeRow[] = rows.map((r, i) => ({ trajectory_id: r.id, unanimous: i % 3 === 0 ? i % 2 !== 1 : i % 5 !== 1 }));
  const { items, design } = drawSample(buildPopulation(rows, committee, ["suite"]), req);
  return {
    header: { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: req.seed, n_items: items.length, design },
    rows: items.map((it, k) => ({ ...it, item_id: `i${k}` })),
  } as unknown as Manifest;
}
const all = (m: Manifest) => new Set(m.rows.map((r) => r.item_id));

describe("the weight-sum warning on the tool's own design", () => {
  const req = { random: 12, disagreement: 6, seed: 5 };
  it("every item labelled: the sum is off N (two phases) and nothing is said", () => {
    const m = manifestOf(req);
    expect(designFit(m)).toEqual({ fits: true });
    const w = weightSums(m, all(m));
    expect(Math.abs(w.labelled - 60)).toBeGreaterThan(1e-6); // the case: realized HT weights do not sum to N
    expect(w.differs_because).toEqual(["two_phase"]);
    expect(w).toMatchObject({ fits_design: true, warned: false });
    expect(weightSumWarning(w)).toBeNull();
  });
  it("fits whatever the seed, with --allow-short cutting phase 2 to the pool too", () => {
    for (let seed = 0; seed < 10; seed++) expect(designFit(manifestOf({ ...req, seed })).fits).toBe(true);
    expect(designFit(manifestOf({ random: 12, disagreement: 40, seed: 1, allowShort: true })).fits).toBe(true);
  });
  it("an item left unlabelled is still said (nonresponse)", () => {
    const m = manifestOf(req);
    const some = all(m);
    some.delete(m.rows[0].item_id);
    const w = weightSums(m, some);
    expect(w.warned).toBe(true);
    expect(weightSumWarning(w)).toContain("sampled items have no label (nonresponse)");
  });
  it("probabilities that do not fit the recorded design are said, even with every item labelled", () => {
    const m = manifestOf(req);
    // a D probability changed in the rows and in the cells alike (the checks against the cells pass): not the design's
    const d = m.rows.find((r) => r.committee_stratum === "D")!;
    const edited: Manifest = {
      ...m,
      rows: m.rows.map((r) => (r.stratum === d.stratum ? { ...r, inclusion_probability: 0.9, weight: 1 / 0.9 } : r)),
    };
    const fit = designFit(edited);
    expect(fit.fits).toBe(false);
    expect(fit.problem).toMatch(/inclusion_probability 0\.9, the design recorded gives 0\.\d+ \(sampling stratum suite=\w+\)/);
    const w = weightSums(edited, all(edited));
    expect(w.warned).toBe(true);
    expect(weightSumWarning(w)).toContain("the weights do not fit the design that drew the sample");
    // an allocation that is not the proportional one
    const alloc = m.header.design.phase1.allocation.map((a, i) => ({ ...a, n: a.n + (i === 0 ? 1 : i === 1 ? -1 : 0) }));
    const moved: Manifest = { ...m, header: { ...m.header, design: { ...m.header.design, phase1: { ...m.header.design.phase1, allocation: alloc } } } };
    expect(designFit(moved).problem).toMatch(/^sampling stratum suite=banking: phase 1 drew 5, the proportional allocation of 12 gives 4$/);
  });
  it("rows removed from the manifest by hand (every one left labelled) are said: the probabilities fit, the rows are not the draw (break47b)", () => {
    const m = manifestOf(req);
    for (const phase of [1, 2] as const) {
      const gone = m.rows.find((r) => r.phase === phase)!;
      const cut: Manifest = { ...m, rows: m.rows.filter((r) => r !== gone) };
      const fit = designFit(cut);
      expect(fit.fits).toBe(false);
      expect(fit.problem).toMatch(phase === 1 ? /^sampling stratum suite=\w+: the manifest holds \d+ phase-1 item\(s\), its recorded design drew \d+ \(rows removed or added after the draw\?\)$/ : /^the manifest holds 5 phase-2 item\(s\), its recorded design drew 6 /);
      const w = weightSums(cut, all(cut));
      expect(w.warned).toBe(true); // was: fits_design true, nothing said
      expect(weightSumWarning(w)).toContain("the manifest's rows are not the draw its recorded design made (");
    }
  });
  it("a manifest recording no design: a sum that is not N is said, with that reason", () => {
    const m = manifestOf(req);
    const bare = { ...m, header: { ...m.header, design: undefined } } as unknown as Manifest;
    expect(designFit(bare).fits).toBeNull();
    const w = weightSums(bare, all(bare));
    expect(w.warned).toBe(true);
    expect(weightSumWarning(w)).toContain("the manifest records no design to check the weights against");
  });
});
