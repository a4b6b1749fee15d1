/**
 * What a planner (`label --dry-run`, the pre-send re-judge count) cannot tell cheaply while it reads (rev2a55 #1): a
 * trajectory whose content is stored under another id (a chat-JSONL row moved to another line by a row deleted or
 * inserted above it, a renamed folder) may be carried over by `label` from that id (`./moved-content.ts`: no request)
 * instead of judged. Whether it is depends on that id's file and line as the whole read finds them, so the planners
 * count such repeats apart and say their request, re-judge and cost figures are upper bounds ("up to").
 */
import type { Judge } from "../judges/judge.js";
import type { VerdictLedger } from "../store/ledger.js";
import { planRepeats, type RepeatPlan } from "./resume.js";

/**
 * How many of `plans` (the repeats of one trajectory, content `sha`, one judge, to send) another stored id holding
 * that content covers (its verdicts of this judge and repeat on this content would be reused: `planRepeats` leaves
 * the repeat out for it): those label may carry over instead of sending.
 * @param others stored ids whose recorded content hash is `sha`, other than the trajectory's own id.
 * @returns a count of repeats, 0..plans.length.
 */
export function mayCarry(
  others: readonly string[],
  sha: string,
  judge: Pick<Judge, "id" | "promptSha256">,
  repeats: number,
  ledger: VerdictLedger,
  planOpts: Parameters<typeof planRepeats>[5],
  plans: readonly RepeatPlan[],
): number {
  if (others.length === 0 || plans.length === 0) return 0;
  const covered = new Set<number>();
  for (const id of others) {
    const left = new Set(planRepeats({ id }, sha, judge, repeats, ledger, planOpts).map((p) => p.repeat));
    for (const p of plans) if (!left.has(p.repeat)) covered.add(p.repeat);
  }
  return covered.size;
}
