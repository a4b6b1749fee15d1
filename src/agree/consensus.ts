/**
 * The one definition of the human consensus (issue 27), used by `agree --human` (`./human.ts`) and `estimate`
 * (`../estimate/run.ts`), so a trajectory has one consensus, or none, whichever command reads the file: the unique
 * most frequent label among its annotators (an annotator's later row replaces the earlier one) on the finest scale
 * where one label leads: the annotators' own scale (`detectScale`), else the three-way scale, else binary
 * (full / partial / unaffected has no lead on the six buckets; on three, `complied` 2 to 1). A trajectory without a
 * lead even on binary is a tie (`consensus_tie`) for every command. A command comparing on a finer scale than the
 * consensus was reached on leaves the trajectory out by that reason (`consensus_coarser_than_scale`, listed for
 * adjudication); `estimate` (binary) and `agree --human --scale binary` use the same trajectories.
 */
import { detectScale, labelOnScale, type HumanScale } from "../rubric/scale.js";

const FINENESS: Record<HumanScale, number> = { six: 0, three: 1, binary: 2 };
const SCALES: readonly HumanScale[] = ["six", "three", "binary"];

/** Whether scale `a` is coarser than `b` (binary coarser than three, three than six). */
export function coarserScale(a: HumanScale, b: HumanScale): boolean {
  return FINENESS[a] > FINENESS[b];
}

/**
 * The consensus of one trajectory (module docstring): the plurality label on `own` (the scale its labels are on),
 * else on each coarser scale in turn.
 * @param labels one label per annotator, each on `own`.
 * @returns the leading label and the scale it leads on, or null when no scale gives a unique lead (a tie).
 */
export function consensusOf(labels: readonly string[], own: HumanScale): { label: string; scale: HumanScale } | null {
  for (const s of SCALES.slice(FINENESS[own])) {
    const on = labels.map((l) => {
      const m = labelOnScale(l, s);
      return "reason" in m ? l : m.label;
    });
    const top = pluralityLabel(on);
    if (top !== null) return { label: top, scale: s };
  }
  return null;
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
