/**
 * Paths by trajectory slot, split for compact storage (issue 26: at a million trajectories the run store's source
 * column and the input read's path table each held ~30 MB of file names, and ~215,000 folder strings between them):
 * most inputs are AgentDojo layout runs, whose path is a root folder, the trajectory's id and ".json" (id
 * `<model>/<suite>/<user_task>/<attack>/<injection_task>`, file `<root>/<id>.json`). Such a path is split into its
 * root (interned by the caller: a corpus has few) and a one-byte mark, its end given back from the id; any other path
 * into its folder (interned by the caller) and the rest (the file name, and `:line` for a JSON Lines row) as UTF-8
 * bytes ({@link Utf8Column}). Exact: `prefix + rest` is the path given, for the slot's id.
 */
import { IntColumn } from "./compact.js";
import { Utf8Column } from "./utf8-column.js";

/**
 * How {@link FileNames} splits `p`, the path of the trajectory `id`: `[prefix, null]` when `p` is `prefix + id +
 * ".json"` (the rest is the id's), else `[folder, rest]` cut after the last `sep`.
 */
export function splitPath(id: string, p: string, sep: string): [string, string | null] {
  const end = p.length - id.length - 5;
  if (end >= 0 && p.endsWith(".json") && p.startsWith(id, end)) return [p.slice(0, end), null];
  const cut = p.lastIndexOf(sep) + 1;
  return [p.slice(0, cut), p.slice(cut)];
}

/** The rests of split paths by slot (module docstring). */
export class FileNames {
  private readonly names = new Utf8Column();
  /** per slot: 1 when its rest is its id + ".json" (nothing else held), else 0 */
  private readonly fromId = new IntColumn(0);

  /** Set slot `slot`'s rest: a string, or null for "the slot's id + .json" ({@link splitPath}). */
  set(slot: number, rest: string | null): void {
    if (rest === null) {
      this.fromId.set(slot, 1);
      return;
    }
    if (this.fromId.get(slot) !== 0) this.fromId.set(slot, 0);
    this.names.set(slot, rest);
  }

  /** The rest of slot `slot` ("" when never set); `id` gives the slot's trajectory id (called only for a marked rest). */
  get(slot: number, id: (slot: number) => string): string {
    return this.fromId.get(slot) === 1 ? `${id(slot)}.json` : this.names.get(slot);
  }
}
