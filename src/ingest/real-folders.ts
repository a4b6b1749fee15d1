/**
 * The folders one read has met by real path, each with where it was first met: `./same-files.ts`'s table of folders
 * (read_once), kept as a tree of path components rather than a map keyed by the full path.
 *
 * Why: a read of many input paths records every folder of all but the last, whether or not any link is involved,
 * and a map of full real paths, each with an object holding its resolved name, held about 1.1 kB per folder (issue
 * 26: 26,152 folders at 100,000 trajectories of the bench's real copies, 19 MB of live heap, growing with N; ~190 MB
 * at a million). Here a folder costs one short `<parent code>\0<name>` key held as UTF-8 bytes (`IdSlots`: ~40
 * bytes with its table, outside the JS heap), a root number in an integer column, and its resolved name only when it
 * differs from its real path (reached through a symbolic link).
 * Answers are the map's exactly: the real path given back is the string looked up, which equals the one recorded.
 */
import path from "node:path";
import { IdSlots } from "../store/id-slots.js";
import { IntColumn } from "../store/int-column.js";

/** Where a folder was first met: the name it was read under (resolved) and the input path it was found under. */
export interface FirstMet {
  named: string;
  root: string;
}

/** Folders by real path -> {@link FirstMet} (module docstring); a map's `get`/`set`/`size` for what `SameFiles` asks. */
export class RealFolders {
  /**
   * `<parent code>\0<component>` -> code of that path, as the key's slot + 1 (code 0: before the first component, never
   * a value). The keys are held as bytes: a key string kept in a Map held its component as a slice of the whole real
   * path, and so that path (issue 26: ~200 bytes a folder, ~30 MB of heap at a million runs in the bench's layout).
   */
  private readonly codes = new IdSlots(false);
  /** per code: the number of the input path where the folder was first met; -1 for a path only passed through */
  private readonly rootOf = new IntColumn(-1);
  /** per code of a folder whose resolved name is not its real path (met through a link): that name */
  private readonly namedOf = new Map<number, string>();
  /** input paths by number, and their numbers */
  private readonly roots: string[] = [];
  private readonly rootNumber = new Map<string, number>();
  private count = 0;

  /** Number of folders recorded. */
  get size(): number {
    return this.count;
  }

  /** Where the folder of real path `real` was first met, or undefined when it was not recorded. */
  get(real: string): FirstMet | undefined {
    let code = 0;
    for (const part of real.split(path.sep)) {
      const c = this.codes.find(`${code}\0${part}`);
      if (c === -1) return undefined;
      code = c + 1;
    }
    const r = this.rootOf.get(code);
    if (r === -1) return undefined;
    return { named: this.namedOf.get(code) ?? real, root: this.roots[r] };
  }

  /** Record (or replace) where the folder of real path `real` was first met. */
  set(real: string, met: FirstMet): void {
    let code = 0;
    for (const part of real.split(path.sep)) {
      code = this.codes.slot(`${code}\0${part}`) + 1;
    }
    let r = this.rootNumber.get(met.root);
    if (r === undefined) {
      r = this.roots.push(met.root) - 1;
      this.rootNumber.set(met.root, r);
    }
    if (this.rootOf.get(code) === -1) this.count++;
    this.rootOf.set(code, r);
    if (met.named !== real) this.namedOf.set(code, met.named);
    else this.namedOf.delete(code);
  }
}
