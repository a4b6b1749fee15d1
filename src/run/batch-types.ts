/** The Batch API path's records and settings (`./batch.ts`): a chunk as kept in store.json, progress, settings. */

/** One chunk of one round of one judge, as kept in `store.snapshot.extra.batches`. */
export interface BatchEntry {
  /** Unique key, also the file names' stem and the batch's `metadata.ipi_batch_key`. */
  key: string;
  judge_id: string;
  round: number;
  /** Request lines in the chunk. */
  requests: number;
  /** `pending`: file written, not sent; `creating`: batch creation attempted; `submitted`: batch id known;
   * `processed`: results stored and follow-ups written. */
  status: "pending" | "creating" | "submitted" | "processed";
  input_file_id?: string;
  batch_id?: string;
  /** The batch's own status when last polled. */
  batch_status?: string;
  output_file_id?: string | null;
  error_file_id?: string | null;
  created_at: string;
  /** What the result files held that was not one line per request (unknown or conflicting custom_ids, repeats). */
  result_warnings?: string[];
  /**
   * The judge's configuration hash and model when the chunk was written: its verdicts are stored with them, so a
   * configuration changed before its results came back never passes them off as the new one's (red team 26: model-A
   * results stored as model-B verdicts). Absent on entries written by older builds (the current ones are used).
   */
  config_sha256?: string;
  judge_model?: string;
}

/** Progress of the batch path, reported on every poll and state change. */
export interface BatchProgress {
  judge_id: string;
  key: string;
  batch_id?: string;
  round: number;
  status: string;
  total: number;
  /** The provider's count; null when it gave none or one that cannot be true (warned: `./batch-counts.ts`). */
  completed: number | null;
  /** As `completed`. */
  failed: number | null;
}

/** Settings of the batch path. */
export interface BatchSettings {
  /** Poll interval in ms; default 30,000. */
  pollMs?: number;
  /** Lines per chunk; default 50,000 (the API's limit). */
  maxRequests?: number;
  /** Bytes per request file; default 190 MB (the API allows 200 MB). */
  maxBytes?: number;
  /** Resends of one request after transient error lines or an expired batch; default 3. */
  maxResends?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  onProgress?: (p: BatchProgress) => void;
  /**
   * Called with what a result file held that was not one line per request (also kept on the entry in store.json), a
   * result file the provider no longer has, and a chunk sent under another configuration of the judge.
   */
  onWarning?: (message: string) => void;
  /** The judge's current configuration hash (`judge_config_sha256`), recorded on each chunk sent. */
  configSha256?: string;
}

/**
 * A batch judge whose Batch API path stopped on a files/batches call that kept failing (a result download's 5xx, a
 * cut body): what it left uncollected, in `summary.json` and `--json` (`batch_unfinished`). The verdicts stored
 * before stay; the same command with `--batch` polls and downloads the rest.
 */
export interface BatchUnfinished {
  /** The error, naming the judge, the call and the file or batch. */
  reason: string;
  /** Requests in this judge's chunks whose results are not stored. */
  requests: number;
  /** Those chunks: batch id (null when never sent), key, last status, requests. */
  batches: { batch_id: string | null; key: string; status: string; requests: number }[];
  /** Verdicts this judge's batch path stored in this invocation before it stopped (kept). */
  verdicts_stored: number;
}

/**
 * Thrown by `BatchPath.add` when the request of one (trajectory, repeat) cannot be built (the trajectory rendered,
 * the first request made): nothing was written; `cause` is the fault. The reading loop records it as that item's
 * `judge_crash` and goes on (red team 42); a fault writing the request files is not this error and stops the run.
 */
export class RequestBuildError extends Error {
  constructor(cause: unknown) {
    super(String((cause as Error)?.message ?? cause), { cause });
    this.name = "RequestBuildError";
  }
}
