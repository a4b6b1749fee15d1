/**
 * What `estimate --human` reads of a run, the same whether the run was read as objects (`readLeanRun`: this
 * module's {@link objectEstimateData}) or as columns (`./estimate-columns.ts`, a million trajectories in bounded
 * memory: issue 26 point 3). The estimate (`estimateOver` of ./run.ts) is written once over this interface, so
 * both reads give the same report by construction; only the lookups differ.
 *
 * Units: the population's trajectories (one per id: the index's latest row), numbered 0 .. n-1 in id order
 * (code-unit order, as `buildPopulation` of ../sample/population.ts sorts them). Every per-trajectory step of the
 * estimate iterates units in that order (a float sum such as the calibrated estimate's judge term is summed in it).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { Bucket, Verdict } from "../types.js";
import { buildPopulation } from "../sample/population.js";
import { sourceLabels, type EstimateSource } from "./source.js";
import { buildCommittee, unlabelledCommitteeItem } from "../verdict/vote.js";
import { sourceHealth } from "./caveats.js";

/**
 * A unit's label from the estimate's source (judge or committee), or why it has none (`sourceLabels` of ./source.ts).
 * `goal_split`: a committee `full_compliance` resting on a full/partial tie (`goalSplit` of ../verdict/vote.ts).
 */
export type UnitLabel = { label: Bucket; goal_split?: true } | string;

/**
 * The source's label of a unit ({@link UnitLabel}); for a committee, `votesFor` gives which events a disputed unit's
 * votes allow (`votes_for` of `unlabelledCommitteeItem`, ../verdict/vote.ts; undefined: not disputed, or its votes
 * not known, which counts as possible). The judge's DISPUTED range (./judge-disputed.ts) reads both.
 */
export type LabelLookup = ((u: number) => UnitLabel) & { votesFor?: (u: number) => { goal: boolean; behaviour: boolean } | undefined };

/** The run as the estimate reads it (module docstring). */
export interface EstimateData {
  /** the population's size (units 0 .. n-1, in id order) */
  n: number;
  /** rows of the same id dropped by the population (`buildPopulation`: 0 for an index read as one row per id) */
  duplicatesDropped: number;
  /**
   * The index row of unit `u`: at least the fields the estimate reads (attacked, the strata, `--where` and `--by`
   * fields, agent_model, condition, run_folder); it may lack `id` and `content_sha256`.
   */
  row(u: number): TrajectoryIndexRow;
  /** the unit of a trajectory id, -1 when the population has none */
  unitOf(id: string): number;
  /** the content hash the run has now for a labelled trajectory (null: not in the run), as `checkLabelPairing` asks */
  contentOf(id: string): string | null | undefined;
  /** rows of `units` (all units when absent), in that order, each carrying its `id` (the sample frame's check) */
  rowsWithIds(units?: ArrayLike<number>): readonly TrajectoryIndexRow[];
  /** the verdicts' judges, as `resolveSource` reads them (only `judge_id`) */
  judges: Iterable<Pick<Verdict, "judge_id">>;
  /** the source's label of each of `units` (attacked units), read once; asked only for those units */
  labels(source: EstimateSource, units: ArrayLike<number>): LabelLookup;
  /** `sourceHealth` of ./caveats.ts over the verdicts of the kept units (`kept[u]` 1; absent: every verdict of the run) */
  health(source: EstimateSource, kept: Uint8Array | null): ReturnType<typeof sourceHealth>;
}

/**
 * The estimate's view of a run read as objects (`readLeanRun`: index rows with `id`, and the labelled ones'
 * `content_sha256`; verdicts carrying `trajectory_id`).
 */
export function objectEstimateData(index: ReadonlyMap<string, TrajectoryIndexRow>, verdicts: readonly Verdict[]): EstimateData {
  const pop = buildPopulation(index.values(), null, []);
  const units = pop.units;
  const unitNo = new Map<string, number>();
  units.forEach((u, i) => unitNo.set(u.id, i));
  const row = (u: number) => index.get(units[u].id)!;
  const unitOf = (id: string) => unitNo.get(id) ?? -1;
  return {
    n: units.length,
    duplicatesDropped: pop.dropped.length,
    row,
    unitOf,
    contentOf: (id) => (index.has(id) ? index.get(id)!.content_sha256 : null),
    rowsWithIds: (us) => (us ? Array.from(us, row) : units.map((u) => index.get(u.id)!)),
    judges: verdicts,
    labels(source, us) {
      const ids = Array.from(us, (u) => units[u].id);
      const committee = source.kind === "committee" ? buildCommittee(verdicts, ids, { judgeIds: source.members, quorum: source.quorum }) : undefined;
      const m = sourceLabels(verdicts, ids, source, committee);
      const lookup: LabelLookup = (u) => m.get(units[u].id)!;
      if (committee) {
        const votes = new Map<string, { goal: boolean; behaviour: boolean }>();
        for (const c of committee) {
          const vf = c.status === "disputed" ? unlabelledCommitteeItem(c).votes_for : undefined;
          if (vf) votes.set(c.trajectory_id, vf);
        }
        lookup.votesFor = (u) => votes.get(units[u].id);
      }
      return lookup;
    },
    health(source, kept) {
      const vs = kept
        ? verdicts.filter((v) => {
            const u = unitOf(v.trajectory_id);
            return u >= 0 && kept[u] === 1;
          })
        : verdicts;
      return sourceHealth(vs, source, (v) => index.get(v.trajectory_id));
    },
  };
}
