/**
 * The bytes of one JSON input file, read whole and synchronously, with the stamp a resume compares (`./index.ts`
 * reads every `.json` run file through {@link readJsonBytes}).
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import type { IngestError } from "../types.js";
import { changedAtEnd, changedDuringReadError, stampOf } from "./changed.js";
import { ingestError, tooLargeError } from "./errors.js";
import type { InputStamp } from "./unchanged.js";
import { errText } from "./walk.js";

/**
 * Read one JSON file whole: the bytes (size checked against `max` from the open file, so a file that grows between
 * the check and the read is still caught). A file whose stamp (size, mtime, ctime; the open file's, then the path's)
 * differs after the read from before it is a `changed_during_read` error (./changed.ts), never a trajectory. The read is synchronous (these files are small and the page cache
 * serves them: no promise per file). A regular file is read into a buffer of the size its `fstat` gave (what
 * `readFileSync(fd)` does, without the second `fstat` it makes: issue 26); a file that says size 0 (a `/proc` file)
 * is read by `readFileSync` to its end.
 *
 * The bytes of a regular file up to {@link REUSED_BYTES} long are a view of one buffer the reader reuses (issue 26:
 * a new buffer per file was an allocation outside the heap and garbage per trajectory): valid only until the next
 * call. Every caller converts them at once (`convertJsonFile`, which keeps only the decoded text) and keeps no view.
 */
export function readJsonBytes(file: string, max: number): { bytes: Buffer; stamp: InputStamp } | { error: IngestError } {
  let bytes: Buffer;
  let fd: number | undefined;
  let stamp: InputStamp;
  try {
    fd = openSync(file, "r");
    const st = fstatSync(fd);
    const size = st.size;
    stamp = { size, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs };
    if (size > max) return { error: tooLargeError(file, "file", size, max) };
    bytes = st.isFile() && size > 0 ? readSized(fd, size) : readFileSync(fd);
    // grew between fstat and read
    if (bytes.length > max) return { error: tooLargeError(file, "file", bytes.length, max) };
    // rewritten while read (red team 31 F4): the bytes may mix two versions, no trajectory is taken from them
    const changes = changedAtEnd(stampOf(st), fd, file);
    if (changes.length > 0) return { error: changedDuringReadError(file, changes, "nothing of it is kept") };
  } catch (e) {
    return { error: ingestError("read_error", file, `cannot read file: ${errText(e)}`) };
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // the bytes are read; a failed close changes nothing for the caller
      }
    }
  }
  return { bytes, stamp };
}

/** Files this long or shorter are read into the reader's reused buffer ({@link readJsonBytes}): 1 MiB. */
export const REUSED_BYTES = 1024 * 1024;
/** The reused read buffer: grown to the largest file up to REUSED_BYTES read so far (plus the byte past its end). */
let reused = Buffer.allocUnsafe(0);

/**
 * An open file read to its end, as `readFileSync(fd)` reads a regular file: the `size` bytes its `fstat` gave (fewer
 * when it ends before); a file that grew since is read on to its end (red team 17: reading only `size` bytes made a
 * growing file `invalid_json` instead of the whole file, or `too_large` by the check after the read).
 * A file up to {@link REUSED_BYTES} is read into the reused buffer (a view of it is returned).
 */
function readSized(fd: number, size: number): Buffer {
  if (size <= REUSED_BYTES && reused.length <= size) reused = Buffer.allocUnsafe(Math.min(REUSED_BYTES + 1, Math.max(size + 1, 2 * reused.length)));
  const buf = size <= REUSED_BYTES ? reused : Buffer.allocUnsafe(size);
  let pos = 0;
  let n: number;
  do {
    n = readSync(fd, buf, pos, size - pos, null);
    pos += n;
  } while (n !== 0 && pos < size);
  if (pos < size) return buf.subarray(0, pos);
  // one read past the end (0 bytes unless the file grew); readFileSync(fd) here would make the fstat saved above
  if (buf === reused) {
    // the byte past the end fits in the reused buffer
    if (readSync(fd, buf, size, 1, null) === 0) return buf.subarray(0, size);
    return Buffer.concat([buf.subarray(0, size + 1), readFileSync(fd)]); // grew: the rest, from the current position
  }
  const probe = Buffer.allocUnsafe(1);
  if (readSync(fd, probe, 0, 1, null) === 0) return buf;
  return Buffer.concat([buf, probe, readFileSync(fd)]); // grew: the rest, from the current position
}
