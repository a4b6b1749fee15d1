/**
 * Which files the input paths stand for: directories walked recursively in a deterministic order, symbolic links
 * followed with loop safety, FIFOs and devices reported and never opened. Used by `./index.ts` (reading) and the
 * progress pre-count.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { IngestError } from "../types.js";
import type { IngestWarning } from "./warnings.js";
import { ingestError } from "./errors.js";
import { IdSlots, IntColumn, Interner } from "../store/compact.js";
import { FileNames, splitPath } from "../store/file-names.js";
import { SameFiles } from "./same-files.js";
import { WalkAhead, type AheadStat, type Entry } from "./walk-ahead.js";
import { ownKindOf, ownMarkerName, realOrResolved, type OwnFolders } from "./own-folders.js";

/** A file to read, with the input path (directory or the file itself) it was found under. */
export interface InputFile {
  file: string;
  root: string;
  /**
   * Found in a walked folder under the name of a corpus's sidecar file ({@link isSidecarName}); set only when
   * {@link inputFiles} is asked for sidecars. A JSON file of such a name is still read when it holds trajectories.
   */
  sidecar?: true;
  /**
   * The file's real path, set only when it differs from its resolved name (its folder or the file reached through a
   * symbolic link): a resume looks the file up under it too (`./unchanged.ts`), so a run labelled under one name
   * and resumed under another takes it as the trajectory it stored.
   */
  real?: string;
  /**
   * The file's stat, read ahead by another thread (`./walk-ahead.ts`; only with {@link inputFiles}' `ahead`, for a
   * plain `*.json` file of a folder that thread listed): a resume's check (`./unchanged.ts`) takes it instead of
   * stat'ing the file again. Absent: stat it.
   */
  stat?: AheadStat;
}

export const JSON_EXT = /\.json$/i;
export const JSONL_EXT = /\.(jsonl|ndjson)$/i;
/** Inspect AI's zip log. */
export const EVAL_EXT = /\.eval$/i;
/** SWE-agent's trajectory file. */
export const TRAJ_EXT = /\.traj$/i;

/**
 * The names of a corpus's sidecar files, which describe the trajectories and are not trajectories: a manifest or a
 * checksum list (`manifest.jsonl`, `manifest.json`, `<name>.manifest.jsonl`, `checksums.json`), a README, a licence
 * or notice (`LICENSE`, `LICENCE.txt`, `COPYING`, `NOTICE`), checksums (`SHA256SUMS`, `MD5SUMS`, `*.sha256`,
 * `*.md5`). Exact names only: `g-manifest.jsonl` or `runs.json` is not one.
 */
const SIDECAR_NAME =
  /^((.+\.)?(manifest|checksums)\.(json|jsonl|ndjson)|(readme|licen[cs]e|copying|notice)(\.[a-z0-9]+)?|(sha(1|256|512)|md5)sums(\.txt)?|.+\.(sha1|sha256|sha512|md5))$/i;

/** Whether a file name is a corpus's sidecar file ({@link SIDECAR_NAME}). */
export function isSidecarName(name: string): boolean {
  return SIDECAR_NAME.test(name);
}

/**
 * The files the given paths stand for, in a deterministic order: each path in the order given; a directory is
 * walked recursively with entries sorted by name (UTF-16 code-unit order, not locale), keeping `*.json`,
 * `*.jsonl` and `*.ndjson` files and skipping names that start with `.`; a file given explicitly is always
 * kept, whatever its extension. Symbolic links are followed, and what they lead to is read once per input path: a
 * directory reached again (a link loop, or a link to a folder walked already) is skipped, and so is a file reached
 * again (a link to a file the walk yields under another name, or two links to one file): the first name met is the
 * one yielded. What was skipped is counted in `opts.relinked` (said once by the reader, {@link Relinked}). Across
 * input paths, a folder or file is yielded once by real identity (`opts.same`, {@link SameFiles}): one reached by a
 * later input path under another name (`in/z in/a` with `in/a -> z`, a link to a file an earlier path yielded) is
 * skipped and counted there (one `read_once` note per pair of input paths); the same name under two input paths
 * (`in/z in/z`, or `in/z in/z/x`) is yielded under both (the reader says so: a `duplicate_input`). A FIFO, socket or device (given, or with a trajectory file's name in a walked folder) is a
 * `read_error`, never opened.
 *
 * With `opts.sidecars`, a walked folder's sidecar files ({@link isSidecarName}: a manifest, a README, a licence,
 * checksums) come too, marked `sidecar` (the others would not be walked): the reader passes them over by name
 * instead of reading them as trajectories or dropping them unsaid. A file given explicitly is never a sidecar.
 *
 * Folders of ipi-judge's own output are passed over whole (`./own-folders.ts`): `opts.labels` (this invocation's
 * `--labels-dir` folder, by real path), a label run folder, an annotation sample folder; each is named in `opts.own`
 * (one note per folder), an input path that is one included (`label` refuses such a path before reading).
 *
 * With `opts.ahead`, a worker thread lists the folders and stats the `*.json` files ahead of the walk (`./walk-ahead.ts`,
 * a resume's read: the system calls on the other core); what it yields is the same, plain `*.json` files carrying
 * their `stat` when it had one.
 *
 * @returns an async generator of `{file, root}` and, for paths that cannot be read, `{error}` (kind `read_error`).
 */
export async function* inputFiles(paths: string[], opts: WalkOptions & { ahead?: boolean } = {}): AsyncGenerator<InputFile | { error: IngestError }> {
  const ahead = opts.ahead ? new WalkAhead(paths, opts.labels === undefined ? undefined : realOrResolved(opts.labels)) : undefined;
  try {
    yield* walkPaths(paths, opts, ahead);
  } finally {
    ahead?.close();
  }
}

/** {@link inputFiles}' options (its docstring). */
export interface WalkOptions {
  sidecars?: boolean;
  relinked?: Relinked;
  same?: SameFiles;
  held?: (file: string) => boolean;
  /** this invocation's `--labels-dir` folder: passed over where a walk meets it (`./own-folders.ts`) */
  labels?: string;
  /** where the own folders passed over are noted */
  own?: OwnFolders;
}

/** {@link inputFiles}' walk of its paths, in order. */
async function* walkPaths(paths: string[], opts: WalkOptions, ahead: WalkAhead | undefined): AsyncGenerator<InputFile | { error: IngestError }> {
  const labels = opts.labels === undefined ? undefined : realOrResolved(opts.labels);
  const same = opts.same ?? new SameFiles();
  // a file linked under two input paths keeps the name a resumed run holds it under, whatever their order
  if (opts.held) same.preferHeld(paths, opts.held);
  const sidecars = opts.sidecars === true;
  for (const [i, p] of paths.entries()) {
    same.recording = i < paths.length - 1; // what the last input path meets, no later one consults
    let st;
    try {
      st = await stat(p);
    } catch (e) {
      yield { error: ingestError("read_error", p, `cannot read input path: ${errText(e)}`) };
      continue;
    }
    if (st.isDirectory()) yield* walk(p, { root: p, dirs: new Map(), links: new Set(), sidecars, relinked: opts.relinked, same, ahead, labels, own: opts.own }, undefined, true);
    else if (st.isFile()) {
      if (!givenAgain(same, p, sidecars)) yield { file: p, root: p };
    } else yield { error: notRegular(p) };
  }
}

/** Whether a file given as an input path was yielded already under another name by an earlier input path ({@link SameFiles.fileAgain}). */
function givenAgain(same: SameFiles, p: string, sidecars: boolean): boolean {
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    return false; // the read reports it
  }
  return same.fileAgain(real, p, p, (name) => kept(name, sidecars));
}

/**
 * The error for a FIFO, socket or device where a trajectory file was expected: it is not opened (opening a FIFO
 * with no writer blocks the thread for good, and no signal handler can run then).
 */
export function notRegular(p: string): IngestError {
  return ingestError("read_error", p, "not a regular file (a FIFO, socket or device): not read");
}

/** One input path's walk: what it has met so far (link safety and the dedupe of linked files). */
interface WalkState {
  root: string;
  /**
   * Real path of each directory entered -> the name of the entry being yielded in it now (entries go in sorted
   * order, so a name sorting before it was yielded already), or null once it is done.
   */
  dirs: Map<string, string | null>;
  /** Real paths of the files yielded through a symbolic link to a file (few: a file met plainly later is skipped). */
  links: Set<string>;
  sidecars: boolean;
  relinked?: Relinked;
  /** what the read met across all its input paths (real identity) */
  same: SameFiles;
  /** listings and stats read ahead (`./walk-ahead.ts`), of the folders `walk` is told are `listed` ahead */
  ahead?: WalkAhead;
  /** the real path of this invocation's `--labels-dir` folder (`WalkOptions.labels`) */
  labels?: string;
  own?: OwnFolders;
}

/** Whether a walked folder keeps a file of this name (what the walk yields from a directory listing). */
function kept(name: string, sidecars: boolean): boolean {
  return !name.startsWith(".") && ((sidecars && isSidecarName(name)) || JSON_EXT.test(name) || JSONL_EXT.test(name) || EVAL_EXT.test(name) || TRAJ_EXT.test(name));
}

/** Whether the walk yielded the file of real path `real` already, under its own name in a folder walked (or being walked). */
function walkedAlready(state: WalkState, real: string): boolean {
  const at = state.dirs.get(path.dirname(real));
  if (at === undefined) return false;
  const name = path.basename(real);
  return kept(name, state.sidecars) && (at === null || name < at);
}

/**
 * Walk one directory. `real` is its real path when known (a plain sub-directory of a directory whose real path
 * is known has real path `real(parent)/name`, so only the root and directories reached through a symbolic link
 * cost a `realpath`, and only files that are links themselves cost one); `state.dirs` holds the real paths walked
 * so far (link-loop safety). Directory reads are synchronous (`readdirSync`): one directory listing is far cheaper
 * than a promise round trip per entry; so is the walk itself (a plain generator: no promise per file and folder
 * level, issue 26). `ahead`: whether `state.ahead`'s worker lists this folder (an input path, or a plain sub-folder of
 * a folder it lists: it follows no link), its listing then taken from there when it has it.
 */
function* walk(dir: string, state: WalkState, real: string | undefined, ahead: boolean): Generator<InputFile | { error: IngestError }> {
  const { root, sidecars } = state;
  let names: { name: string; dir: boolean; link: boolean; special?: boolean; sidecar?: boolean }[];
  let realDir: string;
  let marked = false; // holds a file named as ipi-judge's own output's (./own-folders.ts)
  try {
    realDir = real ?? realpathSync(dir);
    if (state.dirs.has(realDir)) {
      state.relinked?.add(root, "folders");
      return;
    }
    if (state.same.folderAgain(realDir, dir, root)) return; // walked by an earlier input path under another name
    if (realDir === state.labels) {
      state.own?.add(root, dir, "labels"); // ipi-judge's own output (./own-folders.ts)
      return;
    }
    state.dirs.set(realDir, "");
    names = [];
    const listed: Entry[] | undefined = ahead ? state.ahead?.listing(dir) : undefined;
    for (const ent of listed ?? readdirSync(dir, { withFileTypes: true })) {
      if (ent.name.startsWith(".")) continue;
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      const link = ent.isSymbolicLink();
      if (link) {
        try {
          const s = statSync(path.join(dir, ent.name));
          isDir = s.isDirectory();
          isFile = s.isFile();
        } catch {
          isFile = true; // a dangling link: let the read report it
        }
      }
      const sidecar = sidecars && isSidecarName(ent.name);
      if (isDir) names.push({ name: ent.name, dir: true, link });
      else if (kept(ent.name, sidecars)) {
        names.push({ name: ent.name, dir: false, link, special: !isFile, sidecar });
        marked ||= isFile && ownMarkerName(ent.name);
      }
    }
  } catch (e) {
    yield { error: ingestError("read_error", dir, `cannot read directory: ${errText(e)}`) };
    return;
  }
  if (marked && ownFolder(dir, state, realDir, names)) return;
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const linkedDir = realDir !== path.resolve(dir); // reached through a link: its files' real paths differ from their names
  for (const n of names) {
    state.dirs.set(realDir, n.name);
    // = path.join(dir, n.name): a sub-folder's name was made by path.join (normalized), an entry's name is no `.`,
    // `..` nor holds a separator; only an input path as given needs normalizing
    const full = dir === root ? path.join(dir, n.name) : dir + path.sep + n.name;
    if (n.dir) yield* walk(full, state, n.link ? undefined : path.join(realDir, n.name), ahead && !n.link);
    else if (n.special) yield { error: notRegular(full) };
    else if (n.link ? linkedAgain(state, full) : state.links.size > 0 && state.links.has(path.join(realDir, n.name))) state.relinked?.add(root, "files");
    else if (n.link ? linkedAcross(state, full) : state.same.files.size > 0 && state.same.plainAgain(path.join(realDir, n.name), full, root)) continue; // noted by state.same
    else {
      const f: InputFile = n.sidecar ? { file: full, root, sidecar: true } : { file: full, root };
      const real = n.link ? realOf(full) : linkedDir ? path.join(realDir, n.name) : undefined;
      if (real !== undefined) f.real = real;
      if (ahead && !n.link && state.ahead !== undefined && JSON_EXT.test(n.name)) {
        const st = state.ahead.stat(full);
        if (st !== undefined) f.stat = st;
      }
      yield f;
    }
  }
  state.dirs.set(realDir, null);
}

/** Whether a walked folder is a label run or an annotation sample folder (`./own-folders.ts`): then noted and done. */
function ownFolder(dir: string, state: WalkState, realDir: string, names: readonly { name: string; dir: boolean; special?: boolean }[]): boolean {
  const kind = ownKindOf(dir, new Set(names.filter((n) => !n.dir && !n.special).map((n) => n.name)));
  if (kind === undefined) return false;
  state.own?.add(state.root, dir, kind);
  state.dirs.set(realDir, null);
  return true;
}

/** The real path of a file, or undefined when it cannot be had (the read reports it). */
function realOf(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Whether a symbolic link to a file leads to a file an earlier input path yielded already under another name
 * ({@link SameFiles.fileAgain}, which notes it); a link whose real path cannot be had is never skipped.
 */
function linkedAcross(state: WalkState, link: string): boolean {
  let real: string;
  try {
    real = realpathSync(link);
  } catch {
    return false;
  }
  return state.same.fileAgain(real, link, state.root, (name) => kept(name, state.sidecars));
}

/**
 * Whether a symbolic link to a file leads to a file this walk yielded already ({@link walkedAlready}, or through
 * another link); if not, its real path is noted so that the file met later under its own name is skipped. A link
 * whose real path cannot be had (dangling, a loop) is never skipped: the read reports it.
 */
function linkedAgain(state: WalkState, link: string): boolean {
  let real: string;
  try {
    real = realpathSync(link);
  } catch {
    return false;
  }
  if (state.links.has(real) || walkedAlready(state, real)) return true;
  state.links.add(real);
  return false;
}

/**
 * What the walks of one read met again through symbolic links and did not yield twice ({@link inputFiles}), per
 * input path: said once per input path at the end of the read, as a note of kind {@link LINKED_TWICE} (not a
 * warning: nothing is lost, each file is read once).
 */
export class Relinked {
  private readonly byRoot = new Map<string, { files: number; folders: number }>();

  add(root: string, what: "files" | "folders"): void {
    let c = this.byRoot.get(root);
    if (!c) this.byRoot.set(root, (c = { files: 0, folders: 0 }));
    c[what]++;
  }

  /** One note per input path: "N files and M folders reached twice through symbolic links, read once". */
  warnings(): IngestWarning[] {
    const out: IngestWarning[] = [];
    for (const [root, c] of this.byRoot) {
      const parts = [c.files > 0 ? `${c.files} file${c.files === 1 ? "" : "s"}` : "", c.folders > 0 ? `${c.folders} folder${c.folders === 1 ? "" : "s"}` : ""].filter(Boolean);
      out.push({
        kind: LINKED_TWICE,
        path: root,
        message: `${root}: ${parts.join(" and ")} reached twice through symbolic links (a link to a file or folder walked already, or a link loop), read once`,
        count: c.files + c.folders,
      });
    }
    this.byRoot.clear();
    return out;
  }
}

/** Kind of the note that says what was reached twice through symbolic links ({@link Relinked}). */
export const LINKED_TWICE = "linked_twice";

export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** {@link PathTable}'s folder number of a key slot never set, and of one whose path is the `same` table's. */
const UNSET = -2;
const SAME = -1;

/**
 * Path strings held per file for a whole read, compactly (issue 26: a million resolved paths were ~700 bytes each,
 * then ~200 bytes with a `Map` entry and two strings): a key (a trajectory id) is a slot of an {@link IdSlots}
 * (UTF-8 bytes, exact: `../store/id-slots.ts`), which several tables of one read share, so an id is held once; a
 * path is its folder, interned (files share few folders), plus the rest (the file name, and `:line` for a JSON
 * Lines row) as UTF-8 bytes; a path `<root>/<id>.json` (an AgentDojo layout run) is its root, interned, and a one-byte
 * mark (`../store/file-names.ts`). {@link get} gives back exactly the string {@link set} was given.
 *
 * A table may name another one over the same key slots as its `same` table: a key set here to exactly the path the
 * `same` table holds for it is then kept as a one-byte mark, its path read from there (the read's `seen` table gives
 * most ids the path its `firstFile` table holds; at a million files that copy was ~55 MB of folders and file names).
 * The `same` table's path for a marked key must not change afterwards: {@link set} there throws instead.
 */
export class PathTable<K extends string = string> {
  /** folder strings by number (shared with the run store's interned strings when given: a folder then held once) */
  private readonly folders: Interner;
  /** per key slot: its path's folder number, {@link SAME} (the `same` table's path), or {@link UNSET} */
  private readonly folderOf = new IntColumn(UNSET);
  /** per key slot: the rest of its path after its folder (a one-byte mark for a path `<root>/<id>.json`: `../store/file-names.ts`) */
  private readonly rest = new FileNames();
  private readonly idOf = (slot: number): string => this.keys.id(slot);
  /** whether a table marks keys as "same as this one's" (their paths here are then set once) */
  private pointedTo = false;

  private readonly same?: PathTable<K>;

  /**
   * @param keys the key slots (share one between the tables of a read: an id is then held once).
   * @param opts `same`: a table over the same `keys` whose path a key here often repeats (class docstring);
   *   `folders`: where folder strings are interned (append-only: a code's string never changes), e.g. the run store's
   *   (`RunStore.internedStrings`), so that a folder both hold is held once; default a table's own.
   * @throws Error when `same` has other key slots.
   */
  constructor(
    private readonly keys: IdSlots = new IdSlots(),
    opts: { same?: PathTable<K>; folders?: Interner } = {},
  ) {
    const same = (this.same = opts.same);
    this.folders = opts.folders ?? new Interner();
    if (same !== undefined) {
      if (same.keys !== keys) throw new Error("PathTable: a `same` table must share the key slots");
      same.pointedTo = true;
    }
  }

  /** @throws Error when another table marks keys as this one's and `key`'s path here is set already (it would change theirs). */
  set(key: K, p: string): void {
    this.setSlot(this.keys.slot(key), key, p);
  }

  /** {@link set} for the key of a slot of the table's key slots ({@link slotOf}); `key` is its id. @throws as {@link set}. */
  setSlot(slot: number, key: K, p: string): void {
    if (this.pointedTo && this.folderOf.get(slot) !== UNSET) throw new Error(`PathTable: the path of "${key}" is read through another table and cannot change`);
    if (this.same !== undefined && this.same.at(slot) === p) {
      this.folderOf.set(slot, SAME);
      return;
    }
    const [folder, rest] = splitPath(key, p, path.sep);
    this.folderOf.set(slot, this.folders.code(folder));
    this.rest.set(slot, rest);
  }

  get(key: K): string | undefined {
    const slot = this.keys.find(key);
    return slot === -1 ? undefined : this.at(slot);
  }

  /**
   * The slot of `key` in the table's key slots: `known` when it is a slot of `slots` and those are the table's (a
   * caller that looked the id up there already), else looked up (-1: no table over these slots holds it).
   */
  slotOf(key: K, known?: { slot: number; slots: IdSlots }): number {
    return known !== undefined && known.slots === this.keys ? known.slot : this.keys.find(key);
  }

  /** Whether the key of this slot (of the table's key slots) has a path here. */
  hasSlot(slot: number): boolean {
    return this.folderOf.get(slot) !== UNSET;
  }

  has(key: K): boolean {
    const slot = this.keys.find(key);
    return slot !== -1 && this.folderOf.get(slot) !== UNSET;
  }

  /** The path of a key slot, or undefined when not set. */
  private at(slot: number): string | undefined {
    const f = this.folderOf.get(slot);
    if (f === UNSET) return undefined;
    return f === SAME ? this.same!.at(slot) : this.folders.value(f) + this.rest.get(slot, this.idOf);
  }
}

/**
 * For a pass over the input files that a signal may stop (`countInputs`): every 64th file, a turn of the event loop
 * (the files are read without one, so a Ctrl-C's handler would not run before the pass ends), then whether `signal`
 * was aborted. @param files the files passed so far (1-based). @returns true when the pass should stop.
 */
export async function signalTurn(signal: AbortSignal | undefined, files: number): Promise<boolean> {
  if (!signal) return false;
  if (files % 64 === 0) await new Promise<void>((ok) => setImmediate(ok));
  return signal.aborted;
}
