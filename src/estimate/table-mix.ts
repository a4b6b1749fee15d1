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

/**
 * A table's trajectories by position (`TableInput` of ./table.ts): how many, and each one's index row; on a column run
 * also each row's record code (`code(i)` in `0 .. nCodes-1`: rows with one code share one record, read only).
 */
export interface TableRows {
  n: number;
  row(i: number): Partial<TrajectoryIndexRow>;
  code?(i: number): number;
  nCodes?: number;
}

/**
 * The distinct records of the rows, in the order of their first row, each with its number of rows; without codes
 * every row is its own record. The like-for-like folds read a record once with its weight: not an item, a cell-key
 * string per rater group, per row (at 1M their garbage reached the old generation in report's paper table, issue 26).
 */
function distinctRows(input: TableRows): TableRows & { weight(k: number): number } {
  if (!input.code || input.nCodes === undefined) return { n: input.n, row: (i) => input.row(i), weight: () => 1 };
  const at = new Int32Array(input.nCodes).fill(-1);
  const weight = new Uint32Array(input.nCodes);
  const rows: Array<Partial<TrajectoryIndexRow>> = [];
  for (let i = 0; i < input.n; i++) {
    const c = input.code(i);
    if (at[c] < 0) {
      at[c] = rows.length;
      rows.push(input.row(i));
    }
    weight[at[c]]++;
  }
  return { n: rows.length, row: (k) => rows[k], weight: (k) => weight[k] };
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

/** Every row as the utility columns' items (`utilityLikeForLikeWarnings`), each with the number of rows it stands for. */
function* utilityItems(input: TableRows & { weight(k: number): number }): Generator<UtilityRunItem> {
  for (let k = 0; k < input.n; k++) {
    const r = input.row(k);
    yield { model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id, kind: runKind(r), has_utility: typeof r.reference?.utility === "boolean", weight: input.weight(k) };
  }
}

/**
 * The table's warnings, in this order: the rates' like-for-like warnings (`likeForLikeWarnings` over the attacked
 * rows), the denial-of-service note (`dosNote`), then the utility columns' (`utilityLikeForLikeWarnings` over every
 * row; a warning the rates gave is not repeated). Without the `WARNING: ` prefix the table's notes give them.
 * @param input the table's trajectories (after `--where`): with record codes each row's code read once, each distinct
 *   record (held, one each) once per fold, and each row once more for the denial-of-service count; without codes each
 *   row read three times, none held.
 */
export function tableMixWarnings(input: TableRows): string[] {
  return tableMix(input).warnings;
}

/**
 * {@link tableMixWarnings} and the groups the rates' warnings name (`LikeForLikeGroups.unlike`: each row's flag,
 * ./table-like-for-like.ts), from one reading of the rows.
 */
export function tableMix(input: TableRows): { warnings: string[]; unlike: UnlikeGroups } {
  // one record read once: adding an item twice changes no group (sets), and the utility counts take its weight
  const distinct = distinctRows(input);
  const groups = new LikeForLikeGroups();
  for (const it of rateItems(distinct)) groups.add(it);
  const rateMix = groups.warnings();
  return { warnings: [...rateMix, ...dosNote(rowsOf(input)), ...utilityLikeForLikeWarnings(utilityItems(distinct), rateMix)], unlike: groups.unlike() };
}
