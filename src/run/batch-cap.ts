/**
 * The cost cap (`--max-cost`, `./cost-cap.ts`) on the Batch API path: each conversation queued for a batch reserves
 * the worst case of its whole conversation at the price the batch bills (the judge's batch price; without one, its
 * online price, an upper bound), when it is queued, before anything is sent; one that would pass the cap is held back
 * (un-judged: a higher cap resumes it). When the batch path stores a verdict, its reservation gives way to its cost
 * (or stays counted when the cost is unknown), as online.
 *
 * Every conversation queued stays reserved at its worst case until its batch comes back (nothing is settled while the
 * invocation queues), so the cap can hold items back with far less spent than the cap: the cap says so
 * (`held`, `sameCapResumes`), and the same command with the same cap judges more (verifier 37: 2 conversations per
 * invocation at --max-cost 0.05, $0.0041 spent, told to raise the cap).
 *
 * Known limit: the conversations of chunks an earlier invocation sent are committed, but their trajectories are not
 * read again (the resume passes them over), so they reserve nothing: their count is said on the cap
 * (`batch_in_flight_uncounted`) and their cost is added to `spent_usd` as their results are stored.
 */
import type { Judge } from "../judges/judge.js";
import type { Trajectory, Verdict } from "../types.js";
import type { LabelRunState } from "./label-core.js";
import { holdBack, overCap, reservationPricedAt, reserveCostUsd } from "./cost-cap.js";
import { storedUsageImplausible } from "../store/stored-usage.js";

/** Per run, per batch judge: the USD reserved for its conversations and how many. */
const reserved = new WeakMap<LabelRunState, Map<string, { usd: number; n: number }>>();

/**
 * Reserve one conversation of a batch judge under the run's cost cap (module docstring), before it is queued.
 * @returns false when it is held back by the cap (not to be queued); true otherwise (and always without a cap).
 */
export function reserveForBatch(rs: LabelRunState, t: Trajectory, judge: Judge): boolean {
  const cap = rs.costCap;
  if (!cap) return true;
  if (cap.reached) return false;
  const r = reserveCostUsd(t, judge, { budgetChars: rs.judgeCtx.budgetChars, minQuoteChars: rs.judgeCtx.minQuoteChars }, true);
  if (overCap(cap.spent_usd + rs.reserved + r, cap)) {
    holdBack(cap, r, rs.reserved);
    return false;
  }
  rs.reserved += r;
  const at = reservationPricedAt(judge, true);
  (cap.priced_at ??= {})[at] = (cap.priced_at[at] ?? 0) + 1;
  let m = reserved.get(rs);
  if (!m) reserved.set(rs, (m = new Map()));
  const e = m.get(judge.id) ?? { usd: 0, n: 0 };
  m.set(judge.id, { usd: e.usd + r, n: e.n + 1 });
  return true;
}

/**
 * A verdict the batch path stored: its cost replaces one reservation of its judge (the judge's mean, the verdicts of
 * a batch coming back in another order than they were queued); an unknown cost keeps the reservation counted.
 */
export function settleBatchVerdict(rs: LabelRunState, judgeId: string, v: Verdict): void {
  const cap = rs.costCap;
  if (!cap) return;
  // a verdict of a chunk sent earlier had no reservation here: its cost is added as it is, unknown counted
  const e = reserved.get(rs)?.get(judgeId);
  const r = e && e.n > 0 ? e.usd / e.n : 0;
  if (e && e.n > 0) {
    e.usd -= r;
    e.n--;
    rs.reserved -= r;
  }
  if (typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) && storedUsageImplausible(v) === undefined) cap.spent_usd += v.cost_usd;
  else {
    cap.spent_usd += r;
    cap.unknown_cost_verdicts++;
  }
}

/**
 * Say on the cap how many conversations of chunks sent by earlier invocations are in flight (module docstring, known
 * limit). @param inFlight per batch judge, its conversations in chunks not yet processed.
 */
export function noteBatchInFlight(rs: LabelRunState, inFlight: number): void {
  if (rs.costCap && inFlight > 0) rs.costCap.batch_in_flight_uncounted = inFlight;
}
