/**
 * The trajectories of a run whose input is gone, left out of every figure (removed15). `label` finds them after a
 * read that ran to the end (`../run/removed-inputs.ts`: the recorded source file no longer exists, or a file the read
 * met no longer holds the row) and records their ids here, in the run folder's `inputs-removed.json`; every reader of
 * a run's stored verdicts and index rows (`./records.ts`, `./lean-read.ts`, `./columns.ts`, the label summary, the
 * view) asks {@link removedIds} and leaves those ids out, as `applyUnattackedRule` is applied in each of them, and
 * {@link noteRemovedLeftOut} says it once per command ("N trajectories whose input is gone are left out (e.g. ...)").
 *
 * The verdicts stay in `verdicts.jsonl` (paid for): a later complete read that meets a restored file rewrites (or
 * deletes) the file, and its trajectories count again. A read cut short (`--limit`, Ctrl-C) keeps the record but
 * takes out of it the ids it met (a restored file read again counts again).
 *
 * Moved (runs53): an id left out because its trajectory moved (the same content read under a new id: a renamed model
 * folder, `../run/moved-content.ts`) is not a lost input; `label` says so ("moved N trajectories"), and the record keeps
 * it (`moved`: old id -> new id, "" when the new one is not known; `moved_files`: a few old -> new files) so every later
 * command says the same ({@link leftOutText}), not "whose input is gone". What is left out is the same either way.
 *
 * Format: `{ "version": 1, "recorded_at": ISO, "ids": [...], "files": [...a few], "moved"?: {old: new}, "moved_files"?:
 * [[old, new], ...a few] }`. A file that cannot be read as that is said as a warning and nothing is left out (the
 * figures then hold them: said, not silent).
 */
import fs from "node:fs";
import path from "node:path";
import { markRunLevelSaid, noteRunLevel } from "./skipped-lines.js";
import { noteSameContent } from "./same-content-record.js";
import { noteInspectEpochs } from "./epochs-note.js";

/** The file in a run folder that holds the removed ids. */
export const REMOVED_FILE = "inputs-removed.json";

/** How many ids a statement names. */
const SHOWN = 3;

/** What `inputs-removed.json` holds. */
export interface RemovedRecord {
  /** every removed trajectory id */
  ids: string[];
  /** the first few of their input files (absolute) */
  files: string[];
  /** of {@link ids}, the old ids of trajectories that moved (their content read under a new id): old id -> new id, "" when not known */
  moved?: Record<string, string>;
  /** the first few moves' input files, old -> new (absolute) */
  moved_files?: Array<[string, string]>;
}

/** The ids of a run's removed trajectories, with their record; read once per file version (mtime and size). */
const cache = new Map<string, { stamp: string; ids: ReadonlySet<string>; record: RemovedRecord }>();

/**
 * The record of a run's removed trajectories, or undefined when the run has none (no `inputs-removed.json`).
 * @param runDir the run folder. Never throws: an unreadable file is noted once (`noteRunLevel`) and read as none.
 */
export function removedRecord(runDir: string): { ids: ReadonlySet<string>; record: RemovedRecord } | undefined {
  const file = path.join(runDir, REMOVED_FILE);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return undefined;
  }
  const stamp = `${st.mtimeMs}:${st.size}`;
  const hit = cache.get(file);
  if (hit && hit.stamp === stamp) return hit;
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<RemovedRecord>;
    if (!Array.isArray(v.ids) || !v.ids.every((x) => typeof x === "string")) throw new Error("no list of string ids");
    const record: RemovedRecord = { ids: v.ids, files: Array.isArray(v.files) ? v.files.filter((f) => typeof f === "string") : [], ...movedOf(v) };
    const got = { stamp, ids: new Set(v.ids) as ReadonlySet<string>, record };
    cache.set(file, got);
    return got;
  } catch (e) {
    noteRunLevel(
      `removed-bad\u0000${path.resolve(runDir)}`,
      `${path.resolve(file)} cannot be read (${(e as Error).message}): trajectories whose input is gone cannot be told apart, so the figures hold every stored trajectory; label the run's inputs again to rewrite it`,
    );
    return undefined;
  }
}

/** Whether a run leaves ids out and every one is an old id of a trajectory that moved (`moved`: nothing was lost). */
export function removedAllMoved(runDir: string): boolean {
  const r = removedRecord(runDir);
  return r !== undefined && r.ids.size > 0 && (movedPart(r.record, r.ids)?.count ?? 0) >= r.ids.size;
}

/** The ids of a run's removed trajectories (empty set when none): what every reader leaves out. */
export function removedIds(runDir: string): ReadonlySet<string> {
  return removedRecord(runDir)?.ids ?? NONE;
}
const NONE: ReadonlySet<string> = new Set();

/**
 * Write (or, for no ids, delete) a run's `inputs-removed.json`, atomically.
 * @throws the file system's error when it cannot be written (the caller's store write error).
 */
export function writeRemovedIds(runDir: string, r: RemovedRecord | undefined): void {
  const file = path.join(runDir, REMOVED_FILE);
  cache.delete(file);
  if (!r || r.ids.length === 0) return void fs.rmSync(file, { force: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const moved = r.moved && Object.keys(r.moved).length ? { moved: r.moved, moved_files: r.moved_files ?? [] } : {};
  fs.writeFileSync(tmp, JSON.stringify({ version: 1, recorded_at: new Date().toISOString(), ids: r.ids, files: r.files, ...moved }) + "\n");
  fs.renameSync(tmp, file);
}

/**
 * The `moved` fields of a read `inputs-removed.json` (an older build's file has none): the well-formed ones only.
 * @param v the file's parsed object.
 */
function movedOf(v: Partial<RemovedRecord>): Pick<RemovedRecord, "moved" | "moved_files"> {
  const m = v.moved;
  if (!m || typeof m !== "object" || Array.isArray(m)) return {};
  const moved: Record<string, string> = Object.create(null) as Record<string, string>; // an id may be "__proto__"
  for (const [k, to] of Object.entries(m)) if (typeof to === "string") moved[k] = to;
  const files = Array.isArray(v.moved_files) ? v.moved_files.filter((f): f is [string, string] => Array.isArray(f) && f.length === 2 && f.every((x) => typeof x === "string")) : [];
  return { moved, moved_files: files };
}

/** What a statement says of the moved ones among the removed: how many, a few (old id, new id), a few files (old, new). */
export interface MovedPart {
  count: number;
  examples: ReadonlyArray<readonly [string, string]>;
  files: ReadonlyArray<readonly [string, string]>;
}

/**
 * The moved part of a record: its moved ids that are among the removed ones, a few of them with their new ids.
 * @returns undefined when none of the removed moved.
 */
export function movedPart(record: RemovedRecord, ids: ReadonlySet<string>): MovedPart | undefined {
  if (!record.moved) return undefined;
  let count = 0;
  const examples: Array<[string, string]> = [];
  for (const [from, to] of Object.entries(record.moved)) {
    if (!ids.has(from)) continue;
    count++;
    if (examples.length < SHOWN) examples.push([from, to]);
  }
  return count ? { count, examples, files: (record.moved_files ?? []).slice(0, SHOWN) } : undefined;
}

/** A path as a statement shows it: relative to this directory when under it, else as recorded. */
function shownPath(f: string): string {
  const rel = path.relative(process.cwd(), f);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : f;
}

/** `"a" -> "b", ...; files x -> y, ...`: a few moves, as a statement names them. */
function movesText(m: MovedPart): string {
  const ids = m.examples.slice(0, 1).map(([a, b]) => `${JSON.stringify(a)} -> ${b ? JSON.stringify(b) : "a new id"}`).join(", ");
  const files = m.files.slice(0, 2).map(([a, b]) => `${shownPath(a)} -> ${shownPath(b)}`).join("; ");
  return `e.g. ${ids}${files ? `; files ${files}` : ""}`;
}

/**
 * The statement of removed trajectories left out: `input_removed: N trajectories whose input is gone are left out ...`;
 * when some of them moved (`r.moved`, {@link movedPart}) it says how many, from where to where, and that their content
 * counts under the new ids; when all did, that no trajectory was lost (as `label` says it: `../run/moved-removed.ts`).
 * `r.examples` and `r.breakdown` are then those of the ones whose input is gone.
 */
export function leftOutText(r: { count: number; examples: readonly string[]; breakdown?: string; moved?: MovedPart }): string {
  const m = r.moved;
  if (!m) return goneText(r);
  const n = r.count;
  const movedText = `the ${m.count} old id${m.count === 1 ? "" : "s"} of trajector${m.count === 1 ? "y" : "ies"} whose input moved (the same content read under a new id, ${movesText(m)})`;
  if (m.count >= n)
    return `input_removed: ${movedText} ${m.count === 1 ? "is" : "are"} left out of the figures; their content is counted under the new ids, with the verdicts carried over: no trajectory was lost`;
  return `${goneText({ ...r, count: n - m.count })}; besides, ${movedText} ${m.count === 1 ? "is" : "are"} left out: their content is counted under the new ids`;
}

/** The statement of removed trajectories whose input is gone, none of them moved ({@link leftOutText}). */
function goneText(r: { count: number; examples: readonly string[]; breakdown?: string }): string {
  const n = r.count;
  return (
    `input_removed: ${n} trajector${n === 1 ? "y" : "ies"} whose input is gone (file deleted, its row no longer in it, or the file no longer read as a trajectory) ${n === 1 ? "is" : "are"} left out ` +
    `of the figures${r.breakdown ? `: ${r.breakdown}` : ""} (e.g. ${r.examples.slice(0, SHOWN).map((e) => JSON.stringify(e)).join(", ")}); every figure is over the input files that exist now; ` +
    `the verdicts stay in verdicts.jsonl and count again once label reads the restored input`
  );
}

/**
 * Say once, for a command, that a reader of `runDir` left out `ids` (`./skipped-lines.ts` notes: on stderr at exit,
 * in `--json` warnings). Nothing when `ids` is empty.
 */
export function noteRemovedLeftOut(runDir: string, ids: ReadonlySet<string>): void {
  // every reader calls this once per read: the same trajectory counted under two ids is said with it (red team 39)
  noteSameContent(runDir);
  noteInspectEpochs(runDir); // epochs of one Inspect sample counted as independent runs (./epochs-note.ts)
  const k = `removed\u0000${path.resolve(runDir)}`;
  if (ids.size === 0) return void noteRunLevel(k, undefined);
  noteRunLevel(k, noteText(runDir, ids));
}

/**
 * What `readRunState` (`./run-state.ts`) says of a run whose readers leave trajectories out, or undefined when the run
 * has no record of them. The readers' note of the same run is then taken as said (a command says it once).
 */
export function removedStatement(runDir: string): string | undefined {
  const r = removedRecord(runDir);
  if (!r || r.ids.size === 0) return undefined;
  markRunLevelSaid(`removed\u0000${path.resolve(runDir)}`, noteText(runDir, r.ids));
  return recordText(runDir, r.ids);
}

function noteText(runDir: string, ids: ReadonlySet<string>): string {
  return `${path.resolve(runDir)}: ${recordText(runDir, ids)}`;
}

/** {@link leftOutText} of the run's record for `ids`: the moved ones said as moved, the examples those gone. */
function recordText(runDir: string, ids: ReadonlySet<string>): string {
  const r = removedRecord(runDir);
  const moved = r ? movedPart(r.record, ids) : undefined;
  const gone = moved ? [...take(filter(ids, (id) => !Object.hasOwn(r!.record.moved!, id)), SHOWN)] : [...take(ids, SHOWN)];
  return leftOutText({ count: ids.size, examples: gone, moved });
}

function* filter<T>(xs: Iterable<T>, keep: (x: T) => boolean): Generator<T> {
  for (const x of xs) if (keep(x)) yield x;
}

function* take<T>(xs: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  for (const x of xs) {
    yield x;
    if (--n <= 0) return;
  }
}

/**
 * Undo {@link removedStatement}'s "said" mark for `runDir` when the command read the run state but does not print it
 * (`sample` on a complete run: ../cli/sample-run-state.ts), so the readers' note on the removed trajectories is said.
 */
export function unsayRemovedStatement(runDir: string): void {
  noteRunLevel(`removed\u0000${path.resolve(runDir)}`, undefined);
}
