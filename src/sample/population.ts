/**
 * The population the annotation sample is drawn from: a run's trajectories (its `trajectories.jsonl` index),
 * one unit per trajectory id (two rows are the same unit only when they are the same run, i.e. the same id;
 * distinct runs with identical content, e.g. the same task under two defences that never fired, stay distinct
 * units, so stratum sizes and inclusion probabilities count every run), each with its sampling stratum (the values of the `--strata` fields)
 * and its committee stratum (DESIGN "Committee verdict": `A` = the committee was unanimous, `D` = it was not,
 * `U` = the committee file has no verdict for it; `null` when the run has no committee file).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { compareCodeUnits } from "./draw.js";
import { uniqueStratumNamer } from "./stratum-names.js";

// the stratum fields and keys live in ../store/stratum-key.ts (agree checks a label row's stratum against the run
// with them, and agree is below sample); re-exported here for the sample's readers
export { ALL_STRATUM, MISSING_VALUE, STRATUM_FIELDS, stratumKey, type StratumField } from "../store/stratum-key.js";
import { ALL_STRATUM, STRATUM_FIELDS, type StratumField } from "../store/stratum-key.js";

export type CommitteeStratum = "A" | "D" | "U";

/** The fields of a committee verdict this module reads (DESIGN section 3; other fields are ignored). */
export interface CommitteeRow {
  trajectory_id: string;
  unanimous: boolean;
  /** `no_quorum` rows have no committee verdict (too few valid votes): stratum `U`, never the disagreement pool. */
  status?: string;
}

/** One trajectory of the population. */
export interface PopulationUnit {
  id: string;
  content_sha256: string;
  sampling_stratum: string;
  committee_stratum: CommitteeStratum | null;
}

/** A row left out because its id was already read (the same run twice). */
export interface DroppedDuplicate {
  id: string;
  duplicate_of: string;
  reason: "same_id";
}

/** A unit whose content hash equals an earlier unit's (smaller id): kept in the population, noted for information. */
export interface ContentTwin {
  id: string;
  same_content_as: string;
}

export interface Population {
  /** Units sorted by id (code-unit order). */
  units: PopulationUnit[];
  dropped: DroppedDuplicate[];
  /**
   * Units with the same `content_sha256` as a unit of smaller id. They are distinct runs and stay in the
   * population (never dropped: that would change N_h and every weight); listed so annotators' effort can be
   * planned. Sorted by id.
   */
  content_twins: ContentTwin[];
  /** True when the run has committee verdicts. */
  committee: boolean;
  /** Trajectories of the population with no committee verdict (`U`). */
  committee_missing: number;
  /** Committee verdicts whose trajectory is not in the population (ignored). */
  committee_unmatched: number;
  /** Trajectories whose committee verdict is `no_quorum` (stratum `U`, not the disagreement pool). */
  committee_no_quorum: number;
  strata_fields: StratumField[];
}

/**
 * A population as columns (what {@link drawSampleColumns} of ./sample.ts draws from): the units in id order
 * (code-unit order), each a rank `0 .. n-1`, with its sampling stratum as a code and its committee stratum as a
 * byte, instead of an object per unit; a million trajectories in ~5 bytes each beside their ids.
 */
export interface ColumnPopulation {
  /** number of units */
  n: number;
  /** the id of the unit of rank `i` (a new string each call) */
  id(i: number): string;
  /** per unit: its sampling stratum, an index into `strata` */
  stratum: Uint32Array;
  /** the distinct sampling strata ({@link stratumKey}) */
  strata: string[];
  /** per unit: its committee stratum, an index into {@link COMMITTEE_CODES} (0: no committee) */
  committee: Uint8Array;
  /** as {@link Population} (`content_twins` as its count) */
  dropped: DroppedDuplicate[];
  content_twins: number;
  committee_run: boolean;
  committee_missing: number;
  committee_unmatched: number;
  committee_no_quorum: number;
  strata_fields: StratumField[];
}

/** The committee stratum of each code of {@link ColumnPopulation.committee}. */
export const COMMITTEE_CODES: ReadonlyArray<CommitteeStratum | null> = [null, "A", "D", "U"];

/** A {@link Population} as columns (its units sorted by id first, as `drawSample` sorts them). */
export function populationColumns(pop: Population): ColumnPopulation {
  const units = [...pop.units].sort((a, b) => compareCodeUnits(a.id, b.id));
  const codeOf = new Map<string, number>();
  const strata: string[] = [];
  const stratum = new Uint32Array(units.length);
  const committee = new Uint8Array(units.length);
  units.forEach((u, i) => {
    let c = codeOf.get(u.sampling_stratum);
    if (c === undefined) {
      codeOf.set(u.sampling_stratum, (c = strata.length));
      strata.push(u.sampling_stratum);
    }
    stratum[i] = c;
    committee[i] = COMMITTEE_CODES.indexOf(u.committee_stratum);
  });
  return {
    n: units.length,
    id: (i) => units[i].id,
    stratum,
    strata,
    committee,
    dropped: pop.dropped,
    content_twins: pop.content_twins.length,
    committee_run: pop.committee,
    committee_missing: pop.committee_missing,
    committee_unmatched: pop.committee_unmatched,
    committee_no_quorum: pop.committee_no_quorum,
    strata_fields: pop.strata_fields,
  };
}

/**
 * Check `--strata` field names.
 * @returns the fields, in the order given, without repeats.
 * @throws Error naming the unknown field and the allowed ones.
 */
export function parseStrataFields(fields: readonly string[]): StratumField[] {
  const out: StratumField[] = [];
  for (const raw of fields) {
    const f = raw.trim();
    if (f === "") continue;
    if (!(STRATUM_FIELDS as readonly string[]).includes(f)) {
      throw new Error(`unknown stratum field "${f}" (allowed: ${STRATUM_FIELDS.join(", ")})`);
    }
    if (!out.includes(f as StratumField)) out.push(f as StratumField);
  }
  return out;
}

/**
 * Build the population: one unit per trajectory id.
 * - Same id twice: the row with the smaller `content_sha256` is kept (independent of input order).
 * - Same content (`content_sha256`) under several ids: every id is kept (distinct runs are distinct units);
 *   the later ids are listed in `content_twins` with the smallest id of their content.
 * - Committee stratum from `committee` (last row per trajectory wins): `A` unanimous, `D` not unanimous (the
 *   judges with a vote disagree, or split evenly: `disputed`), `U` no committee verdict (no row, or `no_quorum`:
 *   too few valid votes is not a disagreement, so it never enters the disagreement pool); every unit is `null`
 *   when `committee` is null.
 * @throws Error when a committee row has no string `trajectory_id` or no boolean `unanimous`.
 */
export function buildPopulation(
  rows: Iterable<TrajectoryIndexRow>,
  committee: readonly CommitteeRow[] | null,
  fields: readonly StratumField[],
): Population {
  const dropped: DroppedDuplicate[] = [];
  const byId = new Map<string, TrajectoryIndexRow>();
  for (const r of rows) {
    const prev = byId.get(r.id);
    if (!prev) byId.set(r.id, r);
    else if (prev.content_sha256 !== r.content_sha256) {
      const keep = compareCodeUnits(prev.content_sha256, r.content_sha256) <= 0 ? prev : r;
      byId.set(r.id, keep);
      dropped.push({ id: r.id, duplicate_of: r.id, reason: "same_id" });
    }
  }
  const ids = [...byId.keys()].sort(compareCodeUnits);
  const byContent = new Map<string, string>();
  const contentTwins: ContentTwin[] = [];
  const kept: TrajectoryIndexRow[] = [];
  for (const id of ids) {
    const r = byId.get(id)!;
    const first = byContent.get(r.content_sha256);
    if (first !== undefined) contentTwins.push({ id, same_content_as: first });
    else byContent.set(r.content_sha256, id);
    kept.push(r);
  }
  let status: Map<string, boolean | "no_quorum"> | null = null;
  if (committee) {
    status = new Map();
    committee.forEach((c, i) => {
      if (typeof c?.trajectory_id !== "string" || typeof c?.unanimous !== "boolean") {
        throw new Error(`committee verdict ${i + 1}: needs a string trajectory_id and a boolean unanimous`);
      }
      status!.set(c.trajectory_id, c.status === "no_quorum" ? "no_quorum" : c.unanimous);
    });
  }
  let missing = 0;
  let noQuorum = 0;
  const stratumOf = uniqueStratumNamer(fields);
  const units = kept.map((r): PopulationUnit => {
    let cs: CommitteeStratum | null = null;
    if (status) {
      const u = status.get(r.id);
      cs = u === undefined || u === "no_quorum" ? "U" : u ? "A" : "D";
      if (u === undefined) missing++;
      if (u === "no_quorum") noQuorum++;
    }
    return { id: r.id, content_sha256: r.content_sha256, sampling_stratum: stratumOf(r), committee_stratum: cs };
  });
  let unmatched = 0;
  if (status) for (const id of status.keys()) if (!byId.has(id)) unmatched++;
  dropped.sort((a, b) => compareCodeUnits(a.id, b.id));
  return {
    units,
    dropped,
    content_twins: contentTwins,
    committee: status !== null,
    committee_missing: missing,
    committee_no_quorum: noQuorum,
    committee_unmatched: unmatched,
    strata_fields: [...fields],
  };
}

/**
 * The post-stratification cell of a unit (what the human-label file calls `stratum`): the committee stratum
 * crossed with the sampling stratum, `A`/`D`/`U` alone when there are no `--strata`, `D|suite=banking` with
 * strata, and the sampling stratum alone when the run has no committee. Within a cell the design treats every
 * trajectory alike, so N_h/n_h weights within cells are valid (test/data/vectors/NOTES.md §7.2 "Estimators").
 */
export function cellKey(samplingStratum: string, committee: CommitteeStratum | null): string {
  if (committee === null) return samplingStratum;
  return samplingStratum === ALL_STRATUM ? committee : `${committee}|${samplingStratum}`;
}
