import fs from "node:fs";
import { noteTornTailCut } from "./skipped-lines.js";

/** Thrown when the store cannot write; what was written before stays on disk. */
export class StoreWriteError extends Error {
  constructor(
    public readonly file: string,
    cause: NodeJS.ErrnoException,
  ) {
    const why =
      cause.code === "ENOSPC"
        ? "no space left on device"
        : cause.code === "EACCES" || cause.code === "EPERM"
          ? "permission denied"
          : cause.code === "EROFS"
            ? "read-only file system"
            : cause.message;
    super(`cannot write ${file}: ${why}. Everything stored before this point is kept; fix it and run the same command again to resume.`);
    this.name = "StoreWriteError";
  }
}

/**
 * An append-only JSON Lines file. Each record is written with one `write(2)` of a whole line, so a killed
 * process leaves at most one partial last line, which `open` cuts off before appending again.
 */
export class Journal<T> {
  private fd: number;
  private constructor(
    public readonly file: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /**
   * Open (creating if needed) a journal; a partial last line left by a killed writer is removed.
   * @throws StoreWriteError when the file cannot be opened for appending.
   */
  static open<T>(file: string): Journal<T> {
    try {
      if (fs.existsSync(file)) repairTail(file);
      return new Journal<T>(file, fs.openSync(file, "a"));
    } catch (e) {
      throw new StoreWriteError(file, e as NodeJS.ErrnoException);
    }
  }

  /** Append one record. @throws StoreWriteError (disk full, permissions). */
  append(rec: T): void {
    const line = JSON.stringify(rec) + "\n";
    try {
      // the line written as a string (no Buffer per line: issue 26); a short write (rare on a regular file) goes on
      // from where it stopped, as bytes
      const n = fs.writeSync(this.fd, line);
      const size = Buffer.byteLength(line, "utf8");
      if (n < size) {
        const buf = Buffer.from(line, "utf8");
        let off = n;
        while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
      }
    } catch (e) {
      throw new StoreWriteError(this.file, e as NodeJS.ErrnoException);
    }
  }

  /** Flush to disk (fsync). */
  sync(): void {
    try {
      fs.fsyncSync(this.fd);
    } catch {
      /* fsync is best-effort (some file systems refuse it) */
    }
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}

/** Cut a trailing partial line (no final newline) left by a killed writer, however long it is. */
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
    fs.ftruncateSync(fd, keep);
    noteTornTailCut(file);
  } finally {
    fs.closeSync(fd);
  }
}
