/**
 * `compare` on a run with several judges and neither `--judge` nor `--committee`: the choice is the user's, never
 * made silently (new user 37: the committee was the default; with usable labels on 10.6% of the attacked runs it
 * left a model and three suites out, moved the default baseline and printed "underestimate 34.0 pp" where the one
 * judge labelling every run read 0.0 pp). As `estimate` does, compare refuses and names the choices, each with its
 * coverage of the attacked trajectories compared (those with a model and a value of the compared field).
 */
import { textTable } from "../format/text-table.js";
import type { CommitteeVerdict, Verdict } from "../types.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { committeeName } from "../committee/members.js";
import { showControls } from "../format/shown.js";
import { buildObservations, totalWeight, type LabelSource } from "./data.js";

/** One label source the run offers, with its usable labels among the attacked trajectories compared. */
export interface LabelChoice {
  /** The option that chooses it: `--judge ID` or `--committee`. */
  option: string;
  /** What it is, in words: `judge ID`, or the committee with its members and quorum. */
  name: string;
  labelled: number;
  attacked: number;
  /** Why it cannot be used as it is (a stale committee.jsonl), when so. */
  note?: string;
}

/**
 * The run's label sources and their coverage: every judge (repeat-0 verdicts), then the committee of its
 * committee.jsonl when it holds two judges or more.
 * @param index the (`--where`-restricted) trajectory index; @param verdicts its verdicts.
 * @param committee the committee file's members, quorum and verdicts (null: none, or fewer than 2 judges);
 *   `stale`: its staleness in words when it no longer describes the run.
 * @param field the compared field (`compare --by`).
 */
export function labelChoices(
  index: Map<string, TrajectoryIndexRow>,
  verdicts: readonly Verdict[],
  judges: readonly string[],
  committee: { members: string[]; quorum: number; verdicts: readonly CommitteeVerdict[]; stale?: string; from?: string } | null,
  field: string,
): LabelChoice[] {
  const cover = (source: LabelSource, labels: Parameters<typeof buildObservations>[1]) => {
    const o = buildObservations(index, labels, source, field);
    const labelled = totalWeight(o.observations);
    return { labelled, attacked: labelled + totalWeight(o.unlabelled ?? []) };
  };
  const out: LabelChoice[] = judges.map((j) => ({ option: `--judge ${j}`, name: `judge ${j}`, ...cover({ kind: "judge", judge_id: j }, { verdicts }) }));
  if (committee) {
    out.push({
      option: "--committee",
      name: `${committeeName({ members: committee.members, quorum: committee.quorum })} (${committee.from ?? "committee.jsonl"})`,
      ...cover({ kind: "committee", members: committee.members, quorum: committee.quorum }, { verdicts, committee: committee.verdicts }),
      ...(committee.stale ? { note: committee.stale } : {}),
    });
  }
  return out;
}

/** A coverage in words: `2684 of 2684 attacked (100.0%)`. */
const share = (c: LabelChoice) => `usable labels on ${c.labelled} of ${c.attacked} attacked trajectories (${c.attacked > 0 ? `${((100 * c.labelled) / c.attacked).toFixed(1)}%` : "undefined"})`;

/**
 * The refusal: the run's judges, that compare does not choose among them, and each choice with its coverage.
 * @param committeeNote said in place of a `--committee` line when the run has no usable committee.jsonl.
 */
export function chooseLabelsMessage(run: string, choices: readonly LabelChoice[], committeeNote?: string): string {
  const lines = choiceLines(choices, committeeNote);
  const judges = choices.filter((c) => c.option.startsWith("--judge ")).length;
  return (
    `run ${run} has ${judges} judges: choose whose labels compare reads (the rows, the models and suites compared, the default baseline and every figure built on them depend on it; compare does not choose for you, as estimate does not):\n` +
    lines.join("\n")
  );
}

/** One line per choice, its option padded, then what it is and its coverage (`committeeNote`: a last line in place of `--committee`). */
export function choiceLines(choices: readonly LabelChoice[], committeeNote?: string): string[] {
  // the option as shown (its controls made visible: longer than the option) sets the column's width (../format/text-table.ts)
  const lines = textTable(choices.map((c) => [showControls(c.option), `${c.name}: ${share(c)}${c.note ? `; ${c.note}` : ""}`]), { indent: "  " });
  if (committeeNote) lines.push(`  (--committee: ${committeeNote})`);
  return lines;
}
