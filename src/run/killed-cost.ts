/**
 * Why a run's cost is a lower bound after a killed `label` invocation (break55 #3): a process killed with `kill -9`
 * (a crash, a power cut) had sent the requests of its conversations in flight, which may be billed, and no verdict
 * records them; nothing written before each send can recover them (docs/cost.md "Known limit"). The store carries
 * the count of such invocations from pass to pass (`../store/label-pass.ts` killedBefore), so the run's cost says so
 * at the number, every time, not only in the docs.
 */
import type { LabelState } from "../store/run-snapshot.js";

/**
 * `1 earlier label invocation of this run (started ...) was killed with requests in flight: ...`, or undefined.
 * @param killed the run's `label_state.killed_before`
 */
export function killedCostText(killed: LabelState["killed_before"]): string | undefined {
  if (!killed || killed.count < 1) return undefined;
  const n = killed.count;
  return (
    `${n} earlier label invocation${n === 1 ? "" : "s"} of this run (the last started ${killed.last_started_at}) ended without finishing (killed or crashed): ` +
    `the requests ${n === 1 ? "it" : "they"} had in flight were sent and may be billed, but no verdict records them (at most each judge's concurrency conversations per such invocation, ` +
    `each its current request and the feedback turns already answered, within retries: docs/cost.md "Known limit")`
  );
}
