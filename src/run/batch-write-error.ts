/**
 * A file of the batch path (`./batch.ts`) that cannot be written (a full disk, a file-size limit, permissions): said as
 * the store's own write errors are (`StoreWriteError`: the file, the cause), with what is true of the batch at that
 * point (break54 finding 4: `EFBIG: file too large, write` alone, no file named, no word whether anything was sent):
 * - a chunk's request, state or keys file, or its system text: nothing of that chunk was sent (a chunk is listed, and
 *   then sent, only once written whole; an unlisted chunk's files are removed by the next run, which writes it again);
 * - a result file being downloaded, a chunk's "stored" marks: the batch's results stay with the provider or on disk,
 *   and the resume reads them again (nothing sent or paid twice).
 */
import { OutputWriteError } from "../io/write-atomic.js";
import { StoreWriteError } from "../store/journal.js";

const RESUME = "fix it and run the same command again to resume.";

/**
 * What is true when a chunk's files cannot be written (module docstring).
 * @param key the chunk's key; @param of the batch whose follow-up turns it holds (undefined: a first-round chunk).
 */
export function chunkNotSent(key: string, of?: string): string {
  return of === undefined
    ? `No batch was sent for chunk ${key}: a chunk is sent only once its files are written whole (the resume writes it again). The verdicts stored before and any batch sent by an earlier command are kept; ${RESUME}`
    : `No batch was sent for chunk ${key} (the next turns of batch ${of}'s conversations); the verdicts of batch ${of} stored so far are kept, and the resume reads its downloaded results again for the rest (nothing is sent or paid twice); ${RESUME}`;
}

/** What is true when a result file of batch `batch` cannot be written as it is downloaded (module docstring). */
export function resultsNotSaved(batch: string): string {
  return `The results of batch ${batch} stay with the provider (it is not sent again): the resume downloads them again. The verdicts stored before are kept; ${RESUME}`;
}

/** What is true when a chunk's "stored" marks cannot be written while batch `batch`'s results are stored. */
export function marksNotSaved(batch: string): string {
  return `The verdicts of batch ${batch} stored so far are kept, and the resume reads its downloaded results again for the rest (nothing is sent or paid twice); ${RESUME}`;
}

/**
 * A file-system fault of the batch path as a `StoreWriteError` naming `file` and saying `after`; any other error
 * (a `StoreWriteError` already said, a request that cannot be built, a bug) is returned as it is.
 * @param file the file being written; an `OutputWriteError` (`writeFileAtomic`) names its own.
 */
export function batchWriteError(file: string, e: unknown, after: string): unknown {
  if (e instanceof StoreWriteError) return e;
  if (e instanceof OutputWriteError) return new StoreWriteError(e.file, (e.cause ?? e) as NodeJS.ErrnoException, after);
  const err = e as NodeJS.ErrnoException;
  if (typeof err?.code !== "string" || typeof err.syscall !== "string") return e;
  return new StoreWriteError(file, err, after);
}
