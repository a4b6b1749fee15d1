import { createReadStream, fstatSync } from "node:fs";
import { open } from "node:fs/promises";
import { ChangedDuringRead, changedAtEnd, changedSince, stampOf, type ReadStamp } from "./changed.js";
import { withoutCr } from "../io/line-ends.js";

/** One line of a file as raw bytes (no `\n`, a trailing `\r` removed) with its 1-based number. */
export interface RawLine {
  line: number;
  /**
   * The line's bytes; for a line over the limit (`tooLong` set), only its first bytes (more than the limit or
   * what was read when it was passed, at most {@link LONG_LINE_PREFIX}).
   */
  bytes: Buffer;
  /** Set only when the line is longer than `maxLineBytes`: its full length in bytes (with any trailing `\r`). */
  tooLong?: number;
}

/** How many leading bytes of a line over the limit {@link rawLines} keeps (enough to tell what the line is). */
export const LONG_LINE_PREFIX = 64 * 1024;

/**
 * Stream a file's lines as raw bytes, one chunk (64 KiB) in memory at a time plus the current line. Bytes, not
 * strings, so that each line can be decoded strictly (readline would silently replace invalid UTF-8).
 * The last line is yielded even without a final newline. Stopping the iteration early closes the file.
 *
 * @param opts.maxLineBytes a line longer than this many bytes is not kept whole: it is yielded with `tooLong`
 *   (its full length) and only its first bytes (at most {@link LONG_LINE_PREFIX}), so memory stays bounded by the limit
 *   whatever the file holds. Default: no limit.
 * @param opts.guard check that the file does not change while it is read (red team 31 F4, ./changed.ts): its stamp
 *   is taken from the open file before the first read and compared with the open file's after every chunk is read,
 *   before any line of that chunk is yielded, and with the path's at the end; so every line yielded was read before
 *   any change. A change stops the read with {@link ChangedDuringRead} (the lines yielded before it are named by its
 *   `linesBefore`).
 * @throws the stream's error (ENOENT, EACCES, EISDIR, ...) from the iteration; {@link ChangedDuringRead}
 */
export async function* rawLines(file: string, opts: { maxLineBytes?: number; guard?: boolean } = {}): AsyncGenerator<RawLine> {
  const max = opts.maxLineBytes ?? Infinity;
  if (!opts.guard) {
    yield* linesOf(createReadStream(file, { highWaterMark: 64 * 1024 }), max);
    return;
  }
  const handle = await open(file, "r");
  try {
    const fd = handle.fd;
    const before = stampOf(fstatSync(fd));
    // closed here, not by the stream at its end: the end is checked on the open file
    yield* linesOf(handle.createReadStream({ highWaterMark: 64 * 1024, autoClose: false }), max, { before, fd, file });
  } finally {
    await handle.close();
  }
}

/** The lines of `stream` ({@link rawLines}); with `guard`, the file's changes checked after each chunk and at the end. */
async function* linesOf(stream: NodeJS.ReadableStream & { destroy(): void }, max: number, guard?: { before: ReadStamp; fd: number; file: string }): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let len = 0; // bytes of the current line so far
  let over = false; // the current line passed `max`: `parts` holds only its prefix
  let line = 0;
  const add = (piece: Buffer) => {
    if (piece.length === 0) return;
    len += piece.length;
    if (over) return;
    if (len > max) {
      over = true;
      parts = [Buffer.concat([...parts, piece], Math.min(LONG_LINE_PREFIX, len))];
    } else parts.push(piece);
  };
  const finish = (): RawLine => {
    line++;
    const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    const out: RawLine = { line, bytes: buf };
    if (over) out.tooLong = len;
    else out.bytes = withoutCr(buf) as Buffer; // the line rules every JSON Lines reader shares (../io/line-ends.ts)
    parts = [];
    len = 0;
    over = false;
    return out;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (guard !== undefined) {
        const changes = changedSince(guard.before, guard.fd);
        if (changes.length > 0) throw new ChangedDuringRead(changes, line);
      }
      let start = 0;
      let nl = chunk.indexOf(0x0a, start);
      while (nl >= 0) {
        add(chunk.subarray(start, nl));
        yield finish();
        start = nl + 1;
        nl = chunk.indexOf(0x0a, start);
      }
      add(chunk.subarray(start));
    }
    if (guard !== undefined) {
      // a file cut short (truncated, then rewritten) ends early: its end is checked too, and its path
      const changes = changedAtEnd(guard.before, guard.fd, guard.file);
      if (changes.length > 0) throw new ChangedDuringRead(changes, line);
    }
    if (len > 0) yield finish();
  } finally {
    stream.destroy();
  }
}

/**
 * The number of non-blank lines of a file (see {@link isBlank}), counted from the bytes in 64 KiB chunks without
 * building any line (memory stays constant whatever the line lengths).
 *
 * @throws the stream's error (ENOENT, EACCES, ...)
 */
export async function countNonBlankLines(file: string): Promise<number> {
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  let n = 0;
  let content = false; // the current line has a byte that is not blank
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 0x0a) {
          if (content) n++;
          content = false;
        } else if (b !== 0x20 && b !== 0x09 && b !== 0x0d) content = true;
      }
    }
  } finally {
    stream.destroy();
  }
  return content ? n + 1 : n;
}

/** True when the bytes hold only spaces, tabs and carriage returns (a blank line, skipped by the reader). */
export function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
