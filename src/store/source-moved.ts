/**
 * A stored trajectory read again, same id and content, from another file than the one its row records, the recorded
 * file gone (runs53): the corpus folder moved above the id's part of the path (`mv ad/runs mv/runs`; a renamed model
 * folder changes the id instead, `../run/moved-content.ts`). Before, the row kept the old path: `label` said nothing,
 * and `sample` refused (`source file ... not found ... if it was deleted ... trajectories whose input is gone`),
 * `report` listed its disagreements without their trajectory, though every verdict still counted. Now the row is
 * written again with the path it was read from (what `sample`, `report` and `view` read), and `label` says it once.
 * A copy (the recorded file still there) keeps its row, as before; so does a row recorded from a relative path that
 * names the same file from another directory (its recorded path is the tail of the new one).
 *
 * Cost: nothing unless the path differs (a resume from the same place reads the same paths); then one `existsSync`.
 */
import fs from "node:fs";
import path from "node:path";

/** How many moves the statement names. */
const SHOWN = 3;

/** Tells a moved stored row from a copy, and counts the moves (module docstring). */
export class SourceMoves {
  /** rows written again with their new path */
  count = 0;
  /** the first few: old file -> new file (absolute) */
  readonly examples: Array<[string, string]> = [];

  /**
   * Whether a stored row (same id, same content) recorded from `was` and read now from `now` moved; counted when it did.
   * @param was the stored source (`sourceKey`: absolute path, `:line` for a row of a multi-record file);
   * @param now this read's source, the same form; @param relative whether the stored path was relative (resolved
   *   from this directory).
   */
  moved(was: string, now: string, relative: boolean): boolean {
    if (was === "" || now === "" || was === now) return false;
    const wasFile = was.replace(/:\d+$/, "");
    const nowFile = now.replace(/:\d+$/, "");
    if (wasFile === nowFile) return false; // the row moved inside its file: another matter (kept as before)
    if (relative) {
      // recorded from another directory: the same file when its recorded path is the tail of the new one
      const rel = path.relative(process.cwd(), wasFile);
      if (rel !== "" && !rel.startsWith("..") && nowFile.endsWith(path.sep + rel)) return false;
    }
    if (fs.existsSync(wasFile)) return false; // a copy: the recorded file is still there
    this.count++;
    if (this.examples.length < SHOWN) this.examples.push([wasFile, nowFile]);
    // the folder and each folder above it of the same name on both sides (the part of the path that moved with it)
    for (let a = path.dirname(wasFile), b = path.dirname(nowFile); !this.dirs.has(a); a = path.dirname(a), b = path.dirname(b)) {
      this.dirs.set(a, b);
      if (path.basename(a) !== path.basename(b) || a === path.dirname(a) || b === path.dirname(b)) break;
    }
    return true;
  }

  /** per recorded folder of a moved row, and the folders above it that moved with it (absolute): where it is now */
  private readonly dirs = new Map<string, string>();

  /**
   * Where a file recorded under a folder whose rows moved is now (that folder's new place, the rest of the path the
   * same), or undefined when no row under its folders moved: what `../run/removed-inputs.ts` asks of a stored
   * trajectory the read did not meet (the moved rows record the new paths, so they no longer show where the old
   * folder went).
   * @param file the recorded file (absolute).
   */
  placeNow(file: string): string | undefined {
    if (this.dirs.size === 0) return undefined;
    for (let a = path.dirname(file); ; a = path.dirname(a)) {
      const b = this.dirs.get(a);
      if (b !== undefined) return path.join(b, path.relative(a, file));
      if (a === path.dirname(a)) return undefined;
    }
  }

  /** What label says of the moves, or undefined for none: `the input files of N stored trajectories moved ...`. */
  statement(): string | undefined {
    const n = this.count;
    if (n === 0) return undefined;
    const shown = (f: string) => path.relative(process.cwd(), f) || f;
    return (
      `the input files of ${n} stored trajector${n === 1 ? "y" : "ies"} moved (same ids, same content, the recorded file not there now; e.g. ` +
      `${this.examples.map(([a, b]) => `${shown(a)} -> ${shown(b)}`).join("; ")}): their index rows now record the new paths (what sample, report and view read); ` +
      `no judge call, no figure changes`
    );
  }
}
