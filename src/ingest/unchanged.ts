/**
 * What a resume needs of a read (`readTrajectoriesResuming` of ./index.ts): an input file's stamp, and the check that
 * takes a file as unchanged and unread, its id entered in the read's duplicate tables as a read would enter it.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { PathTable } from "./walk.js";
import type { AheadStat } from "./walk-ahead.js";
import type { ItemWarning, WarningCollector } from "./warnings.js";

/** The stamp of an input file: size in bytes, modification and status-change times in ms (`fs.Stats.size`, `mtimeMs`, `ctimeMs`). */
export interface InputStamp {
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  /** The warnings the file's item raised, in order (said again, as raised, when a resume passes the file over unread). */
  warnings?: ItemWarning[];
}

/** A file a resume takes as unchanged, unread (`readTrajectoriesResuming` of ./index.ts): the id stored for it. */
export interface UnchangedItem {
  kind: "unchanged";
  id: string;
  /** the file as the walk named it (not resolved) */
  path: string;
}

/**
 * The resume's check of one file (`file` resolved, `named` as the walk names it): the id of the trajectory a run
 * stored from it with this stamp (size and mtime), whether that trajectory is an AgentDojo layout run, and the
 * warnings its read raised (naming the file as `named`); undefined = read the file.
 */
export type UnchangedFile = (file: string, stamp: InputStamp, named: string) => { id: string; layout: boolean; warnings?: ItemWarning[] } | undefined;

/**
 * The `unchanged` item for a file `check` names, its id entered in the read's duplicate tables and its warnings in
 * the read's collector as a read would enter them; undefined (read the file) when it cannot be stat'ed, is over the
 * size limit, is not named, or its id is taken already in this read (the read then says duplicate or renames).
 * `read.real`: the file's real path when it differs from its name (`InputFile.real`), looked up too; `read.stat`: its
 * stat when read ahead (`InputFile.stat`), taken instead of stat'ing it.
 */
export function unchangedHit(
  file: string,
  max: number,
  check: UnchangedFile,
  read: { seen: PathTable<string>; firstFile: PathTable<string>; warnings: WarningCollector; real?: string; stat?: AheadStat },
): UnchangedItem | undefined {
  const { seen, firstFile } = read;
  let st: AheadStat | undefined = read.stat;
  if (st === undefined) {
    try {
      const s = statSync(file);
      st = { isFile: s.isFile(), size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
    } catch {
      return undefined;
    }
  }
  if (!st.isFile || st.size > max) return undefined;
  const abs = path.resolve(file);
  const stamp = { size: st.size, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs };
  // a file reached through a link is also looked up under its real path: a run labelled under that name stored it
  const hit = check(abs, stamp, file) ?? (read.real !== undefined && read.real !== abs ? check(read.real, stamp, file) : undefined);
  if (!hit || seen.has(hit.id) || (hit.layout && firstFile.get(hit.id) !== undefined)) return undefined;
  if (hit.layout) firstFile.set(hit.id, abs);
  seen.set(hit.id, abs);
  for (const w of hit.warnings ?? []) read.warnings.add(w);
  return { kind: "unchanged", id: hit.id, path: file };
}
