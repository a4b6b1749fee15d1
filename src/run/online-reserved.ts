/**
 * The cost cap's online reservations in flight (`./online.ts`), and a wait for their release.
 *
 * A conversation whose worst case does not fit beside the reservations in flight waits for them to settle at their
 * real cost (about a third of the reservation for a verdict without feedback turns) when it would fit beside what
 * is spent without them; it is held back (and the cap reached) only when it does not fit even then. Before, it was
 * held back at once: at `--max-cost 0.05` with 4 in flight and $0.0187 reservations, `label` stopped after 2
 * verdicts and $0.0038 spent, one rerun per two verdicts (new user 43). Reservations of Batch API chunks are not
 * counted here: they settle only when their batch comes back, maybe in another invocation, so nothing waits for them.
 */
import type { LabelRunState } from "./label-core.js";
import { overCap, type CostCapState } from "./cost-cap.js";

interface OnlineReserved {
  /** Online conversations holding a reservation. */
  n: number;
  /** Their reservations (USD). */
  usd: number;
  /** Resolvers of the conversations waiting for a release. */
  waiters: Array<() => void>;
}

const byRun = new WeakMap<LabelRunState, OnlineReserved>();

function stateOf(run: LabelRunState): OnlineReserved {
  let s = byRun.get(run);
  if (!s) byRun.set(run, (s = { n: 0, usd: 0, waiters: [] }));
  return s;
}

/** Reserve `usd` (USD, >= 0) for one online conversation: added to `run.reserved` and to the online reservations. */
export function reserveOnline(run: LabelRunState, usd: number): void {
  const s = stateOf(run);
  s.n++;
  s.usd += usd;
  run.reserved += usd;
}

/** Release one online conversation's reservation `usd` (as {@link reserveOnline} made it) and wake every waiter. */
export function releaseOnline(run: LabelRunState, usd: number): void {
  const s = stateOf(run);
  s.n--;
  const before = s.usd;
  s.usd = s.n === 0 ? 0 : s.usd - usd; // none in flight: exactly 0, not a float residue
  run.reserved -= before - s.usd;
  if (Math.abs(run.reserved) < 1e-12) run.reserved = 0; // the same residue, where no batch chunk holds a reservation
  const w = s.waiters;
  s.waiters = [];
  for (const f of w) f();
}

/**
 * What the cap says of a conversation reserving `usd`: `fits` (reserve it now), `wait` (it fits beside what is spent
 * and the reservations that will not settle in this invocation, once the online conversations in flight settle:
 * await {@link onlineReleased} and ask again), `hold` (it does not fit even then: hold it back).
 */
export function capDecision(run: LabelRunState, cap: CostCapState, usd: number): "fits" | "wait" | "hold" {
  if (!overCap(cap.spent_usd + run.reserved + usd, cap)) return "fits";
  const s = stateOf(run);
  if (s.n > 0 && !overCap(cap.spent_usd + (run.reserved - s.usd) + usd, cap)) return "wait";
  return "hold";
}

/** Resolves at the next release of an online reservation ({@link releaseOnline}). */
export function onlineReleased(run: LabelRunState): Promise<void> {
  return new Promise((resolve) => stateOf(run).waiters.push(resolve));
}
