/**
 * The `input_removed` statement of a `label` invocation that moved trajectories (`./moved-content.ts`): the old ids of
 * a moved trajectory are left out of the figures as `input_removed` (their content is counted under the new ids), and
 * the summary said both `moved 53 trajectories: verdicts carried over` and `WARNING: input_removed: 53 trajectories
 * whose input is gone ... left out of the figures` for the same runs (hostile52 F5): read as 53 lost runs. The
 * statement now says how many of them moved; when all did, it is a note (nothing was lost), not a WARNING.
 */
import type { RunSummary } from "./summary.js";

/**
 * Rewrite `removed.message` (in place) after this invocation's moves: `moved` set to how many of the removed ids are old
 * ids of trajectories moved now (their file gone), the message saying it.
 * @param removed the summary's `inputs_removed` (undefined: nothing to say); @param removedIds every id the run leaves out
 *   now (`inputs-removed.json`); @param moves this invocation's moves (`MovedContent.moves`).
 */
export function sayMovedRemoved(
  removed: RunSummary["inputs_removed"],
  removedIds: ReadonlySet<string> | undefined,
  moves: ReadonlyArray<{ from: string; swapped: boolean }>,
): void {
  if (!removed || !removedIds || !moves.length) return;
  const from = new Set(moves.filter((m) => !m.swapped).map((m) => m.from));
  let moved = 0;
  for (const id of removedIds) if (from.has(id)) moved++;
  if (moved === 0) return;
  const n = removed.count;
  // the record's statement (../store/removed-ids.ts) already says the moved ones when it knows them (runs53)
  const said = removed.moved !== undefined;
  removed.moved = Math.max(removed.moved ?? 0, moved);
  if (moved >= n)
    removed.message = `input_removed: the ${n} old id${n === 1 ? "" : "s"} of the trajector${n === 1 ? "y" : "ies"} this label run moved (its warning "moved ${moves.length} trajector${moves.length === 1 ? "y" : "ies"}") ${n === 1 ? "is" : "are"} left out of the figures; their content is counted under the new ids with the verdicts carried over: no trajectory was lost`;
  else if (!said)
    removed.message = `${removed.message}; ${moved} of them are old ids of trajectories this label run moved (its warning "moved ${moves.length} trajector${moves.length === 1 ? "y" : "ies"}": their content is counted under the new ids), ${n - moved} have no new id`;
}

/**
 * Say this invocation's moves in its summary: the moves' statement first among the warnings (`MovedContent.statement`),
 * and the `input_removed` statement rewritten by {@link sayMovedRemoved}; `filesMoved`, the statement of stored rows
 * read again from a moved folder under the same ids (`../store/source-moved.ts`), before it.
 */
export function sayMoves(
  summary: Pick<RunSummary, "warnings" | "inputs_removed">,
  statement: string | undefined,
  removedIds: ReadonlySet<string> | undefined,
  moves: ReadonlyArray<{ from: string; swapped: boolean }>,
  filesMoved?: string,
  displaced: readonly string[] = [],
): void {
  if (statement !== undefined) summary.warnings.unshift(statement);
  if (filesMoved !== undefined) summary.warnings.unshift(filesMoved);
  sayMovedRemoved(summary.inputs_removed, removedIds, moves);
  sayShiftedRemoved(summary.inputs_removed, removedIds, moves, displaced);
}

/** Ids named in the shifted-rows statement before "and N more". */
const SHOWN = 3;

/**
 * Rewrite `removed.message` (in place) when removed ids are old ids whose content a swapped move carried to another id
 * of a file still there: a chat-JSONL row deleted moves every later row up a line (ids `<file>:<line>`), so the id
 * left out is the last line's, whose content is counted under the line above, and the row no longer in the input is
 * the one whose line took another row's content with no move carrying its own on (`displaced`, `./moved-content.ts`).
 * runs55 #3: the statement named `chat.jsonl:40` (still counted, as `chat.jsonl:39`) and not the deleted row 10.
 * The breakdown by model is left out then: it is of the old ids' rows, not of the rows gone.
 */
export function sayShiftedRemoved(
  removed: RunSummary["inputs_removed"],
  removedIds: ReadonlySet<string> | undefined,
  moves: ReadonlyArray<{ from: string; swapped: boolean }>,
  displaced: readonly string[],
): void {
  if (!removed || !removedIds) return;
  const shiftedFrom = new Set(moves.filter((m) => m.swapped).map((m) => m.from));
  const shifted = [...removedIds].filter((id) => shiftedFrom.has(id));
  if (shifted.length === 0) return;
  const carriedFrom = new Set(moves.map((m) => m.from));
  const lost = displaced.filter((id) => !carriedFrom.has(id));
  const ids = (xs: readonly string[]) => xs.slice(0, SHOWN).map((x) => JSON.stringify(x)).join(", ") + (xs.length > SHOWN ? ` and ${xs.length - SHOWN} more` : "");
  const k = shifted.length;
  const shiftedText =
    `${k} of them (${ids(shifted)}) ${k === 1 ? "is the old id of a row that" : "are old ids of rows that"} moved up in ${k === 1 ? "its" : "their"} file (a row deleted above: their content is counted under ` +
    `the new line ids, the verdicts carried over)`;
  // more ids lost their labelled content than the file lost rows (rev2a55 #2: row 10 deleted and row 30 edited named
  // both as gone): the rest were edited (their new content judged again), and which ones cannot be told from the content
  const lostText = lost.length > k
    ? `the ${k} row${k === 1 ? "" : "s"} no longer in the input ${k === 1 ? "is one" : "are among those"} of the ${lost.length} labelled as ${ids(lost)}: ${lost.length} ids lost their labelled content and the file holds ${k} row${k === 1 ? "" : "s"} fewer, ` +
      `so ${lost.length - k} of them ${lost.length - k === 1 ? "was" : "were"} edited, not deleted (${lost.length - k === 1 ? "its" : "their"} new content judged again: the "changed since they were labelled (judged again)" count); which ${k === 1 ? "one was" : "ones were"} deleted cannot be told from the content; the verdicts of the content gone stay in verdicts.jsonl, superseded`
    : lost.length
    ? `the row${lost.length === 1 ? "" : "s"} no longer in the input ${lost.length === 1 ? "is the one" : "are those"} labelled as ${ids(lost)} (${lost.length === 1 ? "that id now holds" : "those ids now hold"} a later row's content; the verdicts of the row gone stay in verdicts.jsonl, superseded)`
    : `which row left the input cannot be told from the moves`;
  const n = removed.count;
  removed.message =
    k >= n
      ? `input_removed: ${n} trajector${n === 1 ? "y" : "ies"} no longer in the input ${n === 1 ? "is" : "are"} left out of the figures: ${shiftedText}; ${lostText}; every figure is over the input files that exist now`
      : `${removed.message}; ${shiftedText}; ${lostText}`;
}
