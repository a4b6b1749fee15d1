/**
 * What a resume needs of a read (`readTrajectoriesResuming` of ./index.ts): an input file's stamp, and the check that
 * takes a file as unchanged and unread, its id entered in the read's duplicate tables as a read would enter it.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { IdSlots } from "../store/compact.js";
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
  /** what the check found of the trajectory's repeats (`UnchangedHit.repeats`), for the reading loop */
  repeats?: UnchangedHit["repeats"];
}

/** What an {@link UnchangedFile} check finds for a file it takes as unchanged. */
export interface UnchangedHit {
  id: string;
  /** whether the trajectory is an AgentDojo layout run */
  layout: boolean;
  /** the warnings its read raised, naming the file as now named */
  warnings?: ItemWarning[];
  /** the id's slot in `slots` (id slots a read may share: it then looks the id up by its slot) */
  slot?: number;
  slots?: IdSlots;
  /**
   * The check's count of the trajectory's repeats, handed to the reading loop with the item: `awaited` of them held by
   * a batch sent earlier, over `judges` judges not stopped at the check.
   */
  repeats?: { awaited: number; judges: number };
}

/**
 * The resume's check of one file (`file` resolved, `named` as the walk names it): the id of the trajectory a run
 * stored from it with this stamp (size and mtime), whether that trajectory is an AgentDojo layout run, and the
 * warnings its read raised (naming the file as `named`); undefined = read the file.
 */
export type UnchangedFile = (file: string, stamp: InputStamp, named: string) => UnchangedHit | undefined;

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
  // a file the walk read ahead is named by path.join (normalized): absolute, it is its own resolved name
  const abs = read.stat !== undefined && path.isAbsolute(file) ? file : path.resolve(file);
  const stamp = { size: st.size, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs };
  // a file reached through a link is also looked up under its real path: a run labelled under that name stored it
  const hit = check(abs, stamp, file) ?? (read.real !== undefined && read.real !== abs ? check(read.real, stamp, file) : undefined);
  if (!hit) return undefined;
  // the id's slot, once (the check's when the read shares the run's id slots): seen and firstFile share key slots
  const slot = seen.slotOf(hit.id, hit.slot !== undefined && hit.slots !== undefined ? { slot: hit.slot, slots: hit.slots } : undefined);
  if (slot !== -1 && (seen.hasSlot(slot) || (hit.layout && firstFile.hasSlot(slot)))) return undefined;
  // firstFile first: seen then holds the path as firstFile's (a one-byte mark)
  if (slot === -1) {
    if (hit.layout) firstFile.set(hit.id, abs);
    seen.set(hit.id, abs);
  } else {
    if (hit.layout) firstFile.setSlot(slot, hit.id, abs);
    seen.setSlot(slot, hit.id, abs);
  }
  for (const w of hit.warnings ?? []) read.warnings.add(w);
  return hit.repeats === undefined ? { kind: "unchanged", id: hit.id, path: file } : { kind: "unchanged", id: hit.id, path: file, repeats: hit.repeats };
}
