/**
 * The row records of a column run's row slots (`../store/columns.ts`), in slot order, iterated without an object per
 * row: the iterator hands back one result object, updated at each step (what `for...of`, spread and `Array.from`
 * read at once and never keep). A generator makes a new `{ value, done }` per row: a million per pass at 1M, whose
 * garbage reached the old generation in `report`'s peak steps (issue 26 point 3).
 */
import type { ColumnRun } from "./columns.js";
import type { TrajectoryIndexRow } from "./records.js";

/**
 * The shared row record of each row slot `0 .. nRows-1` of `run` (read only: a record stands for every row that has
 * it). Each iteration starts again from the first slot.
 */
export function rowRecords(run: Pick<ColumnRun, "nRows" | "rowCode" | "rows">): Iterable<TrajectoryIndexRow> {
  return {
    [Symbol.iterator](): Iterator<TrajectoryIndexRow> {
      let s = 0;
      const step: { done: boolean; value: TrajectoryIndexRow | undefined } = { done: false, value: undefined };
      return {
        next(): IteratorResult<TrajectoryIndexRow> {
          if (s < run.nRows) step.value = run.rows[run.rowCode[s++]] as TrajectoryIndexRow;
          else {
            step.done = true;
            step.value = undefined;
          }
          return step as IteratorResult<TrajectoryIndexRow>;
        },
      };
    },
  };
}
