/**
 * The population a human sample was drawn from, as the label file records it (`sample_where`, written by
 * `import-annotations` from design.json's `where`: ../store/sample-where.ts), checked against the run: how many of
 * the run's trajectories that filter keeps now, and how many attacked trajectories of the estimate's groups lie
 * outside it (no human label can represent those).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { WHERE_FIELDS, matchesWhere, type WhereField, type WhereFilter } from "../store/where.js";
import type { HumanLabelFile } from "../agree/human.js";
import type { SampleWhere } from "../store/sample-where.js";

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

/** The one `sample_where` of the file's rows, or null (none recorded); rows that disagree are warned about. */
function recorded(file: HumanLabelFile, warnings: string[]): SampleWhere | null {
  const byFilter = new Map<string, SampleWhere>();
  let without = 0;
  for (const r of file.rows) {
    if (r.sample_where) byFilter.set(r.sample_where.filter, r.sample_where);
    else without++;
  }
  if (byFilter.size === 0) return null;
  if (byFilter.size > 1 || without > 0) {
    warnings.push(
      `the label file's rows record ${byFilter.size} sample population(s) (${[...byFilter.keys()].map((f) => `--where ${f}`).join("; ")})` +
        (without ? ` and ${without} row(s) none` : "") +
        `: rows of different samples in one file; the sample's population is not known, so none is checked (import each sample's annotations into its own file)`,
    );
    return null;
  }
  return [...byFilter.values()][0];
}

/**
 * The sample population recorded in the label file, checked against the run.
 * @param file the human-label file read.
 * @param rows every trajectory of the run's population (duplicates dropped), for N_run.
 * @param domain the attacked trajectories the estimate's groups are over.
 * @param warnings receives a warning when rows disagree, a field is unknown, or attacked trajectories of the groups
 *   lie outside the sample's population.
 * @returns null when no row records a population (a sample of the whole run, or a file made by hand); else the
 *   population for the report and `inFrame`, whether a trajectory is in it (one outside had inclusion probability 0).
 */
export function samplePopulation(
  file: HumanLabelFile,
  rows: readonly TrajectoryIndexRow[],
  domain: readonly TrajectoryIndexRow[],
  warnings: string[],
): { population: SamplePopulation; inFrame: (r: TrajectoryIndexRow) => boolean } | null {
  const sw = recorded(file, warnings);
  if (!sw) return null;
  const unknown = Object.keys(sw.clauses).filter((f) => !Object.hasOwn(WHERE_FIELDS, f));
  if (unknown.length) {
    warnings.push(`the label file's sample_where names unknown field(s) ${unknown.join(", ")}: the sample's population (--where ${sw.filter}) cannot be checked`);
    return null;
  }
  const f: WhereFilter = { clauses: Object.entries(sw.clauses).map(([field, values]) => ({ field: field as WhereField, values })), text: sw.filter };
  const args = Object.entries(sw.clauses).map(([k, v]) => `--where ${k}=${v.join(",")}`).join(" ");
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
