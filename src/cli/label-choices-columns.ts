/**
 * {@link labelChoices} of `../compare/label-choices.ts` on a run read as columns (`../store/columns.ts`): each judge's and the
 * committee's usable labels among the attacked trajectories compared, counted by `buildObservationsColumns` (one
 * observation per distinct row record and label, with its weight) instead of an observation object per trajectory.
 * The refusals of several judges and no choice (`estimate`: ./choice-coverage.ts) then read a million
 * trajectories in bounded memory. test/cli/label-choices-columns.test.ts checks both give the same choices.
 */
import type { ColumnRun } from "../store/columns.js";
import { rep0ByJudge } from "../committee/file-columns.js";
import { committeeColumns } from "../committee/report-columns.js";
import { committeeObservations, type CommitteeSlots } from "../report/slots.js";
import { committeeName } from "../committee/members.js";
import { buildObservationsColumns, type SlotVerdicts } from "../compare/data-columns.js";
import { totalWeight, type Observations } from "../compare/data.js";
import type { LabelChoice } from "../compare/label-choices.js";

/** The pseudo judge id the committee's verdicts carry (never a judge's: it has a space). */
const COMMITTEE_RATER = "committee (choices)";

/** A source's coverage: usable labels, and the attacked trajectories compared (labelled or not). */
const cover = (o: Observations) => {
  const labelled = totalWeight(o.observations);
  return { labelled, attacked: labelled + totalWeight(o.unlabelled ?? []) };
};

/**
 * The run's label sources and their coverage, as `labelChoices`: every judge (repeat-0 verdicts), then the
 * committee of `members` with `quorum`, its verdicts built from the judges' repeat-0 votes per row slot
 * (`committeeColumns`, the votes of `buildCommittee`).
 * @param run the (`--where`-kept) run as columns, read with `COMPARE_ROW_FIELDS` and `field`.
 * @param committee null: no committee line; `from` said after its name (default "committee.jsonl"); `slots`: its
 *   verdict per row slot as given (a committee file's lines: `committeeSlotsOfFile`), else built from the votes.
 * @param field the compared field (`compare --by`; `estimate`'s refusal counts by `agent_model`).
 */
export function labelChoicesColumns(
  run: ColumnRun,
  judges: readonly string[],
  committee: { members: string[]; quorum: number; stale?: string; from?: string; slots?: CommitteeSlots } | null,
  field: string,
): LabelChoice[] {
  const out: LabelChoice[] = judges.map((j) => ({ option: `--judge ${j}`, name: `judge ${j}`, ...cover(buildObservationsColumns(run, j, field)) }));
  if (committee) {
    const rep0 = rep0ByJudge(run);
    const none = new Uint32Array(run.ids.size);
    const built = committee.slots ? undefined : committeeColumns(run, committee.members, committee.members.map((j) => rep0.get(j) ?? none), committee.quorum);
    const cs: CommitteeSlots = committee.slots ?? { code: Int32Array.from(built!.code), verdicts: built!.verdicts };
    const slots: SlotVerdicts = committeeObservations(run, cs, rep0, COMMITTEE_RATER);
    out.push({
      option: "--committee",
      name: `${committeeName({ members: committee.members, quorum: committee.quorum })} (${committee.from ?? "committee.jsonl"})`,
      ...cover(buildObservationsColumns(run, COMMITTEE_RATER, field, slots)),
      ...(committee.stale ? { note: committee.stale } : {}),
    });
  }
  return out;
}
