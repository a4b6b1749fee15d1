/**
 * The lock of one annotation file of the view (`<file>.lock`, created exclusively and holding `{pid, host, since}`),
 * and the error of a label not saved. Two view processes on one sample folder (an annotator's and the operator's)
 * take it around each read-and-rewrite, so neither loses the other's label.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { alive } from "../store/lock.js";
import { writeFileAtomic } from "../io/write-atomic.js";

/**
 * The annotator's file could not be written: the label was not saved (the message names no path; `detail`, for the
 * terminal running the view, may name the file and line).
 */
export class AnnotationWriteError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "AnnotationWriteError";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LOCK_STALE_MS = 30_000;
/** An empty lock older than this was left between its creation and the write of its holder (or by an older version). */
const LOCK_EMPTY_STALE_MS = 2_000;

/**
 * Whether the lock file `lock` (its text `text`) was left by a process that is gone: it names a pid on this host that
 * does not run (at once: red team 30 L5, a `view` killed with -9 made every save wait 10 s and fail for 30 s), it is
 * empty or unreadable for over {@link LOCK_EMPTY_STALE_MS}, or (a holder on another host) it is over 30 s old.
 */
function staleLock(lock: string, text: string): boolean {
  let body: { pid?: unknown; host?: unknown } | null = null;
  try {
    body = JSON.parse(text) as { pid?: unknown; host?: unknown };
  } catch {
    body = null;
  }
  const age = Date.now() - fs.statSync(lock).mtimeMs;
  if (!body || typeof body !== "object" || typeof body.pid !== "number" || !Number.isInteger(body.pid) || body.pid <= 0) return age > LOCK_EMPTY_STALE_MS;
  if (typeof body.host === "string" && body.host !== os.hostname()) return age > LOCK_STALE_MS;
  return body.pid !== process.pid && !alive(body.pid);
}

/**
 * Run `fn` holding `<file>.lock` (created exclusively, holding `{pid, host, since}`; other view processes on the same
 * sample folder wait for it, up to 10 s; a lock whose process is gone is removed at once, see {@link staleLock}).
 * @throws AnnotationWriteError when the lock cannot be had.
 */
export async function withFileLock<T>(file: string, fn: () => T): Promise<T> {
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let i = 0; ; i++) {
    let fd: number;
    try {
      fd = fs.openSync(lock, "wx");
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") throw new AnnotationWriteError(`not saved: the annotation file's lock could not be made (${code ?? "error"})`);
      try {
        const text = fs.readFileSync(lock, "utf8");
        // removed only if it still holds what was judged stale (another process may have taken it over meanwhile)
        if (staleLock(lock, text) && fs.readFileSync(lock, "utf8") === text) fs.rmSync(lock, { force: true });
      } catch {
        /* gone meanwhile */
      }
      if (i > 500) throw new AnnotationWriteError("not saved: another view process holds the annotation file's lock");
      await sleep(20);
      continue;
    }
    try {
      return fn();
    } finally {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
    }
  }
}

/** Write a file atomically (temp file in the same folder + rename). */
export function writeAtomic(file: string, text: string): void {
  try {
    writeFileAtomic(file, text);
  } catch (e) {
    const cause = (e as Error).cause as NodeJS.ErrnoException | undefined;
    throw new AnnotationWriteError(`not saved: the file could not be written (${cause?.code ?? cause?.name ?? (e as Error).name})`);
  }
}
