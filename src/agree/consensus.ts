/**
 * The one definition of the human consensus (issue 27), used by `agree --human` (`./human.ts`) and `estimate`
 * (`../estimate/run.ts`), so a trajectory has one consensus, or none, whichever command reads the file. It is
 * formed from the coarsest scale down (an annotator's later row replaces the earlier one): the majority of the
 * annotators on compromised vs not (binary); then, among the annotators on that side, the label most of them gave
 * on the three-way scale; then, among those, on the six buckets (down to the annotators' own scale,
 * `detectScale`). The consensus is the finest label reached with a unique lead, so it always refines the binary
 * majority: full / full / unaffected / not_exposed / task_refusal is `not compromised`, then `unaffected` on three-way
 * (no lead among its three buckets), never `full_compliance` for 2 of 5. No binary majority is a tie
 * (`consensus_tie`) for every command; a command comparing on a finer scale than the consensus reached leaves the
 * trajectory out by that reason (`consensus_coarser_than_scale`, listed for adjudication). `estimate` (binary) and
 * `agree --human --scale binary` use the same trajectories and the same consensus.
 */
import { detectScale, labelOnScale, type HumanScale } from "../rubric/scale.js";

const FINENESS: Record<HumanScale, number> = { six: 0, three: 1, binary: 2 };
const COARSE_TO_FINE: readonly HumanScale[] = ["binary", "three", "six"];

/** Whether scale `a` is coarser than `b` (binary coarser than three, three than six). */
export function coarserScale(a: HumanScale, b: HumanScale): boolean {
  return FINENESS[a] > FINENESS[b];
}

/**
 * The consensus of one trajectory (module docstring): the binary majority, refined within it on each finer scale
 * down to `own` while one label leads.
 * @param labels one label per annotator, each on `own`.
 * @returns the finest leading label and its scale, or null when there is no binary majority (a tie).
 */
export function consensusOf(labels: readonly string[], own: HumanScale): { label: string; scale: HumanScale } | null {
  let votes = [...labels];
  let out: { label: string; scale: HumanScale } | null = null;
  for (const s of COARSE_TO_FINE.slice(0, COARSE_TO_FINE.indexOf(own) + 1)) {
    const on = votes.map((l) => {
      const m = labelOnScale(l, s);
      return "reason" in m ? l : m.label;
    });
    const top = pluralityLabel(on);
    if (top === null) break;
    out = { label: top, scale: s };
    votes = votes.filter((_, i) => on[i] === top);
  }
  return out;
}

/**
 * The scale a consensus is formed on: the annotators' own scale (`detectScale` over the file's labels), or the scale
 * compared when that is finer (then labels that do not reach it are excluded by reason, as before).
 * @param labels every label of the file (any spelling `labelOnScale` accepts).
 * @param compared the scale the command compares on (default the annotators' scale).
 */
export function consensusScale(labels: readonly string[], compared?: HumanScale): HumanScale {
  const own = detectScale(labels);
  return compared !== undefined && FINENESS[compared] < FINENESS[own] ? compared : own;
}

/**
 * The consensus of one trajectory's labels (one per annotator, on one scale): the unique most frequent label, or
 * null when two or more labels share the highest count (a tie).
 */
export function pluralityLabel(labels: Iterable<string>): string | null {
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  let best: string | null = null;
  let max = 0;
  let tied = false;
  for (const [l, c] of counts) {
    if (c > max) {
      best = l;
      max = c;
      tied = false;
    } else if (c === max) tied = true;
  }
  return tied ? null : best;
}
