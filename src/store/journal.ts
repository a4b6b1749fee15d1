import fs from "node:fs";
import { noteTornTailCut } from "./skipped-lines.js";

/** What a store write error says by default: what is kept and what to do. */
const KEPT_AND_RESUME =
  "Everything written before this point is kept (the records waiting to be written with it, at most the last moment's, are not: they are judged again); fix it and run the same command again to resume.";

/** Thrown when the store cannot write; what was written before stays on disk. */
export class StoreWriteError extends Error {
  /**
   * @param file the file (or folder) that could not be written.
   * @param after what is true at that point and what to do (a sentence); default: what was written before is kept
   *   and the same command resumes (a journal write). The run's lock, the batch path's files say their own.
   */
  constructor(
    public readonly file: string,
    cause: NodeJS.ErrnoException,
    after: string = KEPT_AND_RESUME,
  ) {
    const why =
      cause.code === "ENOSPC"
        ? "no space left on device"
        : cause.code === "EFBIG"
          ? "file too large (a file-size limit)"
          : cause.code === "EACCES" || cause.code === "EPERM"
            ? "permission denied"
            : cause.code === "EROFS"
              ? "read-only file system"
              : cause.message;
    super(`cannot write ${file}: ${why}. ${after}`);
    this.name = "StoreWriteError";
  }
}

/** Characters of pending lines past which {@link Journal.append} writes them at once (~64 KB). */
const FLUSH_CHARS = 64 * 1024;

/** Journals with lines not yet written: written by a process `exit` (a `process.exit` call, a second Ctrl-C). */
const unwritten = new Set<Journal<unknown>>();
let exitHook = false;

/** What a journal writes first and how it writes ({@link Journal.open}). */
export interface JournalOptions {
  /** Journals whose pending lines reach the disk before any of this one's (e.g. index rows before their verdicts). */
  after?: Journal<unknown>[];
  /** Write each line as it is appended (after the {@link after} journals' pending lines): a journal of rare records. */
  writeThrough?: boolean;
}

/**
 * An append-only JSON Lines file. Appended lines are written in order, several at a time (issue 26: one `write(2)`
 * per line was the main thread's largest store cost): when ~64 KB are pending, at the end of the event-loop turn
 * they were appended in (`setImmediate`), and on {@link flush}, {@link sync}, {@link close} and a process `exit`; so
 * a record reaches the file no later than the end of the turn that stored it. A killed process leaves whole lines
 * and at most one partial last line, which `open` cuts off before appending again. A journal opened with `after`
 * writes those journals' pending lines before its own (a verdict never reaches the disk before its index row).
 */
export class Journal<T> {
  private fd: number;
  private pending: string[] = [];
  private pendingChars = 0;
  private scheduled = false;
  /**
   * The first write that failed: its lines are dropped, so nothing later is written to this journal (nor to one
   * written after it): thrown again by every append and flush and by close (one that failed at the end of a turn, by the next).
   */
  private failed: StoreWriteError | null = null;
  private constructor(
    public readonly file: string,
    fd: number,
    private readonly opts: JournalOptions,
  ) {
    this.fd = fd;
  }

  /**
   * Open (creating if needed) a journal; a partial last line left by a killed writer is removed.
   * @throws StoreWriteError when the file cannot be opened for appending.
   */
  static open<T>(file: string, opts: JournalOptions = {}): Journal<T> {
    try {
      if (fs.existsSync(file)) repairTail(file);
      return new Journal<T>(file, fs.openSync(file, "a"), opts);
    } catch (e) {
      throw new StoreWriteError(file, e as NodeJS.ErrnoException);
    }
  }

  /**
   * Append one record: written with the lines pending (see the class). A record `JSON.stringify` rejects throws
   * here and nothing of it is kept.
   * @throws StoreWriteError (disk full, permissions) of this write or of a pending one that failed at the end of a turn.
   */
  append(rec: T): void {
    if (this.failed) throw this.failed;
    const line = JSON.stringify(rec) + "\n";
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.opts.writeThrough || this.pendingChars >= FLUSH_CHARS) return this.flush();
    if (this.pending.length === 1) {
      if (!exitHook) {
        exitHook = true;
        process.on("exit", flushAllAtExit);
      }
      unwritten.add(this as Journal<unknown>);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    try {
      this.flush();
    } catch (e) {
      if (!(e instanceof StoreWriteError)) throw e;
      // kept in `failed` (this journal's or the one written before it): thrown by the next append
      this.failed ??= e;
    }
  };

  /**
   * Write the pending lines now (those of the `after` journals first).
   * @throws StoreWriteError (disk full, permissions; a failed write drops the lines it held).
   */
  flush(): void {
    for (const j of this.opts.after ?? []) j.flush();
    if (this.failed) throw this.failed;
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0] : this.pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    unwritten.delete(this as Journal<unknown>);
    try {
      // written as a string (no Buffer per write); a short write (rare on a regular file) goes on from where it
      // stopped, as bytes (counted once per write of many lines, not per line)
      const n = fs.writeSync(this.fd, text);
      if (n < Buffer.byteLength(text, "utf8")) {
        const buf = Buffer.from(text, "utf8");
        let off = n;
        while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
      }
    } catch (e) {
      this.failed = new StoreWriteError(this.file, e as NodeJS.ErrnoException);
      throw this.failed;
    }
  }

  /** Write the pending lines and flush to disk (fsync). @throws StoreWriteError when the lines cannot be written. */
  sync(): void {
    if (this.fd === -1) return;
    this.flush();
    try {
      fs.fsyncSync(this.fd);
    } catch {
      /* fsync is best-effort (some file systems refuse it) */
    }
  }

  /**
   * Write the pending lines and close the file (once; a second call does nothing).
   * @throws StoreWriteError when the pending lines cannot be written (the file is closed all the same).
   */
  close(): void {
    if (this.fd === -1) return;
    try {
      this.flush();
    } finally {
      this.pending = [];
      unwritten.delete(this as Journal<unknown>);
      try {
        fs.closeSync(this.fd);
      } catch {
        /* already closed */
      }
      this.fd = -1;
    }
  }
}

/**
 * Sync journals in order (see {@link Journal.sync}), each tried even when one before it failed.
 * @returns the first failure (a StoreWriteError), or null.
 */
export function syncJournals(journals: (Journal<unknown> | undefined)[]): unknown {
  let first: unknown = null;
  for (const j of journals) {
    try {
      j?.sync();
    } catch (e) {
      first ??= e;
    }
  }
  return first;
}

/** Close journals (see {@link Journal.close}); a failure to write is not thrown (take it from {@link syncJournals} first). */
export function closeJournals(journals: (Journal<unknown> | undefined)[]): void {
  for (const j of journals) {
    try {
      j?.close();
    } catch {
      /* reported by syncJournals */
    }
  }
}

/** Write every journal's pending lines as the process exits (a write that fails then cannot be reported: skipped). */
function flushAllAtExit(): void {
  for (const j of [...unwritten]) {
    try {
      j.flush();
    } catch {
      /* exiting: nothing left to tell */
    }
  }
}

/** The longest last line without a newline checked for a whole record (longer: cut as before). */
const MAX_WHOLE_TAIL = 64 << 20;

/** Whether bytes are one JSON object (a prefix of a record's line never is: its closing brace comes last). */
function isWholeRecord(b: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(b.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Cut a trailing partial line (no final newline) left by a killed writer, however long it is; end a whole one. */
function repairTail(file: string): void {
  const size = fs.statSync(file).size;
  if (size === 0) return;
  const fd = fs.openSync(file, "r+");
  try {
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    const chunk = 1 << 20;
    const buf = Buffer.alloc(chunk);
    let end = size;
    let keep = 0;
    while (end > 0) {
      const start = Math.max(0, end - chunk);
      const n = end - start;
      fs.readSync(fd, buf, 0, n, start);
      const nl = buf.subarray(0, n).lastIndexOf(0x0a);
      if (nl >= 0) {
        keep = start + nl + 1;
        break;
      }
      end = start;
    }
    // a whole record that lacks only its newline (a script that wrote "\n".join(lines), an editor) is no torn write:
    // every reader counts it, so it is kept and ended (brk40: it was cut, a stored verdict lost and judged, paid, again)
    if (size - keep <= MAX_WHOLE_TAIL) {
      const tail = Buffer.alloc(size - keep);
      fs.readSync(fd, tail, 0, tail.length, keep);
      if (isWholeRecord(tail)) {
        fs.writeSync(fd, "\n", size);
        return;
      }
    }
    fs.ftruncateSync(fd, keep);
    noteTornTailCut(file);
  } finally {
    fs.closeSync(fd);
  }
}
