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
 * Format: `{ "version": 1, "recorded_at": ISO, "ids": [...], "files": [...a few] }`. A file that cannot be read as
 * that is said as a warning and nothing is left out (the figures then hold them: said, not silent).
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
    const record: RemovedRecord = { ids: v.ids, files: Array.isArray(v.files) ? v.files.filter((f) => typeof f === "string") : [] };
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
  fs.writeFileSync(tmp, JSON.stringify({ version: 1, recorded_at: new Date().toISOString(), ids: r.ids, files: r.files }) + "\n");
  fs.renameSync(tmp, file);
}

/** The statement of removed trajectories left out: `input_removed: N trajectories whose input is gone are left out ...`. */
export function leftOutText(r: { count: number; examples: readonly string[]; breakdown?: string }): string {
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
  return leftOutText({ count: r.ids.size, examples: [...take(r.ids, SHOWN)] });
}

function noteText(runDir: string, ids: ReadonlySet<string>): string {
  return `${path.resolve(runDir)}: ${leftOutText({ count: ids.size, examples: [...take(ids, SHOWN)] })}`;
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
