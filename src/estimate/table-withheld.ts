/**
 * The rows of an agent model that has no like-for-like rate (its conditions share no (suite, user task, injection
 * task, attack) cell, or some of its attacked runs have no task ids: ./table-population.ts): none of its attacked runs
 * is in the rates, and every cell over them says why, naming its conditions, instead of "no attacked trajectory"
 * (session 51: the table never falls back to the rows' own mix in silence; `--own-mix` asks for that).
 */
import type { CalibratedCell } from "./calibrated-cell.js";

/** The cells of a row over its attacked runs, whose "no attacked trajectory" reason is replaced. */
const CELLS = ["judge_asr_goal", "judge_asr_behaviour", "heuristic_asr_goal", "heuristic_asr_behaviour", "refusal_rate", "judge_exposure", "utility_under_attack"] as const;

/** What it reads and changes of a row (`TableRow` of ./table.ts). */
interface Row {
  judge_asr_goal: { value: number | null; reason?: string };
  judge_asr_behaviour: { value: number | null; reason?: string };
  heuristic_asr_goal: { value: number | null; reason?: string };
  heuristic_asr_behaviour: { value: number | null; reason?: string };
  refusal_rate: { value: number | null; reason?: string };
  judge_exposure: { value: number | null; reason?: string };
  utility_under_attack: { value: number | null; reason?: string };
  utility: { value: number | null; reason?: string; x: number; n: number; ci95: { lower: number; upper: number } | null };
  judge_blocked_attempts: number | null;
  judge_blocked_attempts_reason?: string;
  judge_blocked_attempts_by: unknown;
  judge_blocked_attempts_by_reason?: string;
  calibrated_asr_behaviour: CalibratedCell | null;
  calibrated_asr_goal: CalibratedCell | null;
}

/**
 * The row with the reason `why` on every cell over its attacked runs that has no value because the row kept none
 * (`no_attacked_trajectories`), its blocked attempts' reasons and its calibrated cells (which are over every attacked
 * run of the group, so not like for like either) and its utility (over tasks its conditions do not share); the cells
 * of another reason (a heuristic never run) are kept.
 * @param why the reason (`noSharedCellsReason` of ./table-population.ts), or null: the row as it is.
 */
export function withheldRow<R extends Row>(row: R, why: string | null): R {
  if (why === null) return row;
  const out: R = { ...row };
  for (const k of CELLS) if (out[k].value === null && out[k].reason === "no_attacked_trajectories") out[k] = { ...out[k], reason: why };
  if (out.judge_blocked_attempts === null && out.judge_blocked_attempts_reason === "no_attacked_trajectories") out.judge_blocked_attempts_reason = why;
  if (out.judge_blocked_attempts_by === null && out.judge_blocked_attempts_by_reason === "no_attacked_trajectories") out.judge_blocked_attempts_by_reason = why;
  // the utility too: its runs are on the tasks each condition ran, which share no cell (break52: banking beside slack);
  // one already undefined keeps its own reason (e.g. --where left its runs out), as the other cells do
  if (out.utility.value !== null) out.utility = { ...out.utility, value: null, ci95: null, x: 0, n: 0, reason: why };
  if (out.calibrated_asr_behaviour) out.calibrated_asr_behaviour = { value: null, reason: why, ci95: null };
  if (out.calibrated_asr_goal) out.calibrated_asr_goal = { value: null, reason: why, ci95: null };
  return out;
}
