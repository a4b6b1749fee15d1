/**
 * The OpenAI Batch API endpoint, as the batch path of a label run (`../run/batch.ts`) uses it: which judges go
 * through it (`batchCapable`), the request line's URL, and one {@link BatchApi} per judge that uploads a request
 * file, creates a batch (finding one created before a crash by its `metadata.ipi_batch_key`), polls it, downloads
 * its result files and reads their lines. Every call runs under the fault policy of {@link BatchApi.call}. It talks
 * to the provider only: no run store, no conversation.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type OpenAI from "openai";
import { APIConnectionError } from "openai";
import { JudgeFatalError } from "../errors.js";
import type { JudgeConfig } from "../config/judges.js";
import { connectionCause, defaultSleep, isBodyReset, redact } from "./send.js";
import { isTransientStatus, QUOTA_TEXT } from "./faults.js";
import { redirectRefusal } from "./fetch.js";
export { classifyBatchLine, readBatchResults, type BatchReadReport, type BatchResultLine, type LineClass } from "./batch-results.js";

/**
 * A files API upload body (`multipart/form-data`: `purpose` = `batch`, then `file`) streamed from disk in 64 KiB
 * reads, with its exact length: a 190 MB chunk is never in memory. (The SDK's `toFile` of a stream reads it whole;
 * the platform's `FormData` with a disk-backed `File` still buffered ~220 MB of a 195 MB file, measured.)
 */
function multipartUpload(file: string, name: string): { body: AsyncIterable<Uint8Array>; headers: Record<string, string> } {
  const boundary = `----ipi-judge-${randomBytes(12).toString("hex")}`;
  const safe = name.replace(/["\r\n]/g, "_");
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safe}"\r\nContent-Type: application/jsonl\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = fs.statSync(file).size;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield head;
    for await (const c of fs.createReadStream(file, { highWaterMark: 64 * 1024 })) yield c as Buffer;
    yield tail;
  }
  return { body: body(), headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(head.length + size + tail.length) } };
}

/**
 * A files/batches API call that failed after its retries (5xx, a connection cut, a body cut or stalled, another
 * refusal): not the judge's fault and not the run's end. The run keeps what it stored and the batch's state, and the
 * same command resumes (`../run/batch-paths.ts` stops that judge and says what is not collected).
 */
export class BatchApiError extends Error {
  override name = "BatchApiError";
}

/** A result file's body did not go on within the allowed time (a stalled download): retried as a timeout. */
class BodyTimeoutError extends Error {
  override name = "BodyTimeoutError";
}

/**
 * Write a response's body to `file`, failing when no bytes come for `idleMs` ({@link BodyTimeoutError}) or when
 * `signal` is aborted (the body is cancelled, the connection released).
 */
async function saveBody(res: Response, file: string, idleMs: number, signal: AbortSignal | undefined): Promise<void> {
  if (!res.body) {
    fs.writeFileSync(file, await res.text());
    return;
  }
  const reader = res.body.getReader();
  const out = fs.openSync(file, "w");
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const stop = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal?.reason ?? Object.assign(new Error("the run was stopped"), { name: "AbortError" }));
      if (signal?.aborted) onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    stop.catch(() => undefined);
    for (;;) {
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BodyTimeoutError(`the result file's body stalled: no bytes for ${idleMs / 1000} s (timeout_s)`)), idleMs);
      });
      const r = await Promise.race([reader.read(), idle, stop]);
      clearTimeout(timer);
      if (r.done) break;
      fs.writeSync(out, r.value);
    }
  } catch (e) {
    reader.cancel().catch(() => undefined);
    // undici's bare "terminated": said in words (the cause kept, so the retry still takes it for a reset)
    if (!(e instanceof BodyTimeoutError) && !signal?.aborted && isBodyReset(e)) throw new Error(`the connection was cut while the result file's body was read (${(e as Error).message})`, { cause: e });
    throw e;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    fs.closeSync(out);
  }
}

/** Time allowed for one upload of a request file (up to 200 MB): 1 hour. */
const UPLOAD_TIMEOUT_MS = 3_600_000;

/**
 * Whether an error is a fault of a local file (opening, writing, flushing or renaming a result file: a full disk, a
 * file-size limit, permissions), not of the provider: thrown as it is, for the caller to name the file
 * (`../run/batch-download.ts`).
 */
export function isLocalFileFault(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException | null;
  return typeof err?.code === "string" && /^(open|write|fsync|close|rename|mkdir)$/.test(String(err.syscall ?? ""));
}

/** The Batch API's endpoint for chat completions. */
export const BATCH_URL = "/v1/chat/completions";

/** The call's answer, or undefined when the provider answers HTTP 404 (the batch or file is gone); other failures thrown. */
async function unlessGone<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (e) {
    if ((e as { status?: number }).status !== 404) throw e;
    return undefined;
  }
}

/** Batch statuses after which a batch does not change any more. */
export const TERMINAL_BATCH_STATUS = new Set(["completed", "failed", "expired", "cancelled"]);

/**
 * Whether a judge goes through the Batch API under `--batch`: its config's `batch` when set, else true for the
 * OpenAI API itself (no `base_url`, or a `base_url` on api.openai.com).
 */
export function batchCapable(cfg: Pick<JudgeConfig, "batch" | "base_url">): boolean {
  if (cfg.batch !== undefined) return cfg.batch;
  return cfg.base_url === undefined || /^https:\/\/api\.openai\.com(\/|$)/i.test(cfg.base_url);
}

/** What {@link BatchApi} needs besides the client. */
export interface BatchApiOptions {
  /** The judge's id: named in every error and in the batch's `metadata.ipi_judge`. */
  judgeId: string;
  /** Texts removed from every error message (the API key: `clientSettings(cfg).secrets`). */
  secrets: readonly string[];
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The run's stop (Ctrl-C): ends a result download at once. */
  signal?: AbortSignal;
  /** Longest wait for the next bytes of a result file's body, ms; default the client's timeout (the judge's `timeout_s`). */
  bodyTimeoutMs?: number;
}

/** The files and batches calls of one judge's Batch API path, each under the fault policy of {@link call}. */
export class BatchApi {
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  /** @param client the judge's `openai` client (`LlmJudge.client`). */
  constructor(
    private readonly client: OpenAI,
    private readonly o: BatchApiOptions,
  ) {
    this.sleep = o.sleep ?? defaultSleep;
  }

  /**
   * One files/batches API call under the transport's fault policy: 408/409/429/5xx and connection faults are
   * retried (exponential backoff from 1 s, at most 5 times); a refused redirect (`RedirectRefusedError`, `./fetch.ts`)
   * is an error at once; 401/403 and no quota or credits (`insufficient_quota`: 429, 402) stop this judge
   * (`JudgeFatalError`); anything else is an error naming the judge and the call. The key is never in a message.
   * @param what the call in words ("upload the request file"), for the error message.
   * @param call the call; `attempt` counts from 0 (a retried creation looks before creating again).
   */
  async call<T>(what: string, call: (attempt: number) => Promise<T>): Promise<T> {
    const id = this.o.judgeId;
    for (let k = 0; ; k++) {
      try {
        return await call(k);
      } catch (e) {
        // a local file that cannot be written (a result file on a full disk): not the provider's fault, never retried
        if (isLocalFileFault(e)) throw e;
        const err = e as { status?: number; message?: string; code?: string; name?: string };
        const msg = redact(`${err.message ?? String(e)}`, this.o.secrets);
        const st = err.status;
        // a redirect of a request that cannot be sent again (the upload): the same answer would come back
        const refused = redirectRefusal(e);
        if (refused) throw new BatchApiError(`judge "${id}": could not ${what} (Batch API): ${redact(refused.message, this.o.secrets)}`);
        if (st === 401 || st === 403)
          throw new JudgeFatalError(id, "auth", `judge "${id}": the API refused the credentials (HTTP ${st}) when trying to ${what}: ${msg}`);
        // no quota or credits left (429 insufficient_quota, 402 payment required, a 4xx saying so): as online
        if (st === 402 || (st !== undefined && st >= 400 && st < 500 && QUOTA_TEXT.test(`${err.code ?? ""} ${msg}`)))
          throw new JudgeFatalError(id, "insufficient_quota", `judge "${id}": no credits or quota left (HTTP ${st}) when trying to ${what}: ${msg}. Its items stay un-judged: top up the account, then run the same command again to resume.`);
        // connection faults (the client's APIConnectionError and its timeout, a reset while a result file streams)
        // are retried like the chat requests' (src/providers/send.ts), as are 408/409/429/5xx
        const transient =
          st === undefined
            ? e instanceof APIConnectionError || /Connection|Timeout/i.test(err.name ?? "") || isBodyReset(e) || /^(ECONNRESET|EPIPE|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN)$/.test(connectionCause(e).code ?? "")
            : isTransientStatus(st);
        if (!transient || k >= 5 || this.o.signal?.aborted)
          throw new BatchApiError(`judge "${id}": could not ${what} (Batch API${st ? `, HTTP ${st}` : ""}): ${msg}`);
        await this.sleep(Math.min(30_000, 1000 * 2 ** k), this.o.signal);
      }
    }
  }

  /**
   * Upload a request file (files API, purpose `batch`) under the name `name`; returns the file id. The file is
   * streamed from disk ({@link multipartUpload}); each attempt of {@link call} streams it again. A redirect of the
   * upload is not followed (a streamed body cannot be sent twice): one error that says "redirect refused", not retried.
   */
  async upload(file: string, name: string): Promise<string> {
    const f = await this.call("upload the request file", () => {
      const { body, headers } = multipartUpload(file, name);
      // redirect "error": otherwise undici clones the request to follow a redirect, and the clone's tee holds every
      // byte sent (+200 MB for a 195 MB file, measured); a long timeout: 190 MB at a few MB/s outlasts a chat timeout
      return this.client.post<OpenAI.Files.FileObject>("/files", { body, headers, timeout: UPLOAD_TIMEOUT_MS, fetchOptions: { redirect: "error" } });
    });
    return f.id;
  }

  /**
   * The id of the batch created with `metadata.ipi_batch_key` = `key` (newest first), not looking at batches
   * created over an hour before `createdAt` (ISO time); undefined if none. Not under the fault policy (wrap it in
   * {@link call}).
   */
  async findByKey(key: string, createdAt: string): Promise<string | undefined> {
    for await (const b of this.client.batches.list({ limit: 100 })) {
      if ((b.metadata as Record<string, string> | null)?.ipi_batch_key === key) return b.id;
      if (Date.parse(createdAt) / 1000 - 3600 > b.created_at) return undefined; // older than the entry
    }
    return undefined;
  }

  /**
   * Create the batch of an uploaded request file (`completion_window: "24h"`, `metadata.ipi_batch_key` = `key`);
   * a retried creation (timeout, 5xx) may have created it: it looks for it by its key before creating again.
   */
  async create(inputFileId: string, key: string, createdAt: string): Promise<OpenAI.Batches.Batch> {
    return this.call("create the batch", async (attempt) => {
      const found = attempt > 0 ? await this.findByKey(key, createdAt) : undefined;
      if (found) return this.client.batches.retrieve(found);
      return this.client.batches.create({
        input_file_id: inputFileId,
        endpoint: BATCH_URL,
        completion_window: "24h",
        metadata: { ipi_batch_key: key, ipi_judge: this.o.judgeId.slice(0, 500) },
      });
    });
  }

  /**
   * The batch as it is now (poll), or undefined when the provider no longer has it (HTTP 404: purged, another
   * account or base_url). Said to the caller, not thrown: review 28, such a batch failed every `label --batch`, and
   * `label` without `--batch` refuses a run with batches in flight, so the run had no way out.
   */
  async retrieve(batchId: string): Promise<OpenAI.Batches.Batch | undefined> {
    const b = await this.call("poll the batch", () => unlessGone(() => this.client.batches.retrieve(batchId)));
    // which batch a result file is of, for a download's error message
    for (const f of [b?.output_file_id, b?.error_file_id]) if (f) this.batchOfFile.set(f, batchId);
    return b;
  }

  /** Result file id -> the batch it is of (from the polls), named when its download fails. */
  private readonly batchOfFile = new Map<string, string>();

  /**
   * Download a file of the Files API to disk (skipped when already there; written to `<to>.part`, then renamed).
   * The whole download, its body included, is one attempt of {@link call}: a body cut or stalled midway is retried
   * like a failed request (red team 33 F7: only the headers were, and a stalled body hung for minutes), each attempt
   * writing the file again from its start. The body is read under the judge's timeout (`timeout_s`, the client's)
   * between two reads (a stall, not a slow large file), and a stop of the run (`signal`: Ctrl-C) ends it at once.
   * @returns true when the file is on disk; false when the provider no longer has it (HTTP 404).
   * @throws a local file fault (opening or writing the file: a full disk, a file-size limit) as it is ({@link isLocalFileFault});
   *   as {@link call} for any other failure, naming the judge and the file, and that a rerun resumes.
   */
  async download(fileId: string, to: string): Promise<boolean> {
    if (fs.existsSync(to)) return true;
    const tmp = `${to}.part`;
    const signal = this.o.signal;
    const idleMs = this.o.bodyTimeoutMs ?? this.client.timeout;
    try {
      // a file the provider no longer has (HTTP 404: deleted, or past its retention) is said to the caller, not thrown:
      // red team 26, one gone file stopped the whole label command on every resume
      const of = this.batchOfFile.get(fileId);
      const got = await this.call(`download the result file ${fileId}${of ? ` of batch ${of}` : ""}`, async () => {
        const res = await unlessGone(() => this.client.files.content(fileId, signal ? { signal } : undefined));
        if (!res) return false;
        await saveBody(res, tmp, idleMs, signal);
        return true;
      });
      if (!got) return false;
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      if (signal?.aborted || isLocalFileFault(e)) throw e;
      throw new BatchApiError(`${(e as Error).message}. The batch's results stay with the provider: run the same command again to resume (it downloads them again)`, { cause: e });
    }
    fs.renameSync(tmp, to);
    return true;
  }
}
