/**
 * The resume fast path's record of input files (issue 26): per trajectory slot, the stamp (size in bytes,
 * modification and status-change times in ms, `fs.Stats.size` / `mtimeMs` / `ctimeMs`) of the one-item input file its
 * latest index row was read from (the row's optional `file_stamp`), and an exact index from that file's resolved
 * path to the slot.
 *
 * The rule it serves (`RunStore.unchangedFile`, docs/label.md "resume"): a file whose resolved path, size, mtime and ctime
 * equal those recorded is taken as unchanged without being read. The ctime is what makes it safe: the system sets it
 * on every write, rename, copy or extraction, and no user tool sets it back, so a rewrite that keeps size and mtime
 * (`touch -d`, `cp -p`, `rsync -a`, `tar -x`, two files swapped by `mv`) is read. Its limit: a file system that does
 * not keep a real ctime (some network and FUSE mounts report the mtime), or a clock set back; `label
 * --verify-content` turns the fast path off (every file read and its content hash compared).
 *
 * Memory: three float columns and one int column per slot, plus an open-addressing table of slots (Int32Array, load
 * <= 1/2); no path string is held here (the store's own source columns give a slot's path back, compared exactly).
 */
import { FloatColumn, IntColumn } from "./compact.js";

/** One warning the read of a file raised (the reader's `ItemWarning`: kind, scope, message, item?, variant?). */
export interface StampWarning {
  kind: string;
  scope: string;
  message: string;
  item?: string;
  variant?: string;
}

/**
 * The version of the input readers a stamp was recorded under. A stamp of another version is not trusted (the file is
 * read and its content hash decides), so an upgrade whose converters read a file differently re-reads every file
 * once instead of passing it over. Bump it whenever any converter under `src/ingest/` changes what a file reads as.
 */
export const STAMP_READER_VERSION = 3; // 3: the stamp holds the file's ctime too (a size- and mtime-preserving rewrite, copy or swap was taken as unchanged); 2: runs that record no injected text are no longer stamped (their text comes from other files); stamps of 1 may cover one

/** A file's stamp as recorded in an index row (`file_stamp`). */
export interface FileStamp {
  /** {@link STAMP_READER_VERSION} when it was recorded (absent: not trusted) */
  reader?: number;
  /** bytes (`fs.Stats.size`) */
  size: number;
  /** modification time, ms since the epoch (`fs.Stats.mtimeMs`, fractional) */
  mtime_ms: number;
  /**
   * status-change time, ms since the epoch (`fs.Stats.ctimeMs`): set by the system on every write, rename, `touch`,
   * copy or extraction and settable by no user tool, so a file rewritten or moved with its size and mtime kept
   * (`cp -p`, `rsync -a`, `tar -x`, `touch -d`, two files swapped by `mv`) does not match
   */
  ctime_ms: number;
  /** the warnings its read raised, in order (said again when a resume passes the file over) */
  warnings?: StampWarning[];
}

const isWarning = (w: unknown): boolean => {
  if (typeof w !== "object" || w === null) return false;
  const x = w as Record<string, unknown>;
  return typeof x.kind === "string" && typeof x.scope === "string" && typeof x.message === "string" && ["item", "variant", "file"].every((k) => x[k] === undefined || typeof x[k] === "string");
};

/** A value read from a journal line that is a usable stamp (this {@link STAMP_READER_VERSION}, finite non-negative size, finite mtime, well-formed warnings), else undefined. */
export function stampOf(v: unknown): FileStamp | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const { size, mtime_ms, ctime_ms, warnings, reader } = v as Record<string, unknown>;
  if (reader !== STAMP_READER_VERSION) return undefined;
  if (typeof size !== "number" || !Number.isFinite(size) || size < 0) return undefined;
  if (typeof mtime_ms !== "number" || !Number.isFinite(mtime_ms)) return undefined;
  if (typeof ctime_ms !== "number" || !Number.isFinite(ctime_ms)) return undefined;
  if (warnings === undefined) return { reader, size, mtime_ms, ctime_ms };
  if (!Array.isArray(warnings) || !warnings.every(isWarning)) return undefined;
  return { reader, size, mtime_ms, ctime_ms, warnings: warnings as StampWarning[] };
}

/** Most distinct warning lists held (with the file's own path taken out); a slot past it keeps no stamp (its file is read). */
export const STAMP_WARNING_LISTS_MAX = 10_000;
/** Stands for the file's path in a held warning list (JSON text; a path holds no NUL). */
const FILE = "\\u0000FILE\\u0000";
/** A string as it appears inside JSON text (without the quotes). */
const inJson = (x: string) => JSON.stringify(x).slice(1, -1);

/** 32-bit FNV-1a of a string's UTF-16 units (a table probe start, never trusted alone). */
function hashPath(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The recorded stamps by slot and the path -> slot index (module docstring). */
export class FileStamps {
  private readonly size = new FloatColumn();
  private readonly mtime = new FloatColumn();
  private readonly ctime = new FloatColumn();
  /** per slot: the path hash it is indexed under, -1 = not indexed (no stamp) */
  private readonly pathHash = new IntColumn();
  /** per slot: 1 when its row is an AgentDojo layout run (the reader's id-collision rule needs to know) */
  private readonly layout = new IntColumn(0);
  /** per slot: its warning list (-1 = none), a JSON text with the file's path as {@link FILE}, shared by code */
  private readonly said = new IntColumn();
  private readonly lists: string[] = [];
  private readonly listCodes = new Map<string, number>();
  /** open addressing: slot + 1, 0 = empty, -1 = deleted */
  private table = new Int32Array(1024);
  private used = 0;

  /**
   * @param pathOf the resolved path (no line) of a slot's latest row, as the store holds it (compared exactly).
   */
  constructor(private readonly pathOf: (slot: number) => string | undefined) {}

  /**
   * Record (or, with `stamp` undefined, forget) the stamp of `slot`, whose row was read from `file` (resolved;
   * `named`: the row's `source.path`, as the read named it); `layout`: the row is an AgentDojo layout run
   * (`source.format` agentdojo with `metadata.model_dir`).
   */
  set(slot: number, file: string, stamp: FileStamp | undefined, named = file, layout = false): void {
    this.remove(slot);
    if (stamp === undefined) return;
    let code = -1;
    if (stamp.warnings?.length) {
      const json = JSON.stringify(stamp.warnings);
      if (json.includes(FILE)) return; // the stand-in already in the text: not held (the file is read)
      const text = json.split(inJson(named)).join(FILE);
      code = this.listCodes.get(text) ?? -1;
      if (code === -1) {
        if (this.lists.length >= STAMP_WARNING_LISTS_MAX) return;
        code = this.lists.push(text) - 1;
        this.listCodes.set(text, code);
      }
    }
    this.said.set(slot, code);
    this.layout.set(slot, layout ? 1 : 0);
    this.size.set(slot, stamp.size);
    this.mtime.set(slot, stamp.mtime_ms);
    this.ctime.set(slot, stamp.ctime_ms);
    const h = hashPath(file);
    this.pathHash.set(slot, h | 0);
    if (2 * (this.used + 1) > this.table.length) this.rehash();
    this.insert(h, slot);
  }

  /**
   * The slot whose recorded file is `file` (resolved) with this stamp, or -1. Two slots recorded for one path (a
   * stale row left by another id) give -1: the file is read.
   */
  find(file: string, stamp: FileStamp): number {
    const h = hashPath(file);
    const mask = this.table.length - 1;
    let found = -1;
    for (let i = h & mask; this.table[i] !== 0; i = (i + 1) & mask) {
      const slot = this.table[i] - 1;
      if (slot < 0 || (this.pathHash.get(slot) | 0) !== (h | 0) || this.pathOf(slot) !== file) continue;
      if (found !== -1) return -1;
      found = slot;
    }
    if (found === -1) return -1;
    return this.size.get(found) === stamp.size && this.mtime.get(found) === stamp.mtime_ms && this.ctime.get(found) === stamp.ctime_ms ? found : -1;
  }

  /**
   * Whether a row about to be passed over as the same (content and reference unchanged) should be written again to
   * renew its file's stamp: `stamp` (the row's `file_stamp`) is usable and `file` (the row's source, resolved) is the
   * file `slot` was recorded from, with another size, mtime or ctime, or with no stamp held (an older reader's).
   * Without it a file whose ctime changed while its content did not (`chmod`, a hard link made or removed, `cp -al`
   * of the tree) was read again on every later resume: the held stamp never matched and was never replaced (task s40).
   */
  renews(slot: number, file: string, stamp: unknown): boolean {
    const s = stampOf(stamp);
    if (s === undefined || this.pathOf(slot) !== file) return false;
    return !(this.size.get(slot) === s.size && this.mtime.get(slot) === s.mtime_ms && this.ctime.get(slot) === s.ctime_ms);
  }

  /** Whether any slot is recorded (with a stamp) as read from `file` (resolved). */
  holds(file: string): boolean {
    const h = hashPath(file);
    const mask = this.table.length - 1;
    for (let i = h & mask; this.table[i] !== 0; i = (i + 1) & mask) {
      const slot = this.table[i] - 1;
      if (slot >= 0 && (this.pathHash.get(slot) | 0) === (h | 0) && this.pathOf(slot) === file) return true;
    }
    return false;
  }

  /** The warnings recorded for `slot`'s file, naming the file as `named` (the walk's name for it now); [] when none. */
  warningsOf(slot: number, named: string): StampWarning[] {
    const code = this.said.get(slot);
    return code === -1 ? [] : (JSON.parse(this.lists[code].split(FILE).join(inJson(named))) as StampWarning[]);
  }

  /** Whether the row of `slot` is an AgentDojo layout run (as recorded by {@link set}). */
  isLayout(slot: number): boolean {
    return this.layout.get(slot) === 1;
  }

  private remove(slot: number): void {
    const h = this.pathHash.get(slot);
    if (h === -1 && Number.isNaN(this.size.get(slot))) return;
    this.pathHash.set(slot, -1);
    this.size.set(slot, NaN);
    this.mtime.set(slot, NaN);
    this.ctime.set(slot, NaN);
    const mask = this.table.length - 1;
    for (let i = (h >>> 0) & mask; this.table[i] !== 0; i = (i + 1) & mask) {
      if (this.table[i] === slot + 1) {
        this.table[i] = -1;
        return;
      }
    }
  }

  private insert(h: number, slot: number): void {
    const mask = this.table.length - 1;
    let i = h & mask;
    while (this.table[i] > 0) i = (i + 1) & mask;
    if (this.table[i] === 0) this.used++;
    this.table[i] = slot + 1;
  }

  private rehash(): void {
    const old = this.table;
    let live = 0;
    for (const v of old) if (v > 0) live++;
    let n = old.length;
    while (2 * (live + 1) > n) n *= 2; // load <= 1/2 (it was <= 1/4: 16.8 MB of table at a million stamps, now 8.4)
    this.table = new Int32Array(n);
    this.used = 0;
    for (const v of old) if (v > 0) this.insert(this.pathHash.get(v - 1) >>> 0, v - 1);
  }
}
