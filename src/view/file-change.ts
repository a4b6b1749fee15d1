/**
 * Whether files a running view serves from changed since it last read them (fix 39: the annotators' files and the
 * `--human` file are written by hand or by another process while the view runs, and rows appended so were shown only
 * after a restart). A stamp per file: size, mtime and ctime (`fs.Stats`; the ctime is set by every write, rename or
 * copy and no user tool sets it back, as the resume's stamp, ../store/file-stamp.ts), or `absent`; a folder's stamp is
 * its matching files' names and stamps. Reading the stamps costs one `stat` per file, so a request can check them.
 */
import fs from "node:fs";
import path from "node:path";

/** One file's stamp (`size:mtime:ctime`, or `absent`). */
export function fileStamp(file: string): string {
  try {
    const s = fs.statSync(file);
    return `${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return "absent";
  }
}

/** The stamp of a folder's files whose name ends in `suffix` (names sorted), or `absent`. */
export function folderStamp(dir: string, suffix: string): string {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(suffix)).sort();
  } catch {
    return "absent";
  }
  return names.map((n) => `${n}=${fileStamp(path.join(dir, n))}`).join("\n");
}

/** A watch over some files by their stamps: {@link changed} is true once per change (and on the first call). */
export class FileChange {
  private last: string | undefined;
  constructor(private readonly stamp: () => string) {}
  /** Whether the stamps differ from those of the last call that returned true (always true the first time). */
  changed(): boolean {
    const now = this.stamp();
    if (now === this.last) return false;
    this.last = now;
    return true;
  }
  /** Forget the last stamps: the next {@link changed} is true (after a write of the view's own). */
  reset(): void {
    this.last = undefined;
  }
}
