/**
 * The population a human sample was drawn from, as the label file records it (`sample_where`, written by
 * `import-annotations` from design.json's `where`: ../store/sample-where.ts), checked against the run: how many of
 * the run's trajectories that filter keeps now, and how many attacked trajectories of the estimate's groups lie
 * outside it (no human label can represent those). Shared by `estimate` and `agree --human` (./sample-frame.ts).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { WHERE_FIELDS, matchesWhere, typedClauses, type WhereField, type WhereFilter } from "../store/where.js";
import type { HumanLabelFile } from "./human-file.js";

/** The sample's recorded population, for the report (`sample_population` in `--json`). */
export interface SamplePopulation {
  /** The `sample --where` filter the sample was drawn under. */
  filter: string;
  /** N recorded when the sample was drawn. */
  N_recorded: number;
  /** The run's trajectories the filter keeps now (the design's population, if the run has not changed). */
  N_run: number;
  /** Attacked trajectories of the estimate's groups that the filter leaves out. */
  attacked_outside: number;
}

/**
 * The sample population recorded in the label file, checked against the run.
 * @param file the human-label file read.
 * @param rows every trajectory of the run's population (duplicates dropped), for N_run.
 * @param domain the attacked trajectories the estimate's groups are over.
 * @param warnings receives a warning when a field is unknown, or attacked trajectories of the groups lie outside
 *   the sample's population.
 * @param humanFile the label file's name, for messages.
 * @param refused what an unknown field refuses, with its status (the clause after "so"; ./sample-frame.ts `FrameWords`).
 * @returns null when no row records a population (a sample of the whole run, or a file made by hand) or it names a
 *   field this version does not know (warned); else the population for the report and `inFrame`, whether a
 *   trajectory is in it (one outside had inclusion probability 0). The rows are of one sample
 *   (./sample-frame.ts refuses a file holding several): the first row's record is the file's.
 */
export function samplePopulation(
  file: HumanLabelFile,
  rows: readonly TrajectoryIndexRow[],
  domain: readonly TrajectoryIndexRow[],
  warnings: string[],
  humanFile = "",
  refused = "no group gets a human or calibrated estimate (undefined: sample_frame_unknown)",
): { population: SamplePopulation; inFrame: (r: TrajectoryIndexRow) => boolean } | null {
  const sw = file.rows[0]?.sample_where;
  if (!sw) return null;
  const unknown = Object.keys(sw.clauses).filter((f) => !Object.hasOwn(WHERE_FIELDS, f));
  if (unknown.length) {
    warnings.push(
      `label file ${humanFile}: sample_where names unknown field(s) ${unknown.join(", ")}: the sample's population (--where ${sw.filter}) cannot be known, so ${refused}`,
    );
    return null;
  }
  const f: WhereFilter = { clauses: Object.entries(sw.clauses).map(([field, values]) => ({ field: field as WhereField, values })), text: sw.filter };
  const args = typedClauses(sw).map((c) => `--where ${c}`).join(" "); // fields as typed (out50)
  let N = 0;
  for (const r of rows) if (matchesWhere(r, f)) N++;
  let outside = 0;
  for (const r of domain) if (!matchesWhere(r, f)) outside++;
  if (outside > 0)
    warnings.push(
      `${outside} of the ${domain.length} attacked trajectories the groups below are over are outside the population the sample was drawn from (${args}, recorded with the sample): ` +
        `they had no chance of a human label, so a group holding any of them gets no human or calibrated estimate (undefined: outside_sample_population); estimate ${args} gives the groups over the sample's population`,
    );
  return { population: { filter: sw.filter, N_recorded: sw.N, N_run: N, attacked_outside: outside }, inFrame: (r) => matchesWhere(r, f) };
}
