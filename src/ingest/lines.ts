import { createReadStream } from "node:fs";

/** One line of a file as raw bytes (no `\n`, a trailing `\r` removed) with its 1-based number. */
export interface RawLine {
  line: number;
  bytes: Buffer;
}

/**
 * Stream a file's lines as raw bytes, one chunk (64 KiB) in memory at a time plus the current line. Bytes, not
 * strings, so that each line can be decoded strictly (readline would silently replace invalid UTF-8).
 * The last line is yielded even without a final newline. Stopping the iteration early closes the file.
 *
 * @throws the stream's error (ENOENT, EACCES, EISDIR, ...) from the iteration
 */
export async function* rawLines(file: string): AsyncGenerator<RawLine> {
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  let parts: Buffer[] = [];
  let line = 0;
  const finish = (buf: Buffer): RawLine => {
    line++;
    const end = buf.length > 0 && buf[buf.length - 1] === 0x0d ? buf.length - 1 : buf.length;
    return { line, bytes: end === buf.length ? buf : buf.subarray(0, end) };
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      let nl = chunk.indexOf(0x0a, start);
      while (nl >= 0) {
        const piece = chunk.subarray(start, nl);
        const whole = parts.length > 0 ? Buffer.concat([...parts, piece]) : piece;
        parts = [];
        yield finish(whole);
        start = nl + 1;
        nl = chunk.indexOf(0x0a, start);
      }
      if (start < chunk.length) parts.push(chunk.subarray(start));
    }
    if (parts.length > 0) yield finish(Buffer.concat(parts));
  } finally {
    stream.destroy();
  }
}

/** True when the bytes hold only spaces, tabs and carriage returns (a blank line, skipped by the reader). */
export function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
