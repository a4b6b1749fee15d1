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
import { ALL_GROUP, groupValue, type GroupUnits } from "./groups.js";
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
  // the condition as the groups key it: `condition` and any `metadata.<key>` of --by (est53 #2: `--by
  // agent_model,metadata.defense` compares a model's defenses as `--by agent_model,condition` does, ./like-for-like.ts)
  const conditionFields = by.filter(isConditionField);
  const lfl = likeForLikePopulation(
    { n: domain.length, row: (j: number) => rowOf(domain[j]) },
    (r) => groupValue(r as TrajectoryIndexRow, "agent_model"),
    (r) => conditionFields.map((f) => groupValue(r as TrajectoryIndexRow, f)).join(" / "),
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

/** `condition` or a `metadata.<key>` field of `--by`: compared as the condition (./like-for-like.ts). */
export function isConditionField(f: string): boolean {
  return f === "condition" || f.startsWith("metadata.");
}

/** `--by` names the agent model (`agent_model`, or its alias `model`). */
export const byHasModel = (by: readonly string[]) => by.some((f) => f === "agent_model" || f === "model");

/**
 * The line that says which attacked runs the `--by` groups are over (`estimate` without `--table`; est53 #2), in the
 * paper table's words (./table-population.ts `populationText`): like for like (each agent model's groups over the
 * cells all its conditions ran, the groups cut counted), or own mix (`--own-mix`). Null when `--by` does not cross the
 * agent model with a condition (no model's conditions side by side: nothing to cut).
 * @param r the report's `by`, `groups_over` and groups (`over_cells` on each cut one; `(all)` never cut).
 */
export function groupsOverText(r: { by: readonly string[]; groups_over?: string; groups: ReadonlyArray<{ group: string; n_population: number; over_cells?: GroupCut }> }): string | null {
  if (!byHasModel(r.by) || !r.by.some(isConditionField)) return null;
  if (r.groups_over === "own_mix") {
    return "population: own mix (--own-mix): each group over every attacked run of its own, whatever the other groups of its model ran (see the NOT LIKE FOR LIKE warnings); without --own-mix each agent model's groups are over the cells its conditions share";
  }
  if (r.groups_over !== "like_for_like_cells") return null;
  const cut = r.groups.filter((g) => g.over_cells);
  const int = (n: number) => n.toLocaleString("en-US");
  const kept = cut.reduce((s, g) => s + g.over_cells!.kept, 0);
  const left = cut.reduce((s, g) => s + g.over_cells!.left_out, 0);
  const which = cut.length ? `${cut.length} group${cut.length === 1 ? "" : "s"} cut (${cut.map((g) => `${g.group}: ${int(g.over_cells!.kept)} of ${int(g.over_cells!.kept + g.over_cells!.left_out)}`).join("; ")}; ${int(left)} runs on cells of their own left out, ${int(kept)} kept), the others over all their runs` : "no group cut (each model's conditions ran the same cells, or it ran one)";
  return `population: like for like: each agent model's groups over its attacked runs on the (suite, user task, injection task, attack) cells all its conditions ran, as estimate --table's rows and compare --by condition pair them: ${which}; (all) over every attacked run; --own-mix gives each group over all its own runs`;
}

/** The group's note: over the shared cells, a domain estimate. */
export function cutNote(c: GroupCut): string {
  return `over its model's shared cells (like for like, as the paper table's row): ${c.kept} attacked runs on the (suite, user task, injection task, attack) cells all its model's conditions ran, ${c.left_out} on cells of its own left out; its human and calibrated figures are domain estimates over those ${c.kept} (the labelled items among them, with their design weights; Sarndal, Swensson & Wretman 1992, sec. 10.3-10.5)`;
}

/** The reason of a group's undefined figures when the like-for-like cut left it no run (`../format/stat-text.ts`). */
export const EMPTIED_BY_CUT = "emptied_by_like_for_like_cut";

/**
 * A group the like-for-like cut emptied (every run of it on cells its model's other conditions did not run): its
 * figures' reason `empty_group` ("the group has no trajectory", false: it holds runs, all left out) becomes
 * {@link EMPTIED_BY_CUT} (break2_53 #5: Llama / no_defense / slack read "no trajectory" over 315 runs). Returns `ge`
 * changed in place (plain objects and arrays walked; other groups returned as they are).
 */
export function withCutReason<T>(ge: T, cut: GroupCut | undefined): T {
  if (!cut || cut.kept > 0) return ge;
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") {
      const o = x as Record<string, unknown>;
      if (o.reason === "empty_group") o.reason = EMPTIED_BY_CUT;
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(ge);
  return ge;
}
