/**
 * Each row of `estimate --table` flagged when it is not like for like (new user 45, finding 4): the text and LaTeX
 * give the table's like-for-like warnings (./table-mix.ts) as notes, but the CSV, the file fed to plots, had nothing
 * saying that Llama-3.3-70B's no_defense row (949 runs, 4 suites) and its repeat_user_prompt row (797 runs, 3 suites)
 * are over different cells. A row is flagged when a warning of `likeForLikeWarnings` (../stats/like-for-like.ts)
 * names its model's conditions, the models under its condition, or its model name among names that differ only in
 * spelling; the note says which, in the warning's words, the warning itself (with what to run instead) stays in the
 * notes.
 */
import { NO_VALUE } from "../stats/no-value.js";
import { quoted } from "../format/quote-name.js";
import type { UnlikeGroups } from "../stats/like-for-like.js";

/** A row's like-for-like flag: `like_for_like` false with `like_for_like_note` when a rate warning names it. */
export interface RowLikeForLike {
  like_for_like: boolean;
  /** Why not, `; `-joined (absent when like for like). */
  like_for_like_note?: string;
}

/** The CSV columns of {@link RowLikeForLike}, on every row (the note empty when like for like). */
export const LIKE_FOR_LIKE_CSV_COLUMNS = ["like_for_like", "like_for_like_note"] as const;

/**
 * The flag of the row (`model`, `condition`) of a table (module docstring).
 * @param condition the row's condition; null (a run without conditions) is read as the warnings' `(none)`.
 * @param unlike the groups the table's rate warnings name (`LikeForLikeGroups.unlike`).
 */
export function rowLikeForLike(model: string, condition: string | null, unlike: UnlikeGroups): RowLikeForLike {
  const cond = condition ?? NO_VALUE;
  const why: string[] = [];
  const m = unlike.models.get(model);
  if (m) why.push(`${quoted(model)}'s conditions ran ${m}: its per-condition rates are not like for like`);
  const c = unlike.conditions.get(cond);
  if (c) why.push(`the agent models${condition === null ? "" : ` under ${quoted(condition)}`} ran ${c}: per-model rates are not like for like`);
  if (unlike.spellings.has(model)) why.push("another row's model name differs from this one only in spelling (kept apart; they may be one model)");
  return why.length ? { like_for_like: false, like_for_like_note: `${why.join("; ")} (see the table's WARNING notes)` } : { like_for_like: true };
}

/** The CSV cells of {@link LIKE_FOR_LIKE_CSV_COLUMNS} for a row (a row made before the flag reads as like for like: empty). */
export function likeForLikeCsvCells(r: Partial<RowLikeForLike>): string[] {
  return r.like_for_like === undefined ? ["", ""] : [String(r.like_for_like), r.like_for_like_note ?? ""];
}
