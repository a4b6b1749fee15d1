/**
 * Where `estimate`'s labelled trajectories go (new user L3: `estimate --human` said "49 of 60 used" while
 * `agree --human` on the same file said "42 compared", and nothing told why). Every labelled trajectory of the file is
 * one of: in the groups' population (attacked, kept by `--where`, with a consensus: the human sample of the `(all)`
 * group), in no group but in the design (a consensus on an unattacked trajectory, or one `--where` drops: a sampled
 * item of its stratum, which the domain estimators count in n_c), or left out by one reason. The reasons are ranked
 * as `agree --human` ranks them where both have one (`content_changed_since_sample`, then `not_in_run`, then the
 * consensus reasons), and the left-out ones that are unattacked, or attacked and dropped by `--where`, are counted apart:
 * `agree --human` leaves them out as `unattacked` and `outside_where`, its reasons ranked before a tie.
 */

/**
 * The split of the labelled trajectories (JSON `labels`: `in_groups`, `outside_groups`, `excluded_unattacked`,
 * `excluded_outside_where`).
 */
export interface LabelPopulation {
  /** Labelled trajectories with a consensus that are attacked and in the domain (`--where`): the `(all)` group's `n_sampled`. */
  in_groups: number;
  /**
   * Labelled trajectories with a consensus in no group, by reason (`unattacked`: not attacked or the flag unknown;
   * `outside_where`: attacked, dropped by `--where`): sampled items of their strata only. Empty when none.
   */
  outside_groups: Record<string, number>;
  /** Of the trajectories in `excluded` (in the run), those not attacked: `agree --human` counts them as `unattacked`. */
  excluded_unattacked: number;
  /**
   * Of the trajectories in `excluded` (in the run), those attacked that `--where` drops: `agree --human --where` counts
   * them as `outside_where` (ranked before a tie, as `unattacked`). 0 without `--where`.
   */
  excluded_outside_where: number;
}

/**
 * Re-rank consensus reasons behind `not_in_run`, as `agree --human` does: a trajectory the run does not hold is left out
 * as `not_in_run` whatever its annotators said. Changes `excluded` and `excludedIds` in place.
 * @param inRun whether the run's population (deduplicated) holds the trajectory.
 */
export function notInRunFirst(excluded: Record<string, number>, excludedIds: Map<string, string>, inRun: (id: string) => boolean): void {
  for (const [id, reason] of excludedIds) {
    if (inRun(id) || reason === "not_in_run") continue;
    if (--excluded[reason] === 0) delete excluded[reason];
    excluded.not_in_run = (excluded.not_in_run ?? 0) + 1;
    excludedIds.set(id, "not_in_run");
  }
}

/**
 * The split of the labelled trajectories ({@link LabelPopulation}).
 * @param labelled the ids of the labelled trajectories with a consensus in the run (the design's sample).
 * @param excludedIds the consensus reasons' trajectories (after {@link notInRunFirst}).
 * @param attacked whether a trajectory of the run is attacked (false when unknown).
 * @param inDomain whether an attacked trajectory is kept by `--where` (always true without one).
 */
export function labelPopulation(
  labelled: readonly string[],
  excludedIds: ReadonlyMap<string, string>,
  attacked: (id: string) => boolean,
  inDomain: (id: string) => boolean,
): LabelPopulation {
  const outside: Record<string, number> = {};
  let inGroups = 0;
  for (const id of labelled) {
    const why = !attacked(id) ? "unattacked" : !inDomain(id) ? "outside_where" : null;
    if (why === null) inGroups++;
    else outside[why] = (outside[why] ?? 0) + 1;
  }
  let excludedUnattacked = 0;
  let excludedOutside = 0;
  for (const [id, reason] of excludedIds) {
    if (reason === "not_in_run") continue;
    if (!attacked(id)) excludedUnattacked++;
    else if (!inDomain(id)) excludedOutside++;
  }
  // one order whatever the ids' (unattacked first, as agree --human ranks it)
  const ordered = Object.fromEntries(["unattacked", "outside_where"].filter((k) => outside[k]).map((k) => [k, outside[k]]));
  return { in_groups: inGroups, outside_groups: ordered, excluded_unattacked: excludedUnattacked, excluded_outside_where: excludedOutside };
}
