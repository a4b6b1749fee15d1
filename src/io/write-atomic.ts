/**
 * Output files written whole or not at all: each is written to a temporary file in its own folder, flushed to disk and
 * renamed over its name, so a killed command, a full disk or a file-size limit leaves the file that was there before
 * byte for byte (or none), never a table cut mid-row that a later reader takes as good (hostile53 finding 4).
 * Journals appended by design (`verdicts.jsonl` ...) do not come here.
 */
import fs from "node:fs";
import path from "node:path";
import { removeQuietly } from "./remove-quietly.js";

/** An output file could not be written: names the file, the cause, and what is on disk now. */
export class OutputWriteError extends Error {
  constructor(
    message: string,
    /** The file that could not be written (absolute). */
    public readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OutputWriteError";
  }
}

/** What one output file holds: a string, or lines (joined as given) for outputs too large for one string. */
export type OutputData = string | Iterable<string>;

const CHUNK = 1 << 20;

function causeText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === "ENOSPC") return "no space left on device";
  if (err.code === "EFBIG") return "file too large (a file-size limit)";
  if (err.code === "EACCES" || err.code === "EPERM") return "permission denied";
  if (err.code === "EROFS") return "read-only file system";
  if (err.code === "ENOENT") return "no such folder";
  if (err.code === "EISDIR") return "it is a folder";
  return err.code ? `${err.code}: ${err.message}` : String((e as Error)?.message ?? e);
}

/** Write `data` to a new temporary file beside `file`, flushed to disk; returns the temporary file's path. */
function writeTemp(file: string, data: OutputData): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, "w");
    if (typeof data === "string") fs.writeFileSync(fd, data, "utf8");
    else {
      let chunk = "";
      for (const part of data) {
        chunk += part;
        if (chunk.length > CHUNK) {
          fs.writeFileSync(fd, chunk, "utf8");
          chunk = "";
        }
      }
      if (chunk) fs.writeFileSync(fd, chunk, "utf8");
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    return tmp;
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* already failing: the write's error is the one to report */
      }
    }
    removeQuietly(tmp);
    throw e;
  }
}

function before(file: string): string {
  return fs.existsSync(file) ? "the file there before is unchanged" : "no file was written";
}

/**
 * Write one output file whole or not at all (temporary file in the same folder, fsync, rename).
 * @param file the output path (relative to the working directory, or absolute); its folder is created if missing.
 * @param data the file's text (UTF-8), or an iterable of pieces written in ~1 MiB chunks.
 * @returns the absolute path written.
 * @throws OutputWriteError naming the file and the cause (disk full, size limit, permission ...) and saying that the
 *   file there before is unchanged; the temporary file is removed.
 */
export function writeFileAtomic(file: string, data: OutputData): string {
  const abs = path.resolve(file);
  let tmp: string | undefined;
  try {
    tmp = writeTemp(abs, data);
    fs.renameSync(tmp, abs);
    return abs;
  } catch (e) {
    if (tmp) removeQuietly(tmp);
    throw new OutputWriteError(`cannot write ${abs}: ${causeText(e)}; ${before(abs)}`, abs, { cause: e });
  }
}

/**
 * Write several output files that belong together (a table's CSV and its LaTeX): every one is written to its temporary
 * file first, and only when all are written are they renamed over their names, so a failed write leaves every file as
 * it was. (A rename can still fail part way, e.g. a folder made read-only in between: the error then names which files
 * hold the new text and which the old.)
 * @param files output path -> its text; written in the order given.
 * @returns the absolute paths written.
 * @throws OutputWriteError naming the file that failed, the cause, and the state of the others.
 */
export function writeFilesAtomic(files: ReadonlyArray<readonly [string, OutputData]>): string[] {
  const temps: Array<[string, string]> = [];
  for (const [file, data] of files) {
    const abs = path.resolve(file);
    try {
      temps.push([writeTemp(abs, data), abs]);
    } catch (e) {
      for (const [t] of temps) removeQuietly(t);
      const others = files.length > 1 ? "; none of the files was replaced (each is as it was before)" : `; ${before(abs)}`;
      throw new OutputWriteError(`cannot write ${abs}: ${causeText(e)}${others}`, abs, { cause: e });
    }
  }
  const done: string[] = [];
  for (let i = 0; i < temps.length; i++) {
    const [tmp, abs] = temps[i];
    try {
      fs.renameSync(tmp, abs);
      done.push(abs);
    } catch (e) {
      for (const [t] of temps.slice(i)) removeQuietly(t);
      const left = temps.slice(i + 1).map(([, a]) => a);
      const state = [done.length ? `written: ${done.join(", ")}` : "", left.length ? `not written (as they were before): ${left.join(", ")}` : ""].filter(Boolean).join("; ");
      throw new OutputWriteError(`cannot write ${abs}: ${causeText(e)}; ${before(abs)}${state ? `; ${state}` : ""}`, abs, { cause: e });
    }
  }
  return done;
}
