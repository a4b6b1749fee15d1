/**
 * The `--by agent_model[,condition]` groups of `estimate --human` cut to the paper table's like-for-like population
 * (session 52, est52 #3): each agent model's attacked runs on the (suite, user task, injection task, attack) cells all
 * its conditions ran (`./table-population.ts` `likeForLikePopulation`, the table's own rule). Before, a table row that
 * the shared cells cut had no calibrated cell (`calibrated_over_all_runs_not_like_for_like_cells`): the estimate was
 * over every attacked run of the group.
 *
 * A row's cut runs are a domain of the sample's population, like any group: its units known for every trajectory, its
 * labelled items those of the sample that fall in it, each with the weight N_c/n_c its design cell gives every
 * labelled item (the inclusion probabilities do not depend on the domain). So the group's human and calibrated
 * figures over the cut are domain estimates by the same estimators (`./calibrated.ts` `domainAsr`: the Hájek domain
 * mean Σ w δ y / Σ w δ, and the two-phase difference estimator with the judge term over the domain's N_g; Särndal,
 * Swensson & Wretman 1992, *Model Assisted Survey Sampling*, §10.3-10.5 for domains, §9.7 for the two-phase
 * estimator): unbiased for the rate over the cut runs, with fewer labelled items (and wider intervals) than the whole
 * group. The `(all)` group is never cut: it stays over every attacked run of the domain, and says so.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { ALL_GROUP, type GroupUnits } from "./groups.js";
import { likeForLikePopulation } from "./table-population.js";

/** What a cut group says of itself (JSON `over_cells` on the group). */
export interface GroupCut {
  /** The group's attacked runs on its model's shared cells: its `n_population`. */
  kept: number;
  /** Its attacked runs on cells of its own, left out. */
  left_out: number;
}

/**
 * Cut every group but `(all)` to its model's shared cells, in place; returns the cut of each group that lost runs.
 * @param groups `groupDomains`'s groups (by `agent_model`, and `condition` when `by` has it).
 * @param domain the domain's units (attacked, kept by `--where`); @param rowOf a unit's row.
 */
export function cutToSharedCells(groups: Map<string, GroupUnits>, domain: Uint32Array, by: readonly string[], rowOf: (u: number) => TrajectoryIndexRow): Map<string, GroupCut> {
  const withCondition = by.includes("condition");
  const lfl = likeForLikePopulation(
    { n: domain.length, row: (j: number) => rowOf(domain[j]) },
    (r) => r.agent_model ?? "(none)",
    (r) => (withCondition ? ((r as { condition?: string }).condition ?? "(none)") : ""),
  );
  const keep = new Uint8Array(rowOfLength(domain));
  domain.forEach((u, j) => {
    if (lfl.keep(j)) keep[u] = 1;
  });
  const cuts = new Map<string, GroupCut>();
  for (const [name, g] of groups) {
    if (name === ALL_GROUP) continue;
    const kept = g.units.filter((u) => keep[u] === 1);
    if (kept.length === g.units.length) continue;
    cuts.set(name, { kept: kept.length, left_out: g.units.length - kept.length });
    g.units = kept;
  }
  return cuts;
}

/** One past the largest unit of the domain (the mark array's length). */
function rowOfLength(domain: Uint32Array): number {
  let m = 0;
  for (const u of domain) if (u + 1 > m) m = u + 1;
  return m;
}

/** The group's note: over the shared cells, a domain estimate. */
export function cutNote(c: GroupCut): string {
  return `over its model's shared cells (like for like, as the paper table's row): ${c.kept} attacked runs on the (suite, user task, injection task, attack) cells all its model's conditions ran, ${c.left_out} on cells of its own left out; its human and calibrated figures are domain estimates over those ${c.kept} (the labelled items among them, with their design weights; Sarndal, Swensson & Wretman 1992, sec. 10.3-10.5)`;
}
