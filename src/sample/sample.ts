/**
 * Drawing the two-phase annotation sample from a population (src/sample/population.ts) with the design of
 * src/sample/design.ts: phase 1 proportional stratified SRS, phase 2 SRS from the committee-disagreement pool
 * minus phase 1's draws, the exact inclusion probability and weight of every sampled trajectory, and the design
 * record that is kept with the sample.
 *
 * Reproducibility: units are sorted by id before any draw; phase 1 draws stratum by stratum (strata in key
 * order) from the seed's `phase1` stream, phase 2 from its `phase2` stream (src/sample/draw.ts), so the same
 * population, request and seed give the same sample.
 */
import type { WhereStatement } from "../store/where.js";
import { designId, frameDigest, type SampleFrame } from "../store/sample-frame.js";
import { designWeight, largestRemainderAllocation, twoPhaseInclusion } from "./design.js";
import { compareCodeUnits, drawWithoutReplacement, seededRng } from "./draw.js";
import { cellKey, COMMITTEE_CODES, populationColumns, type ColumnPopulation, type CommitteeStratum, type Population } from "./population.js";

/** What to draw. */
export interface SampleRequest {
  /** Phase-1 (proportional random) size n1. */
  random: number;
  /** Phase-2 (committee disagreement) size n2. */
  disagreement: number;
  seed: number;
  /** Take all when a request exceeds what the population or the pool holds, instead of failing. */
  allowShort?: boolean;
}

/** One sampled trajectory with its place in the design. */
export interface SampledItem {
  trajectory_id: string;
  /** Post-stratification cell ({@link cellKey}): committee stratum × sampling stratum. */
  stratum: string;
  sampling_stratum: string;
  committee_stratum: CommitteeStratum | null;
  /** N_h of the cell `stratum` (population size, after deduplication). */
  stratum_size: number;
  phase: 1 | 2;
  /** Exact first-order inclusion probability under the design (src/sample/design.ts). */
  inclusion_probability: number;
  /** Horvitz–Thompson weight 1/π. */
  weight: number;
}

/** The committee of a sample's design ({@link SampleDesign.committee}). */
export interface SampleCommittee {
  name: string;
  members: string[];
  left_out: string[] | null;
  quorum: number | null;
}

/** The record of a drawn sample's design (written to `design.json` and the manifest header). */
export interface SampleDesign {
  seed: number;
  /**
   * The `--where` filter the population was restricted to (absent without one): N, strata and inclusion
   * probabilities are those of the kept trajectories (src/store/where.ts).
   */
  where?: WhereStatement;
  /**
   * The frame the sample was drawn from: its trajectories' count and ids digest, and the design's id
   * (src/store/sample-frame.ts); `import-annotations` copies it onto every label row, `estimate` checks the run
   * against it. Absent from designs of earlier versions.
   */
  frame?: SampleFrame;
  request: { random: number; disagreement: number; allow_short: boolean; strata: string[] };
  /**
   * The committee whose verdicts made the strata A/D/U and the disagreement pool: committee.jsonl's members (sorted),
   * the run's judges it left out (null: the file does not record them) and its quorum (null: not recorded), named as
   * every command names a committee (`committee (a, b, c; quorum 2)`). Absent without committee verdicts, and from
   * designs of earlier versions.
   */
  committee?: SampleCommittee;
  population: {
    N: number;
    /** Size of the disagreement pool D (null without committee verdicts). */
    N_D: number | null;
    committee: boolean;
    committee_missing: number;
    /** Committee verdicts with no quorum (stratum U: too few votes is not a disagreement). */
    committee_no_quorum: number;
    committee_unmatched: number;
    duplicates_dropped: Population["dropped"];
    /** Distinct runs with the same content as a run of smaller id (kept in the population; for information). */
    content_twins: number;
  };
  phase1: {
    n: number;
    method: string;
    allocation: Array<{ sampling_stratum: string; N: number; N_D: number | null; n: number; pi: number; pi_disagreement: number | null }>;
  };
  phase2: {
    n_requested: number;
    n: number;
    pool: number | null;
    pool_after_phase1: number | null;
    method: string;
  };
  /** Every post-stratification cell: population size, sampled count, inclusion probability. */
  cells: Array<{ stratum: string; sampling_stratum: string; committee_stratum: CommitteeStratum | null; N: number; n: number; inclusion_probability: number }>;
  /** Requests that were cut to what was available (`--allow-short`). */
  short: string[];
  /**
   * Cells with trajectories but inclusion probability 0 (their sampling stratum got no phase-1 draw and they
   * cannot enter phase 2): no Horvitz–Thompson estimate covers them.
   */
  uncovered: Array<{ stratum: string; N: number }>;
  /** Design problems said in words (one per uncovered cell, naming it); the CLI prints them as warnings. */
  warnings: string[];
  formulas: string;
}

/** A request the population cannot satisfy (too many draws, no committee for phase 2, ...). */
export class SampleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SampleError";
  }
}

const FORMULAS =
  "phase 1: largest-remainder proportional allocation n_h, SRS within strata, pi = n_h/N_h; " +
  "phase 2: SRS of min(n2, |D\\S1|) from D\\S1; a D member i of stratum h has " +
  "pi_i = n_h/N_h + (1 - n_h/N_h) E[min(1, n2/(N_D - X'_h))], X'_h = other D members drawn in phase 1 " +
  "(convolution of hypergeometric laws); equals n1/N + n2/N_D with one stratum (vectors/NOTES.md section 7.1); " +
  "weight = 1/pi (Horvitz-Thompson). Source: src/sample/design.ts.";

/** The committee code of the disagreement pool (stratum D: the committee was not unanimous). */
const D = COMMITTEE_CODES.indexOf("D");

/**
 * The phase sizes {@link drawSample} can take: the request checked against the run (non-negative integers; a
 * phase 2 needs committee verdicts), cut to what the run holds with `allowShort` (each cut said in `short`).
 * @throws RangeError for a size or seed that is not a non-negative integer; SampleError for a size the run cannot
 *   give without `allowShort`, or `disagreement` without committee verdicts.
 */
function checkedSizes(pop: ColumnPopulation, req: SampleRequest): { n1: number; n2req: number; ND: number | null; short: string[]; allowShort: boolean } {
  for (const [k, v] of Object.entries({ random: req.random, disagreement: req.disagreement, seed: req.seed })) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${k} must be a non-negative integer, got ${v}`);
  }
  const allowShort = !!req.allowShort;
  const short: string[] = [];
  const N = pop.n;
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
  let nd = 0;
  for (let i = 0; i < N; i++) if (pop.committee[i] === D) nd++;
  const ND = pop.committee_run ? nd : null;
  let n2req = req.disagreement;
  if (n2req > 0 && !pop.committee_run) {
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

/** The population's ids in rank order (code-unit order: {@link ColumnPopulation}), one at a time. */
function* unitIds(pop: ColumnPopulation): Generator<string> {
  for (let i = 0; i < pop.n; i++) yield pop.id(i);
}

/** A cell's sampling stratum, committee stratum and inclusion probability. */
type CellInfo = { sampling_stratum: string; committee_stratum: CommitteeStratum | null; pi: number };

/**
 * The design cells (sampling stratum x committee stratum) of every unit with its size, and the drawn units as
 * {@link SampledItem}s in id order with their cell, phase (`phase[i]`: 0 not drawn, 1 or 2), inclusion
 * probability `piOf(stratum code, committee code)` and weight 1/π. A cell is one (stratum code, committee code)
 * pair: its key is built once, not per unit.
 */
function sampledItems(
  pop: ColumnPopulation,
  phase: Uint8Array,
  piOf: (stratum: number, committee: number) => number,
): { items: SampledItem[]; cellSize: Map<string, number>; cellN: Map<string, number>; cellInfo: Map<string, CellInfo> } {
  const nc = COMMITTEE_CODES.length;
  const pairSize = new Float64Array(pop.strata.length * nc);
  for (let i = 0; i < pop.n; i++) pairSize[pop.stratum[i] * nc + pop.committee[i]]++;
  const cellSize = new Map<string, number>();
  const cellN = new Map<string, number>();
  const cellInfo = new Map<string, CellInfo>();
  const keyOf: string[] = [];
  for (let p = 0; p < pairSize.length; p++) {
    if (!pairSize[p]) continue;
    const s = Math.floor(p / nc);
    const cs = COMMITTEE_CODES[p % nc];
    const c = (keyOf[p] = cellKey(pop.strata[s], cs));
    cellSize.set(c, (cellSize.get(c) ?? 0) + pairSize[p]);
    if (!cellInfo.has(c)) cellInfo.set(c, { sampling_stratum: pop.strata[s], committee_stratum: cs, pi: piOf(s, p % nc) });
  }
  const items: SampledItem[] = [];
  for (let i = 0; i < pop.n; i++) {
    if (phase[i] === 0) continue;
    const p = pop.stratum[i] * nc + pop.committee[i];
    const c = keyOf[p];
    cellN.set(c, (cellN.get(c) ?? 0) + 1);
    const pi = piOf(pop.stratum[i], pop.committee[i]);
    items.push({
      trajectory_id: pop.id(i),
      stratum: c,
      sampling_stratum: pop.strata[pop.stratum[i]],
      committee_stratum: COMMITTEE_CODES[pop.committee[i]],
      stratum_size: cellSize.get(c)!,
      phase: phase[i] as 1 | 2,
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
export function drawSample(pop: Population, req: SampleRequest): { items: SampledItem[]; design: SampleDesign } {
  return drawSampleColumns(populationColumns(pop), req);
}

/**
 * {@link drawSample} on a population held as columns (units in id order): the same draw, item for item, with
 * no object per unit.
 */
export function drawSampleColumns(pop: ColumnPopulation, req: SampleRequest): { items: SampledItem[]; design: SampleDesign } {
  const N = pop.n;
  const { n1, n2req, ND, short, allowShort } = checkedSizes(pop, req);

  // Strata, sorted by key; each stratum's units in id order (ranks ascending).
  const ns = pop.strata.length;
  const size = new Float64Array(ns);
  const sizeD = new Float64Array(ns);
  for (let i = 0; i < N; i++) {
    size[pop.stratum[i]]++;
    if (pop.committee[i] === D) sizeD[pop.stratum[i]]++;
  }
  const members = Array.from({ length: ns }, (_, s) => new Uint32Array(size[s]));
  const fill = new Float64Array(ns);
  for (let i = 0; i < N; i++) members[pop.stratum[i]][fill[pop.stratum[i]]++] = i;
  const codes = Array.from({ length: ns }, (_, s) => s).filter((s) => size[s] > 0);
  codes.sort((a, b) => compareCodeUnits(pop.strata[a], pop.strata[b]));
  const alloc = largestRemainderAllocation(
    codes.map((s) => ({ key: pop.strata[s], N: size[s] })),
    n1,
  );
  const designStrata = codes.map((s) => ({ key: pop.strata[s], N: size[s], N_D: sizeD[s], n1: alloc.get(pop.strata[s])! }));
  const incl = new Map(twoPhaseInclusion(designStrata, n2req).map((s) => [s.key, s]));

  // Phase 1.
  const phase = new Uint8Array(N);
  const rng1 = seededRng(req.seed, "phase1");
  let phase1n = 0;
  for (const s of codes) {
    for (const i of drawWithoutReplacement(rng1, members[s], alloc.get(pop.strata[s])!)) {
      phase[i] = 1;
      phase1n++;
    }
  }
  members.length = 0;
  // Phase 2.
  let poolN = 0;
  for (let i = 0; i < N; i++) if (pop.committee[i] === D && phase[i] === 0) poolN++;
  const pool = new Uint32Array(poolN); // in id order
  for (let i = 0, j = 0; i < N; i++) if (pop.committee[i] === D && phase[i] === 0) pool[j++] = i;
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
  let phase2n = 0;
  for (const i of drawWithoutReplacement(seededRng(req.seed, "phase2"), pool, n2)) {
    phase[i] = 2;
    phase2n++;
  }

  // Cells.
  const piOf = (stratum: number, committee: number): number => {
    const s = incl.get(pop.strata[stratum])!;
    return committee === D ? (s.pi_disagreement as number) : s.pi_other;
  };
  const { items, cellSize, cellN, cellInfo } = sampledItems(pop, phase, piOf);
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
  const request = { random: req.random, disagreement: req.disagreement, allow_short: allowShort, strata: [...pop.strata_fields] };
  const digest = frameDigest(unitIds(pop), true);
  const design: SampleDesign = {
    seed: req.seed,
    frame: { design: designId(digest.ids_sha256, req.seed, request), ...digest },
    request,
    population: {
      N,
      N_D: ND,
      committee: pop.committee_run,
      committee_missing: pop.committee_missing,
      committee_no_quorum: pop.committee_no_quorum,
      committee_unmatched: pop.committee_unmatched,
      duplicates_dropped: pop.dropped,
      content_twins: pop.content_twins,
    },
    phase1: {
      n: phase1n,
      method: "largest-remainder proportional allocation; SRS without replacement within each sampling stratum",
      allocation: designStrata.map((s) => ({
        sampling_stratum: s.key,
        N: s.N,
        N_D: pop.committee_run ? s.N_D : null,
        n: s.n1,
        pi: incl.get(s.key)!.pi_other,
        pi_disagreement: incl.get(s.key)!.pi_disagreement,
      })),
    },
    phase2: {
      n_requested: req.disagreement,
      n: phase2n,
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
