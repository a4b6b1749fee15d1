/**
 * The run's `store_corrupt_lines` error: the unreadable lines the store skipped when this invocation opened the run's
 * journals, named by file and line. `errors.jsonl` is append-only, so a record written by an earlier open stays on
 * disk after the journals were repaired (a partial last line left by a full disk is cut off when the store opens the
 * journal again; a hand-repaired line reads again): every later summary counted it as a live error though the line
 * no longer existed. A `store_corrupt_lines` record stands only while it says what this open found; one that does
 * not (none found now, or other lines) is superseded (`./superseded-errors.ts`), its old line kept. An unreadable line
 * still in the file is found again by every open: the same record, counted every time.
 */
import path from "node:path";
import type { IngestError } from "../types.js";
import { skippedLines } from "../store/skipped-lines.js";

/**
 * What a summary says of this open's `store_corrupt_lines` record, apart from the input errors (hostile 51, finding 3:
 * "errors: 1 (store_corrupt_lines 1)" read as an input error): what the lines are and what was done.
 */
export const STORE_LINES_TEXT =
  "run store: unreadable lines in the run's own journals (a torn line from an interrupted write: a kill or a full disk) were dropped, and the verdicts they held judged again; not an input error (errors.jsonl kind store_corrupt_lines names the lines)";

/** The errors.jsonl kind of the run's unreadable journal lines. */
export const STORE_CORRUPT_LINES = "store_corrupt_lines";

/** How many line numbers of one file the record names before "...". */
const SHOWN = 5;

/** What the store found at open ({@link RunStore.resumed}). */
export interface OpenedStore {
  dir: string;
  resumed: { bad_lines: number; bad_by_file?: Record<string, number[]> };
}

/**
 * The `store_corrupt_lines` error of this open, or undefined when the journals read without an unreadable line.
 * Its message names each journal's skipped lines (and a partial last line cut off before appending), so the same
 * lines give the same record on every open (recorded once) and other lines another.
 */
export function corruptLinesError(store: OpenedStore): IngestError | undefined {
  const n = store.resumed.bad_lines;
  if (n <= 0) return undefined;
  const torn = new Map(skippedLines().map((s) => [s.file, s.torn]));
  const parts: string[] = [];
  for (const [name, lines] of Object.entries(store.resumed.bad_by_file ?? {})) {
    if (lines.length === 0) continue;
    const shown = lines.slice(0, SHOWN).join(", ") + (lines.length > SHOWN ? `, ... (${lines.length} in all)` : "");
    const t = torn.get(path.resolve(store.dir, name));
    const cut = t?.cut && t.line === lines[lines.length - 1] ? `; line ${t.line} a partial last line, cut off before appending` : "";
    parts.push(`${name} line${lines.length === 1 ? "" : "s"} ${shown}${cut}`);
  }
  return {
    path: store.dir,
    kind: "store_corrupt_lines",
    message: `${n} unreadable line(s) in the run's journals were skipped${parts.length ? ` (${parts.join("; ")})` : ""}; what they held is judged again if missing`,
  };
}

/**
 * Whether a stored error is a `store_corrupt_lines` record of this run that no longer describes its journals: this
 * open found none or other lines ({@link corruptLinesError}'s message differs). Records of another folder stand.
 */
export function corruptLinesRepaired(e: IngestError, store: OpenedStore): boolean {
  if (e.kind !== "store_corrupt_lines" || path.resolve(e.path) !== path.resolve(store.dir)) return false;
  return corruptLinesError(store)?.message !== e.message;
}
