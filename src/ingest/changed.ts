/**
 * Whether an input file changed while it was read (red team 31 F4: a JSONL file rewritten in place during `label` was
 * read as a mix of two versions, or stopped at the transient end of a truncated file, and labelled, exit 0). A reader
 * takes the file's stamp (size, mtime, ctime, device and inode) from its open handle before reading, and compares it
 * with the handle's and the path's stamps as it goes and at the end: a different size, mtime, device or inode is a
 * `changed_during_read` ingest error naming the file (a ctime that alone changed is metadata: a link, a chmod).
 */
import { fstatSync, statSync, type Stats } from "node:fs";
import type { IngestError } from "../types.js";
import { ingestError } from "./errors.js";

/** What is compared: a rewrite changes size or times; a file renamed over the path changes device or inode. */
export interface ReadStamp {
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  dev: number;
  ino: number;
}

/** The stamp of `st`. */
export function stampOf(st: Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "dev" | "ino">): ReadStamp {
  return { size: st.size, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs, dev: st.dev, ino: st.ino };
}

/** The stamp of the file at `file` (following links), or undefined when it cannot be stat'ed. Never throws. */
export function pathStamp(file: string): ReadStamp | undefined {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st === undefined ? undefined : stampOf(st);
  } catch {
    return undefined;
  }
}

/** The fields of `now` that differ from `before` (`size 100 -> 0`, `mtime`, `ctime`, `inode`), empty when none. */
export function stampChanges(before: ReadStamp, now: ReadStamp): string[] {
  const out: string[] = [];
  if (now.size !== before.size) out.push(`size ${before.size} -> ${now.size} bytes`);
  if (now.mtime_ms !== before.mtime_ms) out.push("mtime");
  // ctime alone (size and mtime as they were) is a change of the file's metadata, not of its content: a hard link made
  // by a backup tool, a chmod, a touch with the same time (red team 32 G: each stopped the read of an unchanged file)
  if (now.ctime_ms !== before.ctime_ms && out.length > 0) out.push("ctime");
  if (now.dev !== before.dev || now.ino !== before.ino) out.push("another file at the path");
  return out;
}

/** What changed since `before` in the open file `fd` (a write into the file read); empty when nothing did. Never throws. */
export function changedSince(before: ReadStamp, fd: number): string[] {
  try {
    return stampChanges(before, stampOf(fstatSync(fd)));
  } catch (e) {
    return [`the open file cannot be stat'ed (${e instanceof Error ? e.message : String(e)})`];
  }
}

/**
 * What changed since `before`, at the end of a read: the open file `fd` ({@link changedSince}), else the path
 * `file` (a file renamed over it, or removed). Empty when nothing did. Never throws (a path that cannot be stat'ed
 * is a change).
 */
export function changedAtEnd(before: ReadStamp, fd: number, file: string): string[] {
  const own = changedSince(before, fd);
  if (own.length > 0) return own;
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st === undefined ? ["the path is gone"] : stampChanges(before, stampOf(st));
  } catch (e) {
    return [`the path cannot be stat'ed (${e instanceof Error ? e.message : String(e)})`];
  }
}

/** Thrown by a reader that saw its file change (see `rawLines`, ./lines.ts): what changed, and the lines yielded before. */
export class ChangedDuringRead extends Error {
  constructor(
    public readonly changes: readonly string[],
    /** the lines (blank ones included) yielded before the change was seen: all read before it */
    public readonly linesBefore: number,
  ) {
    super(`the file changed while it was read (${changes.join(", ")})`);
    this.name = "ChangedDuringRead";
  }
}

/**
 * The `changed_during_read` error of `file`: what changed, what was kept of the read (`kept`, e.g. `only its first
 * 12 line(s) (12 item(s)), all read before the change, are kept and labelled; ...`, or `nothing of it is kept`), and
 * what to do.
 */
export function changedDuringReadError(file: string, changes: readonly string[], kept: string): IngestError {
  return ingestError(
    "changed_during_read",
    file,
    `the file changed while it was read (${changes.join(", ")}): what was read after the change could mix two versions of it, so ${kept}; run label again once the file is no longer written`,
  );
}
