/**
 * The warnings of a paper table (`paperTableFrom` of ./table.ts) about rows that are not like for like (issue 22,
 * review 14) and about denial-of-service attacks pooled into its rates (new user 22), read from its trajectories'
 * index rows one at a time: no list of a million rows or items is made (issue 26: at 1,000,000 trajectories
 * `estimate --table` made three lists of a million rows and two of a million item objects here, its peak heap).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { runKind } from "../ingest/attacked.js";
import { LikeForLikeGroups, type LikeForLikeItem, type UnlikeGroups } from "../stats/like-for-like.js";
import { utilityLikeForLikeWarnings, type UtilityRunItem } from "../stats/utility-like-for-like.js";
import { dosNote } from "./table-notes.js";

/** A table's trajectories by position (`TableInput` of ./table.ts): how many, and each one's index row. */
export interface TableRows {
  n: number;
  row(i: number): Partial<TrajectoryIndexRow>;
}

/** The index rows in position order. */
function* rowsOf(input: TableRows): Generator<Partial<TrajectoryIndexRow>> {
  for (let i = 0; i < input.n; i++) yield input.row(i);
}

/** The attacked rows as the rates' like-for-like items (a row without a model is the model `(none)`, as its table row). */
function* rateItems(input: TableRows): Generator<LikeForLikeItem> {
  for (const r of rowsOf(input)) {
    if (r.attacked) yield { model: r.agent_model ?? "(none)", condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id };
  }
}

/** Every row as the utility columns' items (`utilityLikeForLikeWarnings`). */
function* utilityItems(input: TableRows): Generator<UtilityRunItem> {
  for (const r of rowsOf(input)) {
    yield { model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id, kind: runKind(r), has_utility: typeof r.reference?.utility === "boolean" };
  }
}

/**
 * The table's warnings, in this order: the rates' like-for-like warnings (`likeForLikeWarnings` over the attacked
 * rows), the denial-of-service note (`dosNote`), then the utility columns' (`utilityLikeForLikeWarnings` over every
 * row; a warning the rates gave is not repeated). Without the `WARNING: ` prefix the table's notes give them.
 * @param input the table's trajectories (after `--where`): each row read three times, none held.
 */
export function tableMixWarnings(input: TableRows): string[] {
  return tableMix(input).warnings;
}

/**
 * {@link tableMixWarnings} and the groups the rates' warnings name (`LikeForLikeGroups.unlike`: each row's flag,
 * ./table-like-for-like.ts), from one reading of the rows.
 */
export function tableMix(input: TableRows): { warnings: string[]; unlike: UnlikeGroups } {
  const groups = new LikeForLikeGroups();
  for (const it of rateItems(input)) groups.add(it);
  const rateMix = groups.warnings();
  return { warnings: [...rateMix, ...dosNote(rowsOf(input)), ...utilityLikeForLikeWarnings(utilityItems(input), rateMix)], unlike: groups.unlike() };
}
