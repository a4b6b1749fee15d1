/**
 * The object draw `drawSample` was before it moved to columns (main at 27b1fa5, src/sample/sample.ts): kept as
 * the reference the column draw is checked against (test/sample/population-columns.test.ts), item for item.
 */
import { designWeight, largestRemainderAllocation, twoPhaseInclusion } from "../../src/sample/design.js";
import { compareCodeUnits, drawWithoutReplacement, seededRng } from "../../src/sample/draw.js";
import { cellKey, type CommitteeStratum, type Population, type PopulationUnit } from "../../src/sample/population.js";
import { designId, frameDigest } from "../../src/store/sample-frame.js";
import { SampleError, type SampledItem, type SampleDesign, type SampleRequest } from "../../src/sample/sample.js";

const FORMULAS =
  "phase 1: largest-remainder proportional allocation n_h, SRS within strata, pi = n_h/N_h; " +
  "phase 2: SRS of min(n2, |D\\S1|) from D\\S1; a D member i of stratum h has " +
  "pi_i = n_h/N_h + (1 - n_h/N_h) E[min(1, n2/(N_D - X'_h))], X'_h = other D members drawn in phase 1 " +
  "(convolution of hypergeometric laws); equals n1/N + n2/N_D with one stratum (vectors/NOTES.md section 7.1); " +
  "weight = 1/pi (Horvitz-Thompson). Source: src/sample/design.ts.";

/** A unit of the disagreement pool (committee stratum D: the committee was not unanimous). */
const inDisagreement = (u: PopulationUnit): boolean => u.committee_stratum === "D";

/**
 * The phase sizes {@link drawSample} can take: the request checked against the run (non-negative integers; a
 * phase 2 needs committee verdicts), cut to what the run holds with `allowShort` (each cut said in `short`).
 * @throws RangeError for a size or seed that is not a non-negative integer; SampleError for a size the run cannot
 *   give without `allowShort`, or `disagreement` without committee verdicts.
 */
function checkedSizes(
  pop: Population,
  req: SampleRequest,
  units: readonly PopulationUnit[],
): { n1: number; n2req: number; ND: number | null; short: string[]; allowShort: boolean } {
  for (const [k, v] of Object.entries({ random: req.random, disagreement: req.disagreement, seed: req.seed })) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${k} must be a non-negative integer, got ${v}`);
  }
  const allowShort = !!req.allowShort;
  const short: string[] = [];
  const N = units.length;
  let n1 = req.random;
  if (n1 > N) {
    if (!allowShort) {
      throw new SampleError(
        `--random ${n1} asks for more trajectories than the run holds (${N} after deduplication); lower it or pass --allow-short to take all`,
      );
    }
    short.push(`phase 1: asked for ${n1}, the run holds ${N}: took all ${N}`);
    n1 = N;
  }
  const ND = pop.committee ? units.filter(inDisagreement).length : null;
  let n2req = req.disagreement;
  if (n2req > 0 && !pop.committee) {
    throw new SampleError(
      `--disagreement ${n2req} needs committee verdicts (labels/<run>/committee.jsonl), and this run has none; run the committee first, or use --disagreement 0`,
    );
  }
  if (ND !== null && n2req > ND) {
    if (!allowShort) {
      throw new SampleError(
        `--disagreement ${n2req} asks for more than the disagreement pool holds (${ND} trajectories where the committee was not unanimous); lower it or pass --allow-short to take all`,
      );
    }
    short.push(`phase 2: asked for ${n2req}, the disagreement pool holds ${ND}: took at most ${ND}`);
    n2req = ND;
  }
  return { n1, n2req, ND, short, allowShort };
}

/**
 * The design cells (sampling stratum x committee stratum) of every unit with its size, and the drawn units as
 * {@link SampledItem}s in id order with their cell, phase, inclusion probability `piOf(u)` and weight 1/π.
 */
function sampledItems(
  units: readonly PopulationUnit[],
  phase1: ReadonlySet<string>,
  phase2: ReadonlySet<string>,
  piOf: (u: PopulationUnit) => number,
): {
  items: SampledItem[];
  cellSize: Map<string, number>;
  cellN: Map<string, number>;
  cellInfo: Map<string, { sampling_stratum: string; committee_stratum: CommitteeStratum | null; pi: number }>;
} {
  const cellSize = new Map<string, number>();
  const cellN = new Map<string, number>();
  const cellInfo = new Map<string, { sampling_stratum: string; committee_stratum: CommitteeStratum | null; pi: number }>();
  for (const u of units) {
    const c = cellKey(u.sampling_stratum, u.committee_stratum);
    cellSize.set(c, (cellSize.get(c) ?? 0) + 1);
    if (!cellInfo.has(c)) cellInfo.set(c, { sampling_stratum: u.sampling_stratum, committee_stratum: u.committee_stratum, pi: piOf(u) });
  }
  const items: SampledItem[] = [];
  for (const u of units) {
    const phase = phase1.has(u.id) ? 1 : phase2.has(u.id) ? 2 : 0;
    if (phase === 0) continue;
    const c = cellKey(u.sampling_stratum, u.committee_stratum);
    cellN.set(c, (cellN.get(c) ?? 0) + 1);
    const pi = piOf(u);
    items.push({
      trajectory_id: u.id,
      stratum: c,
      sampling_stratum: u.sampling_stratum,
      committee_stratum: u.committee_stratum,
      stratum_size: cellSize.get(c)!,
      phase: phase as 1 | 2,
      inclusion_probability: pi,
      weight: designWeight(pi),
    });
  }
  return { items, cellSize, cellN, cellInfo };
}

/**
 * Draw the sample.
 * @returns the sampled items sorted by trajectory id, and the design record.
 * @throws SampleError when n1 exceeds the population, n2 > 0 without committee verdicts, or n2 exceeds the
 *   disagreement pool (before or after removing phase 1's draws), unless `allowShort` (then all available
 *   trajectories are taken and `design.short` says so); RangeError on non-integer or negative sizes or seed.
 */
export function objectDrawSample(pop: Population, req: SampleRequest): { items: SampledItem[]; design: SampleDesign } {
  const units = [...pop.units].sort((a, b) => compareCodeUnits(a.id, b.id));
  const N = units.length;
  const { n1, n2req, ND, short, allowShort } = checkedSizes(pop, req, units);
  const inD = inDisagreement;

  // Strata, sorted by key.
  const strata = new Map<string, PopulationUnit[]>();
  for (const u of units) {
    const g = strata.get(u.sampling_stratum);
    if (g) g.push(u);
    else strata.set(u.sampling_stratum, [u]);
  }
  const keys = [...strata.keys()].sort(compareCodeUnits);
  for (const k of keys) strata.get(k)!.sort((a, b) => compareCodeUnits(a.id, b.id));
  const alloc = largestRemainderAllocation(
    keys.map((k) => ({ key: k, N: strata.get(k)!.length })),
    n1,
  );
  const designStrata = keys.map((k) => {
    const us = strata.get(k)!;
    return { key: k, N: us.length, N_D: us.filter(inD).length, n1: alloc.get(k)! };
  });
  const incl = new Map(twoPhaseInclusion(designStrata, n2req).map((s) => [s.key, s]));

  // Phase 1.
  const rng1 = seededRng(req.seed, "phase1");
  const phase1 = new Set<string>();
  for (const k of keys) {
    for (const u of drawWithoutReplacement(rng1, strata.get(k)!, alloc.get(k)!)) phase1.add(u.id);
  }
  // Phase 2.
  const pool = units.filter((u) => inD(u) && !phase1.has(u.id)); // sorted by id
  let n2 = n2req;
  if (n2 > pool.length) {
    if (!allowShort) {
      throw new SampleError(
        `--disagreement ${n2} is more than the disagreement pool holds once phase 1's draws are removed ` +
          `(${ND} in the pool, ${ND! - pool.length} drawn in phase 1, ${pool.length} left); lower it or pass --allow-short to take all, ` +
          `with this seed: drawing again with another seed until one passes would make the written inclusion probabilities wrong (they hold for a draw that stands whatever it gives)`,
      );
    }
    short.push(`phase 2: asked for ${n2}, ${pool.length} left in the pool after phase 1: took all ${pool.length}`);
    n2 = pool.length;
  }
  const phase2 = new Set(drawWithoutReplacement(seededRng(req.seed, "phase2"), pool, n2).map((u) => u.id));

  // Cells.
  const piOf = (u: PopulationUnit): number => {
    const s = incl.get(u.sampling_stratum)!;
    return inD(u) ? (s.pi_disagreement as number) : s.pi_other;
  };
  const { items, cellSize, cellN, cellInfo } = sampledItems(units, phase1, phase2, piOf);
  // A cell whose trajectories cannot be drawn (π = 0) is outside every weighted estimate: said by name.
  const uncovered = [...cellSize.keys()]
    .sort(compareCodeUnits)
    .filter((c) => cellInfo.get(c)!.pi === 0)
    .map((c) => ({ stratum: c, N: cellSize.get(c)! }));
  const designWarnings = uncovered.map(
    (c) =>
      `stratum ${c.stratum}: ${c.N} trajectories, none drawn (inclusion probability 0): no Horvitz-Thompson estimate covers them; ` +
      `raise --random (proportional allocation gave this stratum 0 of ${n1}) or use coarser --strata`,
  );
  const design: SampleDesign = {
    seed: req.seed,
    // the frame: every unit's id, sorted by code units (src/store/sample-frame.ts)
    frame: (() => {
      const d = frameDigest(units.map((u) => u.id));
      const request = { random: req.random, disagreement: req.disagreement, allow_short: allowShort, strata: [...pop.strata_fields] };
      return { design: designId(d.ids_sha256, req.seed, request), ...d };
    })(),
    request: { random: req.random, disagreement: req.disagreement, allow_short: allowShort, strata: [...pop.strata_fields] },
    population: {
      N,
      N_D: ND,
      committee: pop.committee,
      committee_missing: pop.committee_missing,
      committee_no_quorum: pop.committee_no_quorum,
      committee_unmatched: pop.committee_unmatched,
      duplicates_dropped: pop.dropped,
      content_twins: pop.content_twins.length,
    },
    phase1: {
      n: phase1.size,
      method: "largest-remainder proportional allocation; SRS without replacement within each sampling stratum",
      allocation: designStrata.map((s) => ({
        sampling_stratum: s.key,
        N: s.N,
        N_D: pop.committee ? s.N_D : null,
        n: s.n1,
        pi: incl.get(s.key)!.pi_other,
        pi_disagreement: incl.get(s.key)!.pi_disagreement,
      })),
    },
    phase2: {
      n_requested: req.disagreement,
      n: phase2.size,
      pool: ND,
      pool_after_phase1: ND === null ? null : pool.length,
      method: "SRS without replacement from the disagreement pool minus phase 1's draws",
    },
    cells: [...cellSize.keys()].sort(compareCodeUnits).map((c) => ({
      stratum: c,
      sampling_stratum: cellInfo.get(c)!.sampling_stratum,
      committee_stratum: cellInfo.get(c)!.committee_stratum,
      N: cellSize.get(c)!,
      n: cellN.get(c) ?? 0,
      inclusion_probability: cellInfo.get(c)!.pi,
    })),
    short,
    uncovered,
    warnings: designWarnings,
    formulas: FORMULAS,
  };
  return { items, design };
}
