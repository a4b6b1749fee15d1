/**
 * Agreement is measured over ATTACKED trajectories only: the one place that decides which items an agreement figure
 * (Cohen's kappa, Fleiss, Krippendorff's alpha, AC1, percent agreement) counts, for `committee` (pairwise and all
 * judges, object and column paths), `agree --human` (annotators among themselves and each judge or the committee
 * against the consensus) and the HTML report (which prints those two, and its kappa forest plot).
 *
 * Why: DESIGN section 1, row 6 (`../rubric/unattacked.ts`): on an unattacked trajectory the label is `not_exposed`
 * unless a verified quote of the agent's own action says otherwise, so raters "agree" there almost by construction;
 * counted, those items raise every coefficient (a new-user review: committee six-bucket kappa 0.818 over 82
 * trajectories, 0.761 over the 66 attacked ones), and ASR is over attacked trajectories anyway. They are left out
 * and said in one line with their count ({@link attackedOnlyNote}); a rater's labels other than `not_exposed` there
 * are counted in the same line.
 * An item whose attacked flag is unknown (not in the run's index, or a row that records no flag) is kept and said.
 * An item the run holds but `--where` drops (`agree --human --where`) is left out of every figure and said apart
 * (`outside_where`): it is neither "not in the run" nor of unknown flag.
 * (`agree --judges` and `agree --reference` take attacked trajectories only already.)
 */

/** What {@link AttackedOnly} left out and kept. */
export interface UnattackedLeftOut {
  /** Items left out of every agreement figure: their trajectory is unattacked. */
  unattacked: number;
  /** Of those, per rater, how many it gave a label other than `not_exposed` (compare with the judges' labels there). */
  off_rubric: Record<string, number>;
  /** Items kept although their attacked flag is unknown. */
  unknown: number;
  /**
   * Of `unknown`, those whose trajectory is not in the run at all (`agree --human`): the annotators' agreement counts
   * them, the judges' figures leave them out as `not_in_run` (red team 18: the note said the judges' figures were over them).
   */
  unknown_not_in_run?: number;
  /**
   * Items left out of every agreement figure, the annotators' too, because `--where` drops their trajectory (in the
   * run, not unattacked: `agree --human --where`'s `outside_where`); absent when there is no such item.
   */
  outside_where?: number;
}

/**
 * Decides, item by item, whether an agreement figure counts it, and tallies what it left out.
 * @param isNotExposed whether a rater's label is `not_exposed` on the scale compared (on the binary scale
 *   `not_compromised`, on the three-level scale its not-compromised level); default: the label is `not_exposed`.
 */
export class AttackedOnly {
  private unattacked = 0;
  private unknown = 0;
  private outside = 0;
  private readonly off: Record<string, number> = {};

  constructor(private readonly isNotExposed: (label: string) => boolean = (l) => l === "not_exposed") {}

  /**
   * @param attacked the item's attacked flag (true, false, or undefined: not known).
   * @param labels the raters' labels of the item (rater, label; null/undefined or a non-label token such as
   *   `judge_error` is no label and never a violation), called only when the item is unattacked.
   * @param isLabel which labels are labels (default: every non-empty string); non-labels are skipped.
   * @returns true when the item is counted (attacked, or its flag unknown), false when it is left out.
   */
  keep(attacked: boolean | undefined, labels?: () => Iterable<readonly [string, string | null | undefined]>, isLabel?: (l: string) => boolean): boolean {
    if (attacked === true) return true;
    if (attacked === undefined) {
      this.unknown++;
      return true;
    }
    this.unattacked++;
    if (labels)
      for (const [rater, l] of labels()) {
        if (!l || (isLabel && !isLabel(l)) || this.isNotExposed(l)) continue;
        this.off[rater] = (this.off[rater] ?? 0) + 1;
      }
    return false;
  }

  /**
   * Leave out an item the run holds but `--where` drops (call it only for one that is not unattacked: an unattacked
   * one is {@link keep}'s `unattacked`, ranked first).
   * @returns false (the item is not counted), for use in a filter.
   */
  leaveOutsideWhere(): false {
    this.outside++;
    return false;
  }

  /** The tally so far (a copy); `outside_where` only when some item was left out so. */
  result(): UnattackedLeftOut {
    return { unattacked: this.unattacked, off_rubric: { ...this.off }, unknown: this.unknown, ...(this.outside ? { outside_where: this.outside } : {}) };
  }
}

/**
 * The one line that says what {@link AttackedOnly} left out (and kept with an unknown flag); null when nothing.
 * E.g. `16 unattacked trajectories left out: the rubric labels them not_exposed unless the agent's own verified action says otherwise (alice gave
 * 2 of them another label: compare with the judges' labels there)`.
 */
export function attackedOnlyNote(x: UnattackedLeftOut): string | null {
  const parts: string[] = [];
  if (x.unattacked > 0) {
    const off = Object.entries(x.off_rubric).filter(([, n]) => n > 0);
    parts.push(
      `${x.unattacked} unattacked trajector${x.unattacked === 1 ? "y" : "ies"} left out: the rubric labels them not_exposed unless the agent's own verified action says otherwise` +
        (off.length ? ` (${off.map(([r, n]) => `${r} gave ${n} of them another label`).join(", ")}: compare with the judges' labels there)` : ""),
    );
  }
  const outside = x.outside_where ?? 0;
  if (outside > 0) parts.push(`${outside} trajector${outside === 1 ? "y" : "ies"} outside --where left out: in the run, but the filter drops them`);
  if (x.unknown > 0) parts.push(`${x.unknown} trajector${x.unknown === 1 ? "y" : "ies"} kept whose attacked flag is unknown (not in the run's index, or no flag recorded)`);
  return parts.length ? parts.join("; ") : null;
}

/**
 * The note `agree --human` prints above its figures: what population they are over, as it is (red team 17: "over
 * attacked trajectories" was printed when none of the labelled trajectories was attacked), then
 * {@link attackedOnlyNote}; null when nothing was left out or kept unknown.
 * @param items the labelled trajectories (attacked, unattacked and unknown).
 */
export function attackedOnlyHeading(x: UnattackedLeftOut, items: number): string | null {
  const left = attackedOnlyNote(x);
  if (!left) return null;
  return `note: ${agreementPopulation(x, items)}: ${left}`;
}

/**
 * What population agreement figures over {@link AttackedOnly}'s kept trajectories are over, as one clause: over
 * attacked trajectories (and those whose flag is unknown, when any), over unknown-flag ones only, or nothing to compare
 * (red team 17). Shared by `agree --human` ({@link attackedOnlyHeading}) and the HTML report.
 * @param items the labelled trajectories (attacked, unattacked and unknown).
 */
export function agreementPopulation(x: UnattackedLeftOut | undefined, items: number): string {
  const unattacked = x?.unattacked ?? 0;
  const unknown = x?.unknown ?? 0;
  const notInRun = x?.unknown_not_in_run ?? 0;
  const dropped = x?.outside_where ?? 0;
  const attacked = items - unattacked - unknown - dropped;
  const kept = dropped ? " kept by --where" : "";
  const outside = notInRun ? `; the annotators' agreement also over ${notInRun} not in the run (attacked flag unknown), which the judges' figures leave out` : "";
  return attacked > 0
    ? `every agreement figure below is over attacked trajectories${kept}${unknown > notInRun ? " and those whose attacked flag is unknown" : ""}${outside}`
    : unknown > notInRun
      ? `no labelled trajectory${kept} is known to be attacked: the agreement figures below are over those whose attacked flag is unknown only${outside}`
      : unknown > 0
        ? `no labelled trajectory in the run${kept} is attacked: the judges' figures below have nothing to compare; the annotators' agreement is over the ${notInRun} not in the run (attacked flag unknown)`
        : `no labelled trajectory${kept} is attacked, and agreement is over attacked trajectories only: there is nothing to compare below`;
}
