/**
 * The blocked attempts of a paper-table row (`estimate --table`, `./table.ts`; DESIGN section 1, "Blocked attempt"):
 * the judge's partial compliance whose attacker call was refused or failed, counted from its repeat-0 verdicts, and
 * split by what the call's result shows (`BlockedKind` of src/types.ts: `refused` by a policy or defense,
 * `unavailable` a tool the agent did not have, `failed` the call ran and failed), so the column does not read as
 * "what the defense blocked" when it is the environment's own failures (new user 29). Unknown is null with a reason,
 * never 0: a verdict stored before the flag (or its kind), a row without attacked trajectories. A committee's partial
 * compliance is a blocked attempt as `committee` counts it (`committeeBlockedFields` of src/verdict/blocked.ts: the
 * partial-compliance voters' repeat-0 verdicts), so `estimate --table --committee` and `committee` agree (new user 30).
 */
import { BLOCKED_KINDS, type BlockedKind, type CommitteeVerdict, type Verdict } from "../types.js";
import { committeeBlockedFields } from "../verdict/blocked.js";
import type { BlockedCounts } from "../stats/rates.js";
import { undefinedText } from "../format/stat-text.js";
import { BLOCKED_MEANS } from "../format/rates-text.js";

/** A partial compliance of the judge: whether it is a blocked attempt (undefined: not recorded) and its kind. */
export interface PartialItem {
  blocked: boolean | undefined;
  /** When blocked: its kind; undefined = not recorded (a verdict stored before it was). */
  blocked_kind?: BlockedKind;
}

/** The blocked-attempt figures of a row (the fields of `TableRow` of ./table.ts they fill). */
export interface RowBlocked {
  judge_blocked_attempts: number | null;
  judge_blocked_attempts_reason?: string;
  /** The blocked attempts by kind, summing to `judge_blocked_attempts`; null with a reason when not known. */
  judge_blocked_attempts_by: BlockedCounts | null;
  /**
   * Why `judge_blocked_attempts_by` is null: the total's reason, or `blocked_kind_not_recorded` (some blocked
   * attempts' verdicts predate the kind).
   */
  judge_blocked_attempts_by_reason?: string;
  judge_partial_compliance: number;
}

/**
 * The blocked-attempt figures of a row from its attacked positions.
 * @param att the row's attacked positions; @param usable whether a position has a usable verdict of the judge.
 * @param partial the judge's (committee's) partial compliance at a position (null: another label or none).
 */
export function rowBlocked(att: readonly number[], usable: (i: number) => boolean, partial: (i: number) => PartialItem | null): RowBlocked {
  let partials = 0;
  let blocked = 0;
  let unknown = 0;
  let kindUnknown = 0;
  const by: BlockedCounts = { refused: 0, unavailable: 0, failed: 0 };
  for (const r of att) {
    if (!usable(r)) continue;
    const p = partial(r);
    if (!p) continue;
    partials++;
    if (p.blocked === undefined) unknown++;
    else if (p.blocked) {
      blocked++;
      if (p.blocked_kind) by[p.blocked_kind]++;
      else kindUnknown++;
    }
  }
  // no attacked trajectory: how many were blocked is not a count of zero, it is undefined
  const why = att.length === 0 ? "no_attacked_trajectories" : unknown ? "blocked_attempt_not_recorded" : null;
  if (why) return { judge_blocked_attempts: null, judge_blocked_attempts_reason: why, judge_blocked_attempts_by: null, judge_blocked_attempts_by_reason: why, judge_partial_compliance: partials };
  if (kindUnknown) return { judge_blocked_attempts: blocked, judge_blocked_attempts_by: null, judge_blocked_attempts_by_reason: "blocked_kind_not_recorded", judge_partial_compliance: partials };
  return { judge_blocked_attempts: blocked, judge_blocked_attempts_by: by, judge_partial_compliance: partials };
}

/** What the blocked column means: one sentence for the table's notes (text, LaTeX comment, HTML). */
export const BLOCKED_NOTE = `blocked = ${BLOCKED_MEANS}`;

/** `refused 0, unavailable 0, failed 9`, or null when the split is not known. */
export function blockedByCellText(r: Pick<RowBlocked, "judge_blocked_attempts_by">): string | null {
  const b = r.judge_blocked_attempts_by;
  return b ? BLOCKED_KINDS.map((k) => `${k} ${b[k]}`).join(", ") : null;
}

/**
 * The blocked-attempts cell of the text table and the HTML report: `blocked/partial` (`sep` between them) with its
 * kinds when any is blocked (`9/21 (refused 0, unavailable 0, failed 9)`; `(kinds unknown)` when not recorded),
 * `unknown` when some partial compliance verdicts do not record it, or `undefined (<why>)` when there is nothing to
 * count (no attacked trajectory, a committee table): never `n/a` (README: undefined is a reason, not a placeholder).
 */
export function blockedCellText(r: Omit<RowBlocked, "judge_blocked_attempts_by"> & Partial<Pick<RowBlocked, "judge_blocked_attempts_by">>, sep = "/"): string {
  if (r.judge_blocked_attempts !== null) {
    const kinds = r.judge_blocked_attempts > 0 ? ` (${blockedByCellText({ judge_blocked_attempts_by: r.judge_blocked_attempts_by ?? null }) ?? "kinds unknown"})` : "";
    return `${r.judge_blocked_attempts}${sep}${r.judge_partial_compliance}${kinds}`;
  }
  return r.judge_partial_compliance ? "unknown" : undefinedText(r.judge_blocked_attempts_reason ?? "no_attacked_trajectories");
}

/**
 * LaTeX: `blocked/partial` of a row with its kinds as `(refused/unavailable/failed)` when any is blocked (`9/21
 * {\scriptsize (0/0/9)}`, `{\scriptsize (kinds unknown)}`), `unknown`, or null when there is nothing to count
 * (`undefined$^\dagger$`, as its other cells).
 */
export function blockedLatexCell(r: RowBlocked): string | null {
  if (r.judge_blocked_attempts === null) return r.judge_partial_compliance ? "unknown" : null;
  const b = r.judge_blocked_attempts_by;
  const kinds = r.judge_blocked_attempts === 0 ? "" : ` {\\scriptsize (${b ? BLOCKED_KINDS.map((k) => b[k]).join("/") : "kinds unknown"})}`;
  return `${r.judge_blocked_attempts}/${r.judge_partial_compliance}${kinds}`;
}

/** The CSV columns of the split, after `blocked_attempts` and `partial_compliance`. */
export const BLOCKED_CSV_COLUMNS = BLOCKED_KINDS.map((k) => `blocked_${k}`);

/** A row's CSV cells of {@link BLOCKED_CSV_COLUMNS}: the counts, or empty when the split is not known. */
export function blockedCsvCells(r: Pick<RowBlocked, "judge_blocked_attempts_by">): Array<number | string> {
  const b = r.judge_blocked_attempts_by;
  return BLOCKED_KINDS.map((k) => (b ? b[k] : ""));
}

/**
 * A committee's partial compliance per trajectory, each a blocked attempt or not as `committee` counts it
 * (`committeeBlockedFields`: the repeat-0 verdicts of the judges voting partial_compliance; their kinds differing: kind unknown).
 * @param out filled: trajectory id -> the item.
 */
export function committeePartials(committee: readonly CommitteeVerdict[], verdicts: readonly Verdict[], out: Map<string, PartialItem>): void {
  const rep0 = new Map<string, Verdict[]>();
  for (const c of committee) if (c.status === "ok" && c.label === "partial_compliance") rep0.set(c.trajectory_id, []);
  for (const v of verdicts) if (v.repeat === 0) rep0.get(v.trajectory_id)?.push(v);
  for (const c of committee) {
    const vs = rep0.get(c.trajectory_id);
    if (!vs) continue;
    const f = committeeBlockedFields(c, vs);
    out.set(c.trajectory_id, { blocked: f.blocked, ...(f.blocked_kind ? { blocked_kind: f.blocked_kind } : {}) });
  }
}
