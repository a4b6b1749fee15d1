/**
 * The verdicts of `label`'s summary without those made on an older text of their trajectory than its index row's
 * now (a judge this invocation did not run: ../store/stale-verdicts.ts). Every later command leaves them out of its
 * figures; the summary does too, and says so once with the other run-level notes.
 */
import type { Verdict } from "../types.js";
import type { RunStore } from "../store/run-store.js";
import { StaleVerdicts } from "../store/stale-verdicts.js";

/**
 * The `verdicts` (re-iterable, filtered as read) whose latest stored record judged the trajectory's content now
 * (`store.ledger`, `store.storedContent`); each pass records the note of those left out.
 */
export function withoutStale(store: RunStore, verdicts: Iterable<Verdict>): Iterable<Verdict> {
  return {
    *[Symbol.iterator]() {
      const stale = new StaleVerdicts();
      for (const v of verdicts) {
        const now = store.storedContent(v.trajectory_id);
        if (now !== undefined && store.ledger.judgedOther(v.trajectory_id, v.judge_id, v.repeat, now)) stale.add(v.judge_id, v.trajectory_id);
        else yield v;
      }
      stale.note(store.dir);
    },
  };
}
