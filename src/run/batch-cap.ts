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
 * The conversations of chunks an earlier invocation left unprocessed (sent, or written and not sent) are committed:
 * before anything new is queued or sent, they reserve their worst case at the price the batch bills
 * (`./batch-worst-case.ts`, read from their state files), said on the cap (`batch_in_flight`), and their reservation
 * gives way to their cost as their results are stored, as a new conversation's does. Before, they reserved nothing
 * and a resume could queue the whole cap beside them.
 */
import type { Judge } from "../judges/judge.js";
import type { Trajectory, Verdict } from "../types.js";
import type { LabelRunState } from "./label-core.js";
import { holdBack, overCap, reservationPricedAt, reserveCostUsd } from "./cost-cap.js";
import { storedUsageImplausible } from "../store/stored-usage.js";
import { batchEntries } from "./config-change.js";
import { inFlightWorstCase, sumInFlight, type InFlightWorstCase } from "./batch-worst-case.js";

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
  const at = reservationPricedAt(judge, true);
  (cap.priced_at ??= {})[at] = (cap.priced_at[at] ?? 0) + 1;
  addReserved(rs, judge.id, r, 1);
  return true;
}

/** Add `usd` reserved for `n` conversations of batch judge `judgeId` (released one by one by {@link settleBatchVerdict}). */
function addReserved(rs: LabelRunState, judgeId: string, usd: number, n: number): void {
  rs.reserved += usd;
  let m = reserved.get(rs);
  if (!m) reserved.set(rs, (m = new Map()));
  const e = m.get(judgeId) ?? { usd: 0, n: 0 };
  m.set(judgeId, { usd: e.usd + usd, n: e.n + n });
}

/**
 * A verdict the batch path stored: its cost replaces one reservation of its judge (the judge's mean, the verdicts of
 * a batch coming back in another order than they were queued); an unknown cost keeps the reservation counted.
 */
export function settleBatchVerdict(rs: LabelRunState, judgeId: string, v: Verdict): void {
  const cap = rs.costCap;
  if (!cap) return;
  // a verdict of a chunk sent earlier gives way to a reservation too (`reserveBatchInFlight`); one of a chunk whose
  // state file could not be read had none: its cost is added as it is, an unknown one counted
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
 * Reserve, under the run's cost cap, the worst case of every batch judge's conversations in chunks an earlier
 * invocation left unprocessed (module docstring), before the items are read; said on the cap (`batch_in_flight`).
 * Nothing without a cap. @param judges the judges going through the Batch API in this invocation.
 */
export async function reserveBatchInFlight(rs: LabelRunState, judges: readonly Judge[]): Promise<void> {
  const cap = rs.costCap;
  if (!cap) return;
  const entries = batchEntries(rs.store.snapshot.extra);
  const per: InFlightWorstCase[] = [];
  for (const j of judges) {
    const w = await inFlightWorstCase(rs.store.dir, entries, j, rs.judgeCtx);
    if (!w) continue;
    per.push(w);
    // the conversations of an unreadable chunk reserve nothing: their verdicts add their cost as they come
    addReserved(rs, j.id, w.usd, w.conversations - w.not_reserved);
  }
  const s = sumInFlight(per);
  if (s) cap.batch_in_flight = s;
}
