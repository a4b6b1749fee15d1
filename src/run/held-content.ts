/**
 * Whether a stored trajectory's input file still holds the content it was stored with, for `./moved-content.ts`: a
 * new id whose content is stored under an id whose file is there is a copy of it (judged) only while that file still
 * holds it; two folders whose names were swapped leave each stored id's file holding the other's content, and then the
 * new id is that trajectory moved (its verdicts carried, never paid again; recover42: each was judged again).
 *
 * The rule, cheapest first, per stored slot:
 * - read by this invocation with other content (its content code is not the one it had when the run was opened): not held;
 * - a file the run recorded without a stamp (`../store/file-stamp.ts`: a multi-item file, a run whose injected text
 *   came from other files, an older reader's row): cannot tell cheaply, taken as held (a copy, judged as before);
 * - the file's stamp (size, mtime, ctime) is the one recorded: held (a rename or a write sets the ctime);
 * - else the one file is read again as the stamp's reader read it (stamped rows were read with no read option,
 *   `./fast-resume.ts` `stampsAllowed`, and record their injected text themselves) and its content hash compared:
 *   held when equal; a file that no longer reads as one trajectory is taken as held (cannot tell).
 *
 * - a line of a multi-item file (a chat-JSONL row without an id, stored as `<file>:<line>`; break54 #3: deleting one
 *   row moved every later row up one line, each re-judged and paid again, 0 of 37 carried): held when that line of
 *   the file holds the stored content now. The file is read once and each line's content code kept
 *   ({@link lineCodes}); asked before the read reaches the line, so a shift is seen in any order.
 *
 * Cost: one `stat` per slot asked (memoized, bounded), one read of a one-trajectory file per stamped slot whose stamp
 * changed; one read of a multi-item file whose line is asked (4 bytes per line held, the last few files only); never a
 * read of other inputs.
 */
import fs from "node:fs";
import { readTrajectories } from "../ingest/index.js";
import { contentSha256 } from "../io/hash.js";
import { STAMP_READER_VERSION } from "../store/file-stamp.js";
import type { RunStore } from "../store/run-store.js";

/** Most slots whose answer is remembered at once (then forgotten and asked again). */
const MEMO_MAX = 4096;

/** Most multi-item files whose line codes are held at once. */
const LINE_FILES_MAX = 4;

/** Answers whether a stored slot's file still holds its stored content (module docstring). */
export class HeldContent {
  private readonly memo = new Map<number, boolean>();
  /** per multi-item file read: the content code (`hashes.pool`, -1 unknown) of the item on each line, by line */
  private readonly lines = new Map<string, Int32Array>();

  /**
   * @param store the run's store; `openCodes` the content code of each slot stored when this invocation opened the
   *   run (`hashes.code`, -1: none), taken before the read began.
   */
  constructor(
    private readonly store: RunStore,
    private readonly openCodes: Int32Array,
  ) {}

  /** Whether `slot` was read by this invocation with content other than it was stored with. */
  reread(slot: number): boolean {
    return slot < this.openCodes.length && this.store.hashes.code(slot) !== this.openCodes[slot];
  }

  /**
   * Whether `file` (the slot's recorded input file, which exists) may hold other content than the slot was stored
   * with: read again with other content, or stamped and its stamp changed. Cheap (a `stat`): the verdict read keeps
   * such slots' verdicts, the only ones {@link holds} can let be carried.
   */
  mayHaveChanged(slot: number, file: string): boolean {
    if (this.reread(slot)) return true;
    if (!this.store.holdsFile(file)) return false;
    return !this.sameStamp(slot, file);
  }

  /**
   * Whether `file` (the slot's recorded input file, which exists) still holds the content the slot was stored with
   * (module docstring; true also when it cannot be told).
   * @throws never: an unreadable file is "cannot tell".
   */
  async holds(slot: number, file: string): Promise<boolean> {
    let h = this.memo.get(slot);
    if (h === undefined) {
      h = await this.decide(slot, file);
      if (this.memo.size >= MEMO_MAX) this.memo.clear();
      this.memo.set(slot, h);
    }
    return h;
  }

  /**
   * For a slot stored from a line of a multi-item file (`line` from its source `<file>:<line>`): whether that line
   * holds the slot's stored content now (module docstring); undefined for a slot stored from a whole file.
   */
  async lineHolds(slot: number, file: string, line: number | undefined): Promise<boolean | undefined> {
    if (line === undefined || slot >= this.openCodes.length) return undefined;
    const codes = await this.lineCodes(file);
    return line < codes.length && codes[line] !== -1 && codes[line] === this.openCodes[slot];
  }

  /** The content code of the item on each line of `file` (read once; an unreadable file: none known). */
  private async lineCodes(file: string): Promise<Int32Array> {
    let codes = this.lines.get(file);
    if (codes) return codes;
    const found: number[] = [];
    try {
      for await (const item of readTrajectories([file], {})) {
        if (item.kind !== "trajectory") continue;
        const line = item.trajectory.source.line;
        if (line === undefined) continue;
        while (found.length <= line) found.push(-1);
        found[line] = this.store.hashes.pool.find(contentSha256(item.trajectory));
      }
    } catch {
      found.length = 0;
    }
    if (this.lines.size >= LINE_FILES_MAX) this.lines.clear();
    this.lines.set(file, (codes = Int32Array.from(found)));
    return codes;
  }

  private async decide(slot: number, file: string): Promise<boolean> {
    if (this.reread(slot)) return false;
    const line = lineOf(this.store.trajectorySource(this.store.idSlots.id(slot)));
    const byLine = await this.lineHolds(slot, file, line);
    if (byLine !== undefined) return byLine;
    if (!this.store.holdsFile(file) || this.sameStamp(slot, file)) return true;
    const stored = this.store.hashes.get(slot);
    let found: string | undefined;
    let n = 0;
    try {
      for await (const item of readTrajectories([file], {})) {
        if (item.kind !== "trajectory") continue;
        n++;
        found = contentSha256(item.trajectory);
      }
    } catch {
      return true;
    }
    return n !== 1 || found === stored;
  }

  private sameStamp(slot: number, file: string): boolean {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return false;
    }
    const hit = this.store.unchangedFile(file, { reader: STAMP_READER_VERSION, size: st.size, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs }, file);
    return hit?.slot === slot;
  }
}

/** The line of a stored source `<file>:<line>`, or undefined for a whole file. */
export function lineOf(source: string | undefined): number | undefined {
  const m = source === undefined ? null : /:(\d+)$/.exec(source);
  return m ? Number(m[1]) : undefined;
}
