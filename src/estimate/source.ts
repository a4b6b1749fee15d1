/**
 * Whose labels an estimate's judge term uses (`estimate`, `estimate --table`, the report's paper table): one judge,
 * or the committee of the run as `../committee/members.ts` defines it (the stored committee's members, or
 * `--exclude-judge`'s, or every judge), named with its members in every output.
 */
import type { Bucket, CommitteeVerdict, Verdict } from "../types.js";
import { buildCommittee, goalSplit, unusableReason } from "../verdict/vote.js";
import { showControls } from "../format/shown.js";
import { CommitteeChoiceError, committeeMembers, committeeName, type StoredCommittee } from "../committee/members.js";

/** Whose labels the judge term uses: a judge, or a committee of `members` (sorted) voting with `quorum`. */
export type EstimateSource = { kind: "judge"; judge_id: string } | { kind: "committee"; quorum: number; members: string[]; left_out: string[] };

/**
 * What a command asks for: a judge (undefined: the run's only one), or the committee with `--exclude-judge`
 * (`exclude`), `--quorum` (undefined: the stored committee's, else 2) and the run's stored committee (`stored`:
 * null when it has none; undefined when the caller did not read it, taken as none).
 */
export type SourceChoice = { kind: "judge"; judge_id?: string } | { kind: "committee"; quorum?: number; exclude?: readonly string[]; stored?: StoredCommittee | null };

/** A request the run or the label file cannot answer (unknown judge, no design fields, ...). */
export class EstimateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EstimateError";
  }
}

/** A source's name in text: the judge id, or `committee (a, b, c; quorum 2)`. */
export const sourceName = (s: EstimateSource): string => (s.kind === "judge" ? s.judge_id : committeeName(s));

/**
 * The judge's (committee's) usable label of every trajectory, `{ label }`, or the reason it has none (as
 * `judgeFlags` of ./run.ts): read once, then flagged for each event (`flagsOf`) without building a committee again.
 * @param committee the committee of `verdicts` over `ids` when the caller built it already (a committee source).
 */
export function sourceLabels(verdicts: readonly Verdict[], ids: readonly string[], source: EstimateSource, committee?: ReturnType<typeof buildCommittee>): Map<string, { label: Bucket; goal_split?: true } | string> {
  const out = new Map<string, { label: Bucket; goal_split?: true } | string>();
  if (source.kind === "judge") {
    const rep0 = new Map<string, Verdict>();
    for (const v of verdicts) if (v.judge_id === source.judge_id && v.repeat === 0) rep0.set(v.trajectory_id, v);
    for (const id of ids) {
      const v = rep0.get(id);
      out.set(id, unusableReason(v) ?? { label: v!.label! });
    }
  } else {
    for (const c of committee ?? buildCommittee(verdicts, ids, { judgeIds: source.members, quorum: source.quorum })) {
      out.set(c.trajectory_id, committeeUnitLabel(c));
    }
  }
  return out;
}

/**
 * A committee verdict as a unit's label: `{ label }` (with `goal_split` when its `full_compliance` rests on a
 * full/partial tie, `goalSplit` of ../verdict/vote.ts), or `committee_no_quorum` / `committee_<status>`.
 */
export function committeeUnitLabel(c: Pick<CommitteeVerdict, "status" | "compromised" | "label" | "votes">): { label: Bucket; goal_split?: true } | string {
  if (c.status === "ok" && c.compromised !== null && c.label) return goalSplit(c) ? { label: c.label, goal_split: true } : { label: c.label };
  return `committee_${c.status === "ok" ? "no_quorum" : c.status}`;
}

/**
 * The label source of an estimate: the committee (`committeeMembers` of ../committee/members.ts; needs at least 2
 * members), the named judge, or the run's only judge.
 * @param verdicts the run's verdicts (every judge's; any order). Only `judge_id` is read.
 * @param warnings when given, the committee's warnings are pushed to it (a stale committee.jsonl, a selection
 *   other than the stored one).
 * @throws EstimateError for an unknown judge (to use or leave out), a committee of fewer than 2 judges, or several
 *   judges and no choice.
 */
export function resolveSource(verdicts: Iterable<Pick<Verdict, "judge_id">>, src: SourceChoice, run: string, warnings?: string[]): EstimateSource {
  const set = new Set<string>();
  for (const v of verdicts) set.add(v.judge_id);
  const judges = [...set].sort();
  if (src.kind === "committee") {
    let m;
    try {
      m = committeeMembers(judges, src.stored ?? null, { exclude: src.exclude, quorum: src.quorum }, run);
    } catch (e) {
      if (e instanceof CommitteeChoiceError) throw new EstimateError(e.message);
      throw e;
    }
    if (m.members.length < 2)
      throw new EstimateError(
        `--committee needs at least 2 judges; the committee of run ${run} has ${m.members.length} (${m.members.join(", ") || "none"}${m.left_out.length ? `; left out: ${m.left_out.join(", ")}` : ""})`,
      );
    warnings?.push(...m.warnings);
    return { kind: "committee", quorum: m.quorum, members: m.members, left_out: m.left_out };
  }
  if (src.judge_id !== undefined) {
    if (!judges.includes(src.judge_id)) throw new EstimateError(`judge "${src.judge_id}" has no verdicts in run ${run} (judges: ${judges.join(", ") || "none"})`);
    return { kind: "judge", judge_id: src.judge_id };
  }
  if (judges.length === 1) return { kind: "judge", judge_id: judges[0] };
  throw new EstimateError(`run ${run} has ${judges.length} judges (${judges.map(showControls).join(", ") || "none"}): choose one with --judge ID, or --committee`);
}
