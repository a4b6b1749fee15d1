/**
 * The files and folders one read has met so far by real identity (real path), across ALL its input paths: what
 * `./walk.ts` and the reader (`./index.ts`) consult so that one folder or file reached under two different names
 * through a symbolic link (`label in/z in/a` with `in/a -> z`) is read once, with one note per pair of input paths naming both. The same name given twice (`label in/z in/z`) is not
 * this: it stays the reader's `duplicate_input` input error. Links met twice inside one input path are
 * `./walk.ts`'s {@link Relinked} note (`linked_twice`). Hard links are not identity: a file hard-linked under another
 * benchmark path is a distinct trajectory by its path, as a copy is (`cp -al` per condition; red team 14).
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { IngestWarning } from "./warnings.js";
import { RealFolders, type FirstMet } from "./real-folders.js";

/** Kind of the note that says what one input path shares with an earlier one ({@link SameFiles.warnings}). */
export const READ_ONCE = "read_once";

/** Per read: the real identities met (class docstring of this module); one per `readTrajectories` call. */
export class SameFiles {
  /**
   * real path of each folder walked -> where it was first walked (a tree of path components: every folder of all
   * input paths but the last is recorded, links or not; `./real-folders.ts`)
   */
  readonly dirs = new RealFolders();
  /** real path of each file yielded through a symbolic link, or given as an input path -> where it was yielded */
  readonly files = new Map<string, FirstMet>();
  /**
   * Whether what is met now is recorded for later input paths to consult (set by `inputFiles`: false while the last
   * input path is walked, so a read of one input path records nothing: no memory per folder then).
   */
  recording = true;
  /** `later\0first` input paths -> what the later one had that the first one had given already */
  private readonly pairs = new Map<string, { later: string; first: string; files: number; folders: number }>();

  /**
   * Whether the folder of real path `real`, entered under the name `dir` from input path `root`, was walked
   * already under another name (then noted, and not to be walked again); otherwise it is recorded as met here.
   * The same name again (an input path given twice) is not "met already": the reader says `duplicate_input`.
   */
  folderAgain(real: string, dir: string, root: string): boolean {
    const prev = this.dirs.get(real);
    if (prev === undefined) {
      if (this.recording) this.dirs.set(real, { named: path.resolve(dir), root });
      return false;
    }
    if (prev.root === root || prev.named === path.resolve(dir)) return false;
    this.add(root, prev.root, "folders");
    return true;
  }

  /**
   * Whether the file of real path `real`, met under the name `file` from input path `root` through a symbolic link
   * or as an input path, was yielded already under another name by an EARLIER input path (through a link, given
   * explicitly, or plainly in a folder that path walked); noted when so. Otherwise it is recorded as yielded here.
   * `kept(name)` says whether a walked folder yields a file of that name.
   */
  fileAgain(real: string, file: string, root: string, kept: (name: string) => boolean): boolean {
    const named = path.resolve(file);
    const prev = this.files.get(real) ?? this.walkedIn(real, kept);
    if (prev !== undefined && prev.named !== named && prev.root !== root) {
      this.add(root, prev.root, "files");
      return true;
    }
    if (prev === undefined && this.recording) this.files.set(real, { named, root });
    return false;
  }

  /**
   * Whether a plain file (not a link) of real path `real`, met under `file` from input path `root`, was yielded
   * already under another name through a link or as an input path of an earlier input path; noted when so.
   */
  plainAgain(real: string, file: string, root: string): boolean {
    const prev = this.files.get(real);
    if (prev === undefined || prev.root === root || prev.named === path.resolve(file)) return false;
    this.add(root, prev.root, "files");
    return true;
  }

  /**
   * Make the name a resumed run holds a file under win, whatever the order of the input paths (red team 14 #4:
   * `label o/z` then `label o/link.json o/z`, with `o/link.json` a symbolic link to a file under `o/z`, read the file
   * under `link.json` and gave it a second id). For each input path that is a symbolic link to a file under another
   * input path that is a folder, when the run holds exactly one of its two names (`held`), that name is recorded here
   * as where the file is yielded: the other name is then skipped with the `read_once` note ({@link fileAgain},
   * {@link plainAgain}). When the run holds neither or both, the order decides, as before.
   * @param paths the read's input paths; @param held whether the run holds a trajectory read from a file (resolved
   *   path, as `RunStore.holdsFile`). Costs an `lstat` per input path, a `realpath` per linked one.
   */
  preferHeld(paths: readonly string[], held: (file: string) => boolean): void {
    if (paths.length < 2) return;
    const real = (p: string): string | undefined => {
      try {
        return realpathSync(p);
      } catch {
        return undefined;
      }
    };
    let folders: Array<{ given: string; real: string }> | undefined;
    for (const p of paths) {
      let linkToFile = false;
      try {
        linkToFile = lstatSync(p).isSymbolicLink() && statSync(p).isFile();
      } catch {
        /* the read reports it */
      }
      if (!linkToFile) continue;
      const r = real(p);
      if (r === undefined) continue;
      folders ??= paths.flatMap((q) => {
        try {
          const rq = statSync(q).isDirectory() ? real(q) : undefined;
          return rq === undefined ? [] : [{ given: q, real: rq }];
        } catch {
          return [];
        }
      });
      for (const f of folders) {
        if (!r.startsWith(f.real + path.sep)) continue;
        const plain = path.resolve(f.given, path.relative(f.real, r));
        const linked = path.resolve(p);
        const heldPlain = held(plain);
        if (heldPlain === held(linked)) continue;
        this.files.set(r, heldPlain ? { named: plain, root: f.given } : { named: linked, root: p });
        break;
      }
    }
  }

  /** The folder entry of an earlier input path that yielded `real` under its own name, if any. */
  private walkedIn(real: string, kept: (name: string) => boolean): FirstMet | undefined {
    const d = this.dirs.get(path.dirname(real));
    const name = path.basename(real);
    return d === undefined || !kept(name) ? undefined : { named: path.join(d.named, name), root: d.root };
  }

  private add(later: string, first: string, what: "files" | "folders"): void {
    const key = `${later}\0${first}`;
    let c = this.pairs.get(key);
    if (!c) this.pairs.set(key, (c = { later, first, files: 0, folders: 0 }));
    c[what]++;
  }

  /**
   * One note per pair of input paths (kind {@link READ_ONCE}, on the later path): "N files and M folders under
   * <later> are the same as under <first> (...): read once, under <first>". Not a warning: nothing is lost.
   */
  warnings(): IngestWarning[] {
    const out: IngestWarning[] = [];
    for (const c of this.pairs.values()) {
      const parts = [c.files > 0 ? `${c.files} file${c.files === 1 ? "" : "s"}` : "", c.folders > 0 ? `${c.folders} folder${c.folders === 1 ? "" : "s"}` : ""].filter(Boolean);
      const where = c.later === c.first ? `elsewhere under ${c.first}` : `under ${c.first}`;
      out.push({
        kind: READ_ONCE,
        path: c.later,
        message: `${c.later}: ${parts.join(" and ")} ${c.files + c.folders === 1 ? "is" : "are"} the same as read ${where} (the same real path, through a symbolic link): read once, under ${c.first}`,
        count: c.files + c.folders,
      });
    }
    this.pairs.clear();
    return out;
  }
}
