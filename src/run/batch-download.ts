/**
 * An ended Batch API chunk's results as `./batch.ts` (step 4) stores them: its output and error files downloaded
 * and read, and, for a request without a readable result line, whether its result was lost (the provider ran it, or
 * may have: a `judge_error` of unknown cost, never resent without `--retry-errors`) or it never ran (expired,
 * cancelled: resent in the next round).
 *
 * A cut download (a torn last line) is downloaded again, at most {@link DOWNLOAD_TRIES} times; one still cut then is a
 * failed download (`BatchApiError`: the judge stops, `batch_unfinished` says what is not collected, the file is not
 * kept and the rerun downloads it again; verifier 37: its lines were stored as judge_error, which only a paid
 * `--retry-errors` undid). Lost (red team 33): a result file gone (HTTP 404) or a batch gone; a line that is not JSON
 * inside a file that arrived whole (named by file and line, its request by the custom_id its text still shows);
 * results the batch's `request_counts` say completed but that no file holds (a `completed` batch without an `output_file_id`, an output file short of lines):
 * a request with no line then is taken as one of them (which ones cannot be told, and a request the provider ran is
 * billed: sending it again would pay twice), never as expired.
 */
import fs from "node:fs";
import path from "node:path";
import { BatchApiError, type BatchApi } from "../providers/batch-api.js";
import { readBatchResults, type BatchReadReport, type BatchResultLine } from "../providers/batch-results.js";
import type { BatchEntry } from "./batch-types.js";
import { batchWriteError, resultsNotSaved } from "./batch-write-error.js";

/** Downloads of one result file whose last line is torn (a cut download) before its lines are taken as they are. */
export const DOWNLOAD_TRIES = 3;

/** What an ended chunk's result files hold (module docstring). */
export interface ChunkResults {
  results: Map<string, BatchResultLine>;
  read: BatchReadReport;
  /** custom_id -> where its unreadable line is ("output file line 20") */
  unreadable: Map<string, string>;
  /**
   * Why a request without a readable line lost its result (the error message of its `judge_error`), or undefined
   * when it never ran (resend). @param customId the request's.
   */
  lost(customId: string): { kind: "batch_result_gone" | "batch_result_unreadable" | "batch_result_missing"; message: string } | undefined;
  /** Warnings to say once for the chunk (named by the caller with the judge and batch). */
  warnings: string[];
  /** After every request was looked at: the warning about results missing from the files, when {@link lost} found any. */
  missingWarning(): string | undefined;
}

/** Request counts as the provider reports them on the batch. */
export interface RequestCounts {
  total?: number;
  completed?: number;
  failed?: number;
  /**
   * Set when the provider gave a `completed` that cannot be true (`./batch-counts.ts`): why. A request without a
   * result line is then taken as lost (it may have run), never as one to send again.
   */
  implausible?: string;
}

/** Whether a file's last line is torn: no final newline, and the text after the last newline is not JSON. */
function tornTail(file: string): boolean {
  const size = fs.statSync(file).size;
  if (size === 0) return false;
  const fd = fs.openSync(file, "r");
  try {
    const n = Math.min(size, 8 << 20);
    const buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, size - n);
    if (buf[n - 1] === 0x0a) return false;
    const tail = buf.subarray(buf.lastIndexOf(0x0a) + 1).toString("utf8");
    try {
      JSON.parse(tail);
      return false;
    } catch {
      return true;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The custom_id a torn or unreadable result line still shows, if any. */
function customIdIn(text: string): string | undefined {
  const m = /"custom_id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * Download and read an ended chunk's result files (module docstring).
 * @param counts the batch's `request_counts` when it ended (undefined: not known, e.g. a batch gone).
 * @param batchGone the provider no longer has the batch (HTTP 404 when polled): every request's result is lost.
 */
export async function chunkResults(api: BatchApi, dir: string, e: BatchEntry, counts: RequestCounts | undefined, batchGone: boolean): Promise<ChunkResults> {
  const results = new Map<string, BatchResultLine>();
  const read: BatchReadReport = { conflicts: [], repeated: 0, withoutId: 0 };
  const unreadable = new Map<string, string>();
  const warnings: string[] = [];
  const gone: string[] = batchGone ? ["batch"] : [];
  let badLines = 0;
  for (const [id, kind] of [
    [e.output_file_id, "output"],
    [e.error_file_id, "errors"],
  ] as const) {
    if (!id) continue;
    const file = path.join(dir, `${e.key}.${kind}.jsonl`);
    let onDisk = false;
    let tries = 0;
    for (; tries < DOWNLOAD_TRIES; tries++) {
      try {
        onDisk = await api.download(id, file);
      } catch (err) {
        throw batchWriteError(`${file}.part`, err, resultsNotSaved(e.batch_id ?? e.key));
      }
      if (!onDisk || !tornTail(file)) break;
      fs.rmSync(file, { force: true }); // a cut download: fetched again (and not kept for the rerun when still cut)
    }
    if (onDisk && tries >= DOWNLOAD_TRIES)
      throw new BatchApiError(
        `judge "${e.judge_id}": could not download the ${kind === "output" ? "result" : "error"} file ${id} of batch ${e.batch_id ?? e.key} whole: its last line was cut on each of ` +
          `${DOWNLOAD_TRIES} downloads (the body ended early: a proxy or the provider cut it). The batch's results stay with the provider: run the same command again to resume (it downloads them again)`,
      );
    if (!onDisk) {
      // its requests have no result: judge_error batch_result_gone, cost unknown (they ran and were billed), for
      // --retry-errors; not resent in a loop on an endpoint that never serves files
      gone.push(kind);
      warnings.push(`its ${kind} file ${id} is gone (HTTP 404): its requests without a result are stored as judge_error batch_result_gone (cost unknown; --retry-errors judges them again)`);
      continue;
    }
    const bad: string[] = [];
    await readBatchResults(file, results, read, (line, text) => {
      badLines++;
      const where = `${kind} file ${path.basename(file)} line ${line}`;
      bad.push(`line ${line}`);
      const c = customIdIn(text);
      if (c !== undefined && !unreadable.has(c)) unreadable.set(c, where);
    });
    if (bad.length)
      warnings.push(
        `its ${kind} file ${id} holds ${bad.length} line(s) that are not JSON (${bad.slice(0, 5).join(", ")}): their requests are stored as judge_error batch_result_unreadable (cost unknown; --retry-errors judges them again)`,
      );
  }
  // results the provider reports completed that no file holds (a completed batch without its output file, a short
  // output file): requests without a line are taken as theirs, never as expired (that would pay them twice)
  const ours = new RegExp(`^${e.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-\\d+$`);
  let completedRead = 0;
  for (const [c, r] of results) if (r.status === 200 && ours.test(c)) completedRead++;
  for (const c of unreadable.keys()) if (!results.has(c) && ours.test(c)) completedRead++;
  const short = counts?.implausible ? Infinity : Math.max(0, (counts?.completed ?? 0) - completedRead);
  const batch = e.batch_id ?? e.key;
  let missing = 0;
  const missingWarning = () =>
    missing === 0
      ? undefined
      : counts?.implausible
        ? `its request_counts cannot be true (${counts.implausible}), so which requests ran is not known: the ${missing} request(s) without a result are stored as judge_error batch_result_missing (cost unknown; not sent again: --retry-errors judges them again)`
        : `the provider reports ${counts?.completed ?? "?"} completed request(s) but ${e.output_file_id ? `its output file ${e.output_file_id} holds ${completedRead} readable` : "gives no output file (output_file_id missing after polling again)"}: the ${missing} request(s) without a result are stored as judge_error batch_result_missing (cost unknown; not sent again: --retry-errors judges them again)`;
  const lost: ChunkResults["lost"] = (customId) => {
    const where = unreadable.get(customId);
    if (where !== undefined && !results.has(customId)) return { kind: "batch_result_unreadable", message: `its result line (${where}, batch ${batch}) is not JSON: its result was never read (cost unknown)` };
    if (gone.length)
      return {
        kind: "batch_result_gone",
        message: batchGone ? `the batch ${batch} is gone (HTTP 404 when polled): its result was never read (cost unknown)` : `the batch's ${gone.join(" and ")} file is gone (HTTP 404): its result was never read (cost unknown)`,
      };
    if (short > 0 || badLines > 0) {
      missing++;
      return {
        kind: "batch_result_missing",
        message: counts?.implausible
          ? `batch ${batch} reports request_counts that cannot be true (${counts.implausible}), ${completedRead} result(s) read: this request's result is missing (it may have run and been billed: cost unknown)`
          : `batch ${batch} reports ${counts?.completed ?? "?"} completed request(s), ${completedRead} of them read: this request's result is missing (it may have run and been billed: cost unknown)`,
      };
    }
    return undefined;
  };
  return { results, read, unreadable, lost, warnings, missingWarning };
}
