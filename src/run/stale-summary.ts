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
 * (`store.ledger`, `store.storedContent`); each pass records the note of those left out, and `changedBack` counts
 * those of them on a trajectory whose index recorded several texts (see {@link changedBackWarning}).
 */
export function withoutStale(store: RunStore, verdicts: Iterable<Verdict>): Iterable<Verdict> & { changedBack: number } {
  const out = {
    changedBack: 0,
    *[Symbol.iterator]() {
      const stale = new StaleVerdicts();
      let back = 0;
      for (const v of verdicts) {
        const now = store.storedContent(v.trajectory_id);
        if (now !== undefined && store.ledger.judgedOther(v.trajectory_id, v.judge_id, v.repeat, now)) {
          stale.add(v.judge_id, v.trajectory_id);
          if (store.ledger.recordedSeveral(v.trajectory_id)) back++;
        } else yield v;
      }
      out.changedBack = back;
      stale.note(store.dir);
    },
  };
  return out;
}

/**
 * What label's summary cannot count (undefined when nothing): the store holds only the latest verdict per trajectory,
 * judge and repeat, so where a trajectory's text changed back (A -> B -> A) and the judge's latest verdict judged B,
 * its older verdict on A, which every later command counts (they read `verdicts.jsonl` and keep the last verdict made
 * on the text now: ../store/stale-verdicts.ts), is not in this summary. Said, with how many may be so.
 */
export function changedBackWarning(n: number): string | undefined {
  if (n === 0) return undefined;
  return (
    `label's summary: ${n} of the verdicts left out as made on an older text ${n === 1 ? "is" : "are"} on trajectories whose text changed more than once; ` +
    "the summary holds only each judge's latest verdict per trajectory and repeat, so an older verdict of that judge on the text now (a text changed back) is not counted here, " +
    "while agree, committee, compare, estimate, report and sample count it (they read verdicts.jsonl and keep the last verdict made on the text now): their figures can differ from this summary's"
  );
}
