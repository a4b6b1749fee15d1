/**
 * The end of a `label` invocation's `input_removed` check (`./removed-inputs.ts`): what it found goes to the run's
 * `inputs-removed.json` (`../store/removed-ids.ts`, which every reader of the run leaves out), and the label summary
 * is built over the run without those trajectories, saying so (`summary.inputs_removed`).
 */
import fs from "node:fs";
import path from "node:path";
import { leftOutText, movedPart, removedRecord, writeRemovedIds, type RemovedRecord } from "../store/removed-ids.js";
import type { RunStore } from "../store/run-store.js";
import { readTrajectoryIndex, type TrajectoryIndexRow } from "../store/records.js";
import { matchesWhere, type WhereFilter } from "../store/where.js";
import type { RunSummary } from "./summary.js";
import type { IngestError, Verdict } from "../types.js";
import type { RemovedInputs } from "./removed-inputs.js";

/**
 * Record the run's removed trajectories after the read.
 * @param complete whether the read ran to the end: its finding is added to the earlier record less the ids it met;
 *   a read cut short keeps the earlier record less the ids it met (a restored input read again counts again). An id
 *   leaves the record only when a read meets it again, never because a read did not cover its old path.
 * @param inputs this invocation's input paths (as given): a source recorded as a relative path is only judged gone
 *   under them (`RemovedInputs.find`); `onWarning` is told of the ones that cannot be checked ({@link uncheckedText}).
 * @param where the invocation's `--where`: only stored trajectories it keeps can be found removed now.
 * @returns what `store.json` records (`RunStore.finish`): the count and a few ids; null for none; undefined when
 *   nothing was recorded before and the read cannot tell.
 * @throws the file system's error when `inputs-removed.json` cannot be written.
 */
export async function recordRemoved(
  store: RunStore,
  removed: RemovedInputs,
  complete: boolean,
  inputs: readonly string[] = [],
  onWarning?: (message: string) => void,
  carried: ReadonlyArray<Move> = [],
  where?: WhereFilter | null,
): Promise<{ count: number; examples: string[] } | null | undefined> {
  const before = removedRecord(store.dir)?.record;
  if (!complete && carried.length > 0) return recordCarried(store.dir, before ? removed.stillRemoved(before.ids) : [], before, carried);
  if (complete) {
    // --where speaks only for the trajectories it keeps: a stored one outside it whose file is gone stays counted (a
    // renamed folder's new ids outside the filter are not stored by this invocation, so leaving the old ones out
    // dropped them from every figure until a full read: brk40), and a later read without --where decides
    const rows = where ? await readTrajectoryIndex(store.dir, { keepRemoved: true }) : undefined;
    const inScope = rows ? (id: string) => { const r = rows.get(id); return r === undefined || matchesWhere(r, where); } : undefined;
    const found = removed.find((id) => store.trajectorySource(id), { relative: (id) => store.trajectorySourceRelative(id), inputs, recorded: new Set(before?.ids ?? []), contentCode: (slot) => (slot === -1 ? -1 : store.hashes.code(slot)), inScope, placeNow: (f) => store.sourceMoves.placeNow(f) });
    // the earlier record's ids this read did not meet stay removed: a record is dropped only when its trajectory is
    // read again, never because this read did not look where it was (red team 37 F1: a moved or renamed corpus
    // folder, or one model folder of it, given with relative paths rewrote the record without them and they counted
    // again, unsaid)
    const kept = before ? removed.stillRemoved(before.ids) : [];
    const ids = [...(found?.ids ?? [])];
    const seen = new Set(ids);
    for (const id of kept) if (!seen.has(id)) (seen.add(id), ids.push(id));
    const files = [...(found?.files ?? [])];
    for (const f of before?.files ?? []) if (files.length < 3 && !files.includes(f)) files.push(f);
    writeRemovedIds(store.dir, ids.length ? { ids, files, ...movedRecord(ids, before, carried, found?.moved) } : undefined);
    if (removed.unchecked.count > 0) onWarning?.(uncheckedText(removed.unchecked.count, removed.unchecked.example!, removed.unchecked.folder));
    return ids.length ? { count: ids.length, examples: ids.slice(0, 3) } : null;
  }
  if (!before) return undefined;
  const left = removed.stillRemoved(before.ids);
  if (left !== before.ids) writeRemovedIds(store.dir, left.length ? { ids: [...left], files: before.files, ...movedRecord(left, before, []) } : undefined);
  return left.length ? { count: left.length, examples: left.slice(0, 3) } : null;
}

/**
 * A read cut short (--limit, Ctrl-C) that carried verdicts of moved trajectories over (`./moved-content.ts`): their old
 * ids are known gone (the file checked) and their content now stands under the new ids, so they are recorded as
 * removed now, not at the next complete read; before, every figure counted both ids until then while label said the
 * old ones were left out (brk40).
 */
function recordCarried(dir: string, kept: readonly string[], before: RemovedRecord | undefined, carried: ReadonlyArray<Move>): { count: number; examples: string[] } {
  const ids = [...kept];
  const seen = new Set(ids);
  for (const m of carried) if (!seen.has(m.from)) (seen.add(m.from), ids.push(m.from));
  const files = [...(before?.files ?? [])];
  for (const m of carried) if (files.length < 3 && !files.includes(m.fromFile)) files.push(m.fromFile);
  writeRemovedIds(dir, { ids, files, ...movedRecord(ids, before, carried) });
  return { count: ids.length, examples: ids.slice(0, 3) };
}

/** One move of this invocation (`MovedContent.moves`): old id and file, new id and file; a swapped one's old id is not removed. */
export interface Move {
  from: string;
  fromFile: string;
  to?: string;
  toFile?: string;
  swapped?: boolean;
}

/**
 * The `moved` fields of the record to write (runs53: later commands say a moved trajectory as moved, not as gone): of
 * `ids`, those the earlier record had as moved, those this invocation moved (`carried`, not swapped), and those whose
 * content this read met under another id (`byContent`, new id not known: ""); a few of the moves' files.
 */
function movedRecord(ids: readonly string[], before: RemovedRecord | undefined, carried: ReadonlyArray<Move>, byContent: readonly string[] = []): Pick<RemovedRecord, "moved" | "moved_files"> {
  const now = new Map<string, Move>();
  for (const m of carried) if (!m.swapped) now.set(m.from, m);
  const content = new Set(byContent);
  const moved: Record<string, string> = Object.create(null) as Record<string, string>; // an id may be "__proto__"
  const files: Array<[string, string]> = [];
  for (const id of ids) {
    const m = now.get(id);
    if (m) {
      moved[id] = m.to ?? "";
      if (files.length < 3 && m.toFile) files.push([m.fromFile, m.toFile]);
    } else if (before?.moved && Object.hasOwn(before.moved, id)) moved[id] = before.moved[id]!;
    else if (content.has(id)) moved[id] = "";
  }
  for (const f of before?.moved_files ?? []) if (files.length < 3 && !files.some(([a]) => a === f[0])) files.push(f);
  return Object.keys(moved).length ? { moved, moved_files: files } : {};
}

/**
 * The note for the run's trajectories a complete read did not meet whose relative source path cannot be checked from
 * here nor mapped to a moved folder (`RemovedInputs.unchecked`): they still count; `folder` names the first one's.
 */
export function uncheckedText(n: number, example: string, folder?: string): string {
  return (
    `${n} trajector${n === 1 ? "y" : "ies"} of this run (e.g. ${JSON.stringify(example)}${folder ? `, recorded under ${JSON.stringify(folder)}` : ""}) ${n === 1 ? "was" : "were"} not read by this invocation and recorded ` +
    `from a relative path that is neither under its inputs nor there from this directory (labelled from another directory, or the folder moved or renamed), ` +
    `and this invocation read no other trajectory recorded from ${n === 1 ? "its" : "their"} folder, so it cannot tell where that folder is now: ` +
    `whether their input still exists cannot be told, and they still count in the figures; label with the folder's path as first given, from the directory first used, ` +
    `or with the folder's new path (its other trajectories read show where it went), to have deleted ones left out`
  );
}

/**
 * The label summary's inputs without the run's removed trajectories, and the statement to put in the summary (the
 * one place label says it: the readers' note is not made here).
 * @param o.errors the run's stored errors: returned without the `empty_placeholder` records that are no placeholder
 *   of the input now ({@link placeholdersNow}), so each file is counted once.
 * @param o.inputs this invocation's input paths (a relative placeholder path is judged gone only under them).
 * @returns the filtered index, verdicts and errors (the same objects when none is left out).
 */
export function withoutRemoved(
  dir: string,
  index: ReadonlyMap<string, TrajectoryIndexRow>,
  verdicts: Iterable<Verdict>,
  o: { errors?: readonly IngestError[]; inputs?: readonly string[] } = {},
): { index: ReadonlyMap<string, TrajectoryIndexRow>; verdicts: Iterable<Verdict>; errors: readonly IngestError[]; statement?: NonNullable<RunSummary["inputs_removed"]> } {
  const r = removedRecord(dir);
  const ph = placeholdersNow(o.errors ?? [], r?.ids ?? new Set(), o.inputs ?? []);
  if (!r || r.ids.size === 0) return { index, verdicts, errors: ph.errors };
  const gone = r.ids;
  const kept = new Map<string, TrajectoryIndexRow>();
  // which figures lose them (new user 15: 20 attacked tool_filter runs left a row 7.8% -> 4.8% unmarked): attacked ones
  // by agent model and condition, and the attacked ones first among the examples
  const byCell = new Map<string, number>();
  const attackedIds: string[] = [];
  let unattacked = 0;
  const moved = movedPart(r.record, gone);
  const wasMoved = (id: string) => moved !== undefined && Object.hasOwn(r.record.moved!, id);
  for (const [id, row] of index) {
    if (!gone.has(id)) {
      kept.set(id, row);
      continue;
    }
    if (wasMoved(id)) continue; // its content is counted under its new id: no figure loses it
    if (!row.attacked) {
      unattacked++;
      continue;
    }
    if (attackedIds.length < 3) attackedIds.push(id);
    const cell = `${row.agent_model ?? "agent model unknown"}${row.condition !== undefined ? ` ${row.condition}` : ""}`;
    byCell.set(cell, (byCell.get(cell) ?? 0) + 1);
  }
  const examples = [...attackedIds, ...r.record.ids.filter((id) => !attackedIds.includes(id) && !wasMoved(id))].slice(0, 3);
  const breakdown = removedBreakdown(byCell, unattacked, gone.size - (moved?.count ?? 0));
  // a labelled run whose file is now an empty placeholder is counted here, once: not among the never-run placeholders
  const emptied = ph.emptied ? ` (${ph.emptied} of them now empty placeholder files: counted here, not among the skipped empty placeholders)` : "";
  return {
    index: kept,
    verdicts: { *[Symbol.iterator]() { for (const v of verdicts) if (!gone.has(v.trajectory_id)) yield v; } },
    errors: ph.errors,
    statement: {
      count: gone.size,
      examples,
      files: r.record.files,
      message: leftOutText({ count: gone.size, examples, breakdown: moved && moved.count >= gone.size ? undefined : breakdown, moved }) + emptied,
      ...(moved ? { moved: moved.count } : {}),
    },
  };
}

/**
 * The stored `empty_placeholder` records that are placeholders of the input now (review 17 item 4): left out are
 * those of a removed trajectory (a labelled run's file later emptied into a placeholder: it is `input_removed`, counted
 * there) and those whose file is gone (deleted since: no placeholder of the input any more). A relative path (an
 * invocation's own working directory) is judged gone only under this invocation's `inputs`, as `RemovedInputs.find`
 * does. Other errors pass as they are.
 * @returns the errors (the same array when none is left out), and how many placeholders were a removed trajectory's.
 */
export function placeholdersNow(
  errors: readonly IngestError[],
  removed: ReadonlySet<string>,
  inputs: readonly string[],
): { errors: readonly IngestError[]; emptied: number; gone: number } {
  const roots = inputs.map((p) => path.resolve(p));
  const underInputs = (file: string) => roots.some((r) => file === r || file.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  let emptied = 0;
  let goneFiles = 0;
  const keep = errors.filter((e) => {
    if (e.kind !== "empty_placeholder") return true;
    if (e.trajectory_id !== undefined && removed.has(e.trajectory_id)) {
      emptied++;
      return false;
    }
    const abs = path.resolve(e.path);
    if ((path.isAbsolute(e.path) || underInputs(abs)) && !fs.existsSync(abs)) {
      goneFiles++;
      return false;
    }
    return true;
  });
  return { errors: emptied + goneFiles ? keep : errors, emptied, gone: goneFiles };
}

/** How many MAX cells the breakdown names before "and N more". */
const CELLS_SHOWN = 6;

/**
 * `20 attacked (gpt-4o tool_filter 20), 5 unattacked` over the removed trajectories the run's index still holds
 * (those it does not hold, e.g. an older run's, are `N without an index row`); cells by count, most first.
 */
function removedBreakdown(byCell: Map<string, number>, unattacked: number, total: number): string {
  const attacked = [...byCell.values()].reduce((a, b) => a + b, 0);
  const cells = [...byCell].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const named = cells.slice(0, CELLS_SHOWN).map(([c, n]) => `${c} ${n}`);
  if (cells.length > CELLS_SHOWN) named.push(`and ${cells.length - CELLS_SHOWN} more agent model/condition cells`);
  const parts = [`${attacked} attacked${attacked > 0 ? ` (${named.join(", ")})` : ""}`, `${unattacked} unattacked`];
  const unindexed = total - attacked - unattacked;
  if (unindexed > 0) parts.push(`${unindexed} without an index row`);
  return parts.join(", ");
}
