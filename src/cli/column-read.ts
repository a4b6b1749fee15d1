/**
 * Read a run as columns for a command (`../store/columns.ts`), with the read progress of `./read-progress.ts` and
 * the heap-size collection rule `label` uses (`./heap-gc.ts`): streaming gigabytes of journal lines promotes some
 * of their garbage to the old generation, which V8 lets pile up to several times the live set before collecting
 * it (the peak RSS of a million-trajectory read); a full collection once the heap has grown by
 * max(64 MB, half the live heap) since the last keeps it near the live set. Checked at each progress report
 * (every 4,096 lines); `--expose-gc` is switched on here, and without it (a runtime that refuses) nothing is forced.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { readColumnRun, type ColumnRun } from "../store/columns.js";
import { heapGcTrigger } from "./heap-gc.js";
import { withReadProgress } from "./util.js";

/** A full collection, or undefined where the runtime refuses `--expose-gc` (as `label`'s). */
function fullGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `readColumnRun(runDir, { rowFields })` with progress on a terminal (`show` and stderr a TTY) and the heap rule.
 * @param rowFields the index fields the command reads.
 */
export async function readColumns(runDir: string, rowFields: readonly string[], show: boolean): Promise<ColumnRun> {
  const gc = fullGc();
  const trigger = gc ? heapGcTrigger(gc) : undefined;
  return withReadProgress(show, (progress) =>
    readColumnRun(runDir, {
      rowFields,
      progress: (done, total, file) => {
        progress?.(done, total, file);
        trigger?.check();
      },
    }),
  );
}
