/**
 * The labelled trajectories of a group that `estimate --human` leaves out for want of a human consensus (session 51):
 * annotators tied (`consensus_tie`: as many say compromised as not), split between full and partial compliance on
 * asr_goal (`consensus_coarser_than_scale`), or a `complied` label that cannot tell full from partial
 * (`cannot_tell_full_from_partial`; `./human-consensus.ts` gives the reasons). They count as unlabelled in their
 * strata (the design's nonresponse: missing at random within the stratum), which a tie need not be: a tie is where the
 * annotators, and so likely the judge, found the trajectory hard. Before, the count was said only on the labels line at
 * the top, not beside the group's estimate; each group now carries its own (`human_left_out` in the JSON, by reason),
 * and the text prints it on the group's `labelled` line.
 */
import { reasonText } from "../format/stat-text.js";

/**
 * The group's left-out labelled trajectories by reason.
 * @param units the group's units (attacked trajectories of the domain); @param leftOut the unit of every labelled
 * trajectory without a consensus, with its reason (`humanConsensus`'s `excluded_ids`, mapped to units).
 * @returns reason -> count, empty when none.
 */
export function groupHumanLeftOut(units: ArrayLike<number>, leftOut: ReadonlyMap<number, string>): Record<string, number> {
  const out: Record<string, number> = {};
  if (leftOut.size === 0) return out;
  for (let i = 0; i < units.length; i++) {
    const r = leftOut.get(units[i]);
    if (r !== undefined) out[r] = (out[r] ?? 0) + 1;
  }
  return out;
}

/**
 * The clause the text adds after a group's `labelled N`: `; 12 more labelled, left out (no human consensus: annotators
 * tied 12): unlabelled in their strata`; "" when none.
 */
export function humanLeftOutText(leftOut: Readonly<Record<string, number>> | undefined): string {
  const entries = Object.entries(leftOut ?? {});
  const n = entries.reduce((s, [, v]) => s + v, 0);
  if (n === 0) return "";
  return `; ${n} more labelled, left out (no human consensus: ${entries.map(([k, v]) => `${reasonText(k)} ${v}`).join(", ")}): counted as unlabelled in their strata`;
}
