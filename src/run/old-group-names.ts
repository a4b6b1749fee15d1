/**
 * A resumed run's trajectories stored before ingest normalized group names (`../ingest/group-names.ts`: zero-width,
 * bidi controls and NUL removed from model, suite, condition and attack names). Their index rows keep the names as
 * stored: a file taken as unchanged is not read again, and a row is not rewritten for its names, so such a run's
 * figures group `M\u200b` apart from `M` while a new run groups them together. Said once per resume, with a count and
 * examples; nothing is rewritten.
 */
import { showInvisibleExactly, stripInvisible } from "../format/invisible.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { RunStore } from "../store/run-store.js";
import type { LabelOptions } from "./label-options.js";

/** The group names of an index row checked (the ones the in-memory rows keep: `slimIndexRow`). */
const FIELDS = ["agent_model", "suite", "condition", "attack"] as const;

/**
 * The warning for the stored rows whose group names ingest would now read otherwise, or undefined when none.
 * @param rows the run's index rows as stored (slim rows suffice); @param run the run's name.
 */
export function oldGroupNamesWarning(rows: Iterable<TrajectoryIndexRow>, run: string): string | undefined {
  let count = 0;
  const examples = new Map<string, string>();
  let more = false; // a spelling past the examples
  for (const r of rows) {
    let old = false;
    for (const f of FIELDS) {
      const v = r[f];
      if (typeof v !== "string" || stripInvisible(v) === v) continue;
      old = true;
      const k = `${f}\u0000${v}`;
      if (examples.size >= 3 && !examples.has(k)) more = true;
      else examples.set(k, `${f} ${JSON.stringify(showInvisibleExactly(v))} (now read as ${JSON.stringify(stripInvisible(v))})`);
    }
    if (old) count++;
  }
  if (count === 0) return undefined;
  return (
    `name_normalized: ${count} trajector${count === 1 ? "y" : "ies"} of run "${run}" ${count === 1 ? "was" : "were"} stored before group names lost their invisible ` +
    `and control characters at ingest, and keep${count === 1 ? "s" : ""} the names as stored: ${[...examples.values()].join(", ")}${more ? ", ..." : ""}; ` +
    `in this run's figures ${count === 1 ? "it groups" : "they group"} apart from the same names written without them (a new run reads them normalized); the stored rows are not rewritten`
  );
}

/** Say {@link oldGroupNamesWarning} of a resumed run's stored rows through `opts.onWarning` (nothing for a new run). */
export function warnOldGroupNames(store: RunStore, opts: LabelOptions): void {
  if (store.resumed.trajectories === 0) return;
  const w = oldGroupNamesWarning(store.heldRows(), opts.run);
  if (w) opts.onWarning?.(w);
}
