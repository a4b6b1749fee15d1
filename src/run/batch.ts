/**
 * The batch path of a label run (`ipi-judge label --batch`): judging through the OpenAI Batch API, half the price
 * of online requests, results within the batch's completion window (24 h), no rate limits to pace. This module
 * drives the judges' conversations and writes into the run store; the files and batches calls themselves (and
 * their fault policy) are `../providers/batch-api.ts`.
 *
 * One round = one batch per judge (split in chunks of at most `maxRequests` lines / `maxBytes` bytes, the API's
 * limits being 50,000 requests and 200 MB per file):
 * 1. every pending conversation's next request becomes one line `{custom_id, method: "POST", url:
 *    "/v1/chat/completions", body}` of a request file (body as `chatRequestBody`, the same as online);
 * 2. the file is uploaded (files API, purpose `batch`) and a batch is created (`completion_window: "24h"`,
 *    `metadata.ipi_batch_key` = the chunk's key);
 * 3. the batch is polled every `pollMs` until it ends (progress: `request_counts`);
 * 4. its output and error files are downloaded; each result line is mapped back by `custom_id` and given to the
 *    judge's conversation `step` (the same parse/verify/decide logic as online, `../judges/conversation.ts`): a verdict is
 *    stored at once; a conversation that needs another turn (feedback after unverified evidence, an unparseable
 *    reply) or a resend (a truncated reply: larger `max_tokens` once; a transient error line — 408/409/429/5xx,
 *    or a request the batch did not run because it expired or was cancelled: at most `maxResends` times) goes
 *    into the next round's batch.
 *
 * Crash safety: the run folder holds each chunk's request file and its state file (one line per conversation: the
 * trajectory and the conversation so far, its system and first user message as hashes: `./batch-state.ts`), and
 * `store.snapshot.extra.batches` lists every chunk with its file id, batch id and status, written (awaited) before and
 * after each API call that costs money. A process killed at any point resumes: a chunk whose batch id is stored is
 * polled, not sent again; a chunk whose batch creation was attempted but whose id was not stored is found again by its
 * metadata key (`batches.list`); a completed chunk whose processing was cut short is processed again, skipping verdicts
 * already stored (`<key>.stored.jsonl` lists the custom_ids whose verdict is stored); the next round's file is rewritten
 * whole before it is listed. A request is sent again only when its result says so (a resend, a refused quota line) or
 * never came (an expired batch).
 *
 * In a label run: `openBatchPaths` (before the items are read; `labelRun` queues each item of a batch judge with
 * `add`) and `finishBatchPaths` (after the online path is done).
 *
 * Which judges: `batch: true` in the judge's config, or, when `batch` is not given, judges on the OpenAI API
 * itself (no `base_url`, or `https://api.openai.com/...`). `batch: false` keeps a judge online; judges that are
 * not batch judges stay online in the same run.
 */
import fs from "node:fs";
import path from "node:path";
import type { Trajectory, Verdict } from "../types.js";
import type { RunStore } from "../store/run-store.js";
import { readJsonl } from "../io/jsonl.js";
import { verdictKey } from "../store/run-store.js";
import type { JudgeContext } from "../judges/judge.js";
import { JudgeFatalError } from "../errors.js";
import type { JudgeConversation, OpenAIJudge, StepInput } from "../judges/llm-judge.js";
import { compactStateLine, expandStateLine, type SystemTexts } from "./batch-state.js";
import { addUsage, chatRequestBody, clipMessage, defaultSleep, readUsage, redact, sentShape, TRUNCATION_RETRY_MAX_TOKENS, type ChatRequest, type Usage } from "../providers/send.js";
import { isModelOutputRejected, type FaultState } from "../providers/faults.js";
import { emptyReplyMessage, lazyPromptSize } from "../providers/classify.js";
import { BatchApi, TERMINAL_BATCH_STATUS } from "../providers/batch-api.js";
import { classifyBatchLine, readBatchResults, type BatchReadReport, type BatchResultLine } from "../providers/batch-results.js";
import { ChunkWriter, judgeTag, safeName, type KeyLine, type StateLine } from "./batch-chunk.js";
import { DigestSet } from "./batch-keys.js";

export type { BatchEntry, BatchProgress, BatchSettings } from "./batch-types.js";
import type { BatchEntry, BatchSettings } from "./batch-types.js";

type ResultLine = BatchResultLine;

/** What a result line means for its conversation (`BatchJudgeRun.interpret`). */
type Interpreted = { kind: "verdict"; verdict: Verdict } | { kind: "request"; request: ChatRequest } | { kind: "fatal"; error: JudgeFatalError };

/**
 * The tokens of a result line, counted as the online path counts them (`src/providers/send.ts`): an HTTP 200
 * response carries usage, and so may an error whose request the model answered (`json_validate_failed`: paid; without
 * usage it is a response "without usage", which makes the verdict's cost unknown, never 0); any other error line
 * (4xx, 5xx, expired) was not paid and adds none.
 */
function lineUsage(r: ResultLine | undefined): Usage {
  if (r?.body && r.status === 200 && !r.error) return readUsage(r.body.usage);
  const err = (r?.body?.error ?? undefined) as { code?: unknown; message?: unknown; usage?: unknown } | undefined;
  if (r && isModelOutputRejected(r.status, typeof err?.code === "string" ? err.code : undefined, typeof err?.message === "string" ? err.message : ""))
    return readUsage(err?.usage ?? r.body?.usage);
  return { prompt_tokens: 0, completion_tokens: 0 };
}

/** The entries list in the store's snapshot (created when missing). */
function entriesOf(store: RunStore): BatchEntry[] {
  const extra = store.snapshot.extra as { batches?: BatchEntry[] };
  extra.batches ??= [];
  return extra.batches;
}

/**
 * The batch path of one judge in one run (module docstring). Use: `open()`, then `add()` for every
 * (trajectory, repeat) not stored and not `inBatch()`, then `finish()`.
 */
export class BatchJudgeRun {
  private readonly dir: string;
  private readonly entries: BatchEntry[];
  /** Verdict keys (without the configuration hash) of the conversations in chunks not yet processed. */
  private readonly inFlight = new DigestSet();
  private current: ChunkWriter | undefined;
  private readonly pollMs: number;
  private readonly maxRequests: number;
  private readonly maxBytes: number;
  private readonly maxResends: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The provider side: files and batches calls under their fault policy. */
  private readonly api: BatchApi;

  /**
   * @param store the open run store (entries live in `store.snapshot.extra.batches`, files under
   *   `<run>/batches/<judge id>/`).
   * @param judge an OpenAI-compatible judge (`createOpenAIJudge`); its client sends the files and batches.
   */
  constructor(
    private readonly store: RunStore,
    private readonly judge: OpenAIJudge,
    private readonly settings: BatchSettings = {},
  ) {
    this.dir = store.file(path.join("batches", safeName(judge.id)));
    this.entries = entriesOf(store);
    this.pollMs = settings.pollMs ?? 30_000;
    this.maxRequests = settings.maxRequests ?? 50_000;
    this.maxBytes = settings.maxBytes ?? 190 * 1024 * 1024;
    this.maxResends = settings.maxResends ?? 3;
    this.sleep = settings.sleep ?? defaultSleep;
    // the judge's own credentials, read from the environment it was made with (not process.env)
    this.api = new BatchApi(judge.client, { judgeId: judge.id, secrets: judge.secrets, sleep: this.sleep, signal: settings.signal });
  }

  /** Whether a chunk was written under another configuration of the judge than the current one (both recorded). */
  private underOtherConfig(e: BatchEntry): boolean {
    return e.config_sha256 !== undefined && this.settings.configSha256 !== undefined && e.config_sha256 !== this.settings.configSha256;
  }

  private mine(): BatchEntry[] {
    return this.entries.filter((e) => e.judge_id === this.judge.id);
  }

  /**
   * Load the keys of the conversations in this judge's unprocessed chunks (they are not added again): from each
   * chunk's keys file, or its state file for chunks written before keys files existed. Chunk files no entry lists
   * (written by a process killed before it listed them: never sent) are removed; their items are added again.
   */
  async open(): Promise<void> {
    // a chunk written under another configuration of the judge and never sent (`pending`) is dropped: its items are
    // added again under the current one (red team 28: `--on-config-change rejudge` uploaded model-A lines and stored
    // them as the run's verdicts); a chunk sent, or whose sending began, is awaited and stored under its own
    const other = (e: BatchEntry) => this.underOtherConfig(e);
    const stale = this.mine().filter((e) => e.status === "pending" && other(e));
    // a creation attempted but never made (review 28: a 400 left it `creating`) is never sent either; one the provider
    // has (found by its key) is awaited
    for (const e of this.mine().filter((x) => x.status === "creating" && other(x))) {
      const found = await this.api.findByKey(e.key, e.created_at);
      if (found) Object.assign(e, { batch_id: found, status: "submitted" });
      else stale.push(e);
    }
    if (stale.length > 0) {
      for (const e of stale) this.entries.splice(this.entries.indexOf(e), 1);
      const n = stale.reduce((a, e) => a + e.requests, 0);
      this.settings.onWarning?.(
        `judge "${this.judge.id}": ${n} request(s) in ${stale.length} Batch API chunk(s) written under another configuration (model ${[...new Set(stale.map((e) => JSON.stringify(e.judge_model ?? "?")))].join(", ")}) and never sent are dropped: their items are judged under the current one`,
      );
      await this.store.writeSnapshot();
    }
    for (const e of this.mine()) {
      if (e.status === "processed") continue;
      const keys = path.join(this.dir, `${e.key}.keys.jsonl`);
      if (fs.existsSync(keys)) for await (const l of readJsonl<KeyLine>(keys)) this.inFlight.add(this.keyOf({ trajectory: { id: l.t }, repeat: l.r }));
      else for await (const l of readJsonl<StateLine>(this.stateFile(e.key))) this.inFlight.add(this.keyOf(l.conv));
    }
    this.removeUnlisted();
  }

  /** Remove the files of chunks no entry of this run lists (module docstring of `open`). */
  private removeUnlisted(): void {
    if (!fs.existsSync(this.dir)) return;
    const listed = new Set(this.entries.map((e) => e.key));
    for (const f of fs.readdirSync(this.dir)) {
      const m = /^(.+)\.(requests|state|keys)\.jsonl$/.exec(f);
      if (m && !listed.has(m[1])) fs.rmSync(path.join(this.dir, f), { force: true });
    }
  }

  private keyOf(c: { trajectory: Pick<Trajectory, "id">; repeat: number }): string {
    return verdictKey({ trajectory_id: c.trajectory.id, judge_id: this.judge.id, repeat: c.repeat, prompt_sha256: this.judge.promptSha256 });
  }

  /** True when this verdict key is in a chunk sent earlier and not yet processed (resume: wait for it). */
  inBatch(key: string): boolean {
    return this.inFlight.has(key);
  }

  /**
   * Queue one (trajectory, repeat) for this round's batch: its first request goes into the request file.
   * @param content `contentSha256(t)` when known (the index row's): kept on the state line for the verdict.
   */
  add(t: Trajectory, ctx: JudgeContext, content?: string): void {
    const conv = this.judge.begin(t, ctx);
    this.write({ custom_id: "", conv: this.judge.freeze(conv), ...(content !== undefined ? { content_sha256: content } : {}) }, this.judge.request(conv), 0);
  }

  private stateFile(key: string): string {
    return path.join(this.dir, `${key}.state.jsonl`);
  }

  private write(line: StateLine, req: ChatRequest, round: number): void {
    if (this.current && (this.current.requests >= this.maxRequests || this.current.bytes >= this.maxBytes)) this.seal();
    this.current ??= new ChunkWriter(this.dir, this.newKey(round), round);
    line.custom_id = `${this.current.key}-${this.current.requests}`;
    this.current.add(compactStateLine(line, this.dir, this.systems), chatRequestBody(req, req.max_tokens, this.judge.tokenParam()));
    this.inFlight.add(this.keyOf(line.conv));
  }

  /** System texts by SHA-256 known to be in `system-<sha>.txt` (`./batch-state.ts`). */
  private readonly systems: SystemTexts = new Map();
  private sealed: { key: string; requests: number; round: number }[] = [];

  /**
   * A new chunk key: `r<round>-<judge tag>-<time, base 36>-<n>`. The judge's tag (`judgeTag`) keeps keys apart
   * between judges that share a folder or a millisecond (red team: "j/a" and "j_a" wrote the same files, one judge
   * never got a verdict). Keys of older runs (`r<round>-<time>-<n>`) are read from their entries as they are.
   */
  private newKey(round: number): string {
    const n = this.mine().length + this.sealed.length;
    return `r${round}-${judgeTag(this.judge.id)}-${Date.now().toString(36)}-${n}`;
  }

  private seal(): void {
    if (!this.current) return;
    this.current.close();
    this.sealed.push({ key: this.current.key, requests: this.current.requests, round: this.current.round });
    this.current = undefined;
  }

  /** List the sealed chunks as `pending` entries (one snapshot write). */
  private async listSealed(extra?: (entries: BatchEntry[]) => void): Promise<void> {
    this.seal();
    const now = new Date().toISOString();
    for (const s of this.sealed) {
      if (s.requests === 0) continue;
      this.entries.push({
        key: s.key,
        judge_id: this.judge.id,
        round: s.round,
        requests: s.requests,
        status: "pending",
        created_at: now,
        ...(this.settings.configSha256 !== undefined ? { config_sha256: this.settings.configSha256, judge_model: this.judge.model } : {}),
      });
    }
    this.sealed = [];
    extra?.(this.entries);
    await this.store.writeSnapshot();
  }

  private report(e: BatchEntry, counts?: { total?: number; completed?: number; failed?: number }): void {
    this.settings.onProgress?.({
      judge_id: this.judge.id,
      key: e.key,
      batch_id: e.batch_id,
      round: e.round,
      status: e.batch_status ?? e.status,
      total: counts?.total ?? e.requests,
      completed: counts?.completed ?? 0,
      failed: counts?.failed ?? 0,
    });
  }

  /** Upload the file and create the batch of a pending entry (resuming a half-done creation). */
  private async submit(e: BatchEntry): Promise<void> {
    if (!e.input_file_id) {
      e.input_file_id = await this.api.upload(path.join(this.dir, `${e.key}.requests.jsonl`), `${e.key}.jsonl`);
      await this.store.writeSnapshot();
    }
    // A creation may have reached the server before the process died: find it by its metadata key.
    if (e.status === "creating") e.batch_id = await this.api.call("list batches", () => this.api.findByKey(e.key, e.created_at));
    if (!e.batch_id) {
      e.status = "creating";
      await this.store.writeSnapshot();
      const b = await this.api.create(e.input_file_id, e.key, e.created_at);
      e.batch_id = b.id;
      e.batch_status = b.status;
    }
    e.status = "submitted";
    await this.store.writeSnapshot();
    // the provider holds the requests now: the local copy (up to 190 MB) is not read again
    fs.rmSync(path.join(this.dir, `${e.key}.requests.jsonl`), { force: true });
    this.report(e);
  }

  /**
   * Send what was added, poll until every chunk of this judge has ended, store the verdicts (`onVerdict`), and
   * send follow-up rounds until every conversation has its verdict.
   * @returns false when stopped by the signal (state kept for resume), true when all is done.
   * @throws JudgeFatalError (401/403, no quota: this judge stops); Error for a files/batches API call that fails
   *   after its retries (naming the judge and the call). The state stays on disk: the same command resumes.
   */
  async finish(onVerdict: (v: Verdict, judged: Trajectory, content?: string) => void): Promise<boolean> {
    const signal = this.settings.signal;
    await this.listSealed();
    for (;;) {
      if (signal?.aborted) return false;
      const open = this.mine().filter((e) => e.status !== "processed");
      if (open.length === 0) return true;
      for (const e of open) {
        // a stop between two uploads (each up to 190 MB) is taken at once: the rest stay pending for the next run
        if (signal?.aborted) return false;
        if (e.status === "pending" || e.status === "creating") await this.submit(e);
      }
      let progressed = false;
      for (const e of open) {
        if (signal?.aborted) return false;
        const b = await this.api.retrieve(e.batch_id!);
        if (!b) {
          // the provider no longer has the batch: its requests are judge_error batch_result_gone at an unknown cost
          this.settings.onWarning?.(`judge "${this.judge.id}", batch ${e.batch_id}: the provider no longer has it (HTTP 404 when polled): its requests are stored as judge_error batch_result_gone (cost unknown; --retry-errors judges them again)`);
          e.output_file_id = e.error_file_id = null;
          await this.process(e, onVerdict, undefined, true);
          progressed = true;
          continue;
        }
        e.batch_status = b.status;
        this.report(e, b.request_counts ?? undefined);
        if (!TERMINAL_BATCH_STATUS.has(b.status)) continue;
        e.output_file_id = b.output_file_id ?? null;
        e.error_file_id = b.error_file_id ?? null;
        const failure = b.status === "failed" ? (b.errors?.data ?? []).map((x) => x.message).join("; ") || "the batch failed" : undefined;
        await this.process(e, onVerdict, failure);
        progressed = true;
      }
      if (!progressed) {
        try {
          await this.sleep(this.pollMs, signal);
        } catch {
          return false;
        }
      }
    }
  }

  /** Store the verdicts of an ended chunk and write its follow-ups (module docstring, step 4). */
  private async process(e: BatchEntry, onVerdict: (v: Verdict, judged: Trajectory, content?: string) => void, failure?: string, batchGone = false): Promise<void> {
    const results = new Map<string, ResultLine>();
    const read: BatchReadReport = { conflicts: [], repeated: 0, withoutId: 0 };
    const gone: string[] = batchGone ? ["batch"] : [];
    for (const [id, kind] of [
      [e.output_file_id, "output"],
      [e.error_file_id, "errors"],
    ] as const) {
      if (!id) continue;
      const file = path.join(this.dir, `${e.key}.${kind}.jsonl`);
      if (!(await this.api.download(id, file))) {
        // its requests have no result: judge_error batch_result_gone, cost unknown (they ran and were billed), for
        // --retry-errors; not resent in a loop on an endpoint that never serves files
        gone.push(kind);
        this.settings.onWarning?.(`judge "${this.judge.id}", batch ${e.batch_id ?? e.key}: its ${kind} file ${id} is gone (HTTP 404): its requests without a result are stored as judge_error batch_result_gone (cost unknown; --retry-errors judges them again)`);
        continue;
      }
      await readBatchResults(file, results, read);
    }
    const seen = new Set<string>();
    // the configuration the chunk was sent with: its verdicts are that configuration's, whatever the judge's is now
    const sha = e.config_sha256 ?? this.settings.configSha256;
    const otherConfig = this.underOtherConfig(e);
    if (otherConfig)
      this.settings.onWarning?.(
        `judge "${this.judge.id}", batch ${e.batch_id ?? e.key}: sent with another configuration of the judge (model ${e.judge_model ?? "?"}, configuration ${e.config_sha256!.slice(0, 12)}) ` +
          `than the current one (model ${this.judge.model}, ${this.settings.configSha256!.slice(0, 12)}): its verdicts are stored with the configuration they were made with; --on-config-change rejudge judges them again under the current one`,
      );
    // the follow-up chunk of this entry has a fixed key, so processing again after a crash rewrites it whole
    this.current = new ChunkWriter(this.dir, `${e.key}-f`, e.round + 1);
    let fatal: JudgeFatalError | undefined;
    // the lines of this chunk whose verdict is stored (custom_ids, appended after each): a chunk processed again after
    // a stop while storing skips exactly those (red team 26: every stored verdict was appended again), and a verdict of
    // an earlier chunk (an error being retried, an edited trajectory) never hides this one's (review 27)
    const storedFile = path.join(this.dir, `${e.key}.stored.jsonl`);
    const stored = new Set<string>();
    if (fs.existsSync(storedFile)) for await (const l of readJsonl<{ c: string }>(storedFile)) stored.add(l.c);
    const storedFd = fs.openSync(storedFile, "a");
    try {
      for await (const line of readJsonl<StateLine>(this.stateFile(e.key))) {
        const key = this.keyOf(line.conv);
        if (stored.has(line.custom_id)) {
          this.inFlight.delete(key);
          continue;
        }
        seen.add(line.custom_id);
        const conv = this.judge.resume(line.conv, expandStateLine(line, e.key, this.dir, this.systems, this.judge.id));
        const r = results.get(line.custom_id);
        // a gone result file: judge_error batch_result_gone, its usage unknown (it ran and was billed: never a cost of 0)
        let next =
          !r && gone.length
            ? this.stepped(conv, { kind: "error", error: { kind: "batch_result_gone", message: batchGone ? "the batch is gone (HTTP 404 when polled): its result was never read" : `the batch's ${gone.join(" and ")} file is gone (HTTP 404): its result was never read` } }, undefined, 0, readUsage(undefined))
            : this.interpret(conv, line, r, failure);
        if (next.kind === "fatal") {
          // a fatal line (no quota, 401/403: unpaid) stops the judge after this chunk: its request goes to the
          // follow-up chunk, sent by the next invocation once the account is fixed (red team 26: a resume read the
          // same downloaded line again and stopped on it for ever); the other lines' results are stored. A stop of the
          // judge-level rules (paid replies: empty, reasoning-only) is thrown from `stepped` at once (review 27).
          fatal ??= next.error;
          next = { kind: "request", request: this.judge.request(conv) };
        }
        // a turn after the first under another configuration would be the current model's answer stored as the old
        // one's (review 27): the conversation ends as judge_error config_changed, which --on-config-change rejudge takes
        if (next.kind === "request" && otherConfig && !fatal)
          next = this.stepped(conv, { kind: "error", error: { kind: "config_changed", message: `the judge's configuration changed while its batch ran (model ${e.judge_model ?? "?"} -> ${this.judge.model}): not continued under the new one` } }, undefined, 0);
        if (next.kind === "verdict") {
          if (sha !== undefined) next.verdict.judge_config_sha256 = sha;
          if (e.judge_model !== undefined) next.verdict.judge_model = e.judge_model;
          onVerdict(next.verdict, line.conv.trajectory, line.content_sha256);
          fs.writeSync(storedFd, `${JSON.stringify({ c: line.custom_id })}\n`);
          this.inFlight.delete(key);
          continue;
        }
        this.write(
          { custom_id: "", conv: this.judge.freeze(conv), lengthRetried: line.lengthRetried, resends: line.resends, adaptedFor: line.adaptedFor, ...(line.content_sha256 !== undefined ? { content_sha256: line.content_sha256 } : {}) },
          next.request,
          e.round + 1,
        );
      }
    } finally {
      fs.closeSync(storedFd);
    }
    // result lines not taken on trust: said on the entry (store.json) and to the caller, never dropped in silence
    for (const id of seen) results.delete(id);
    const said: string[] = [];
    if (results.size) said.push(`${results.size} result line(s) with a custom_id no request of this chunk had (ignored): ${[...results.keys()].slice(0, 5).join(", ")}`);
    if (read.conflicts.length) said.push(`${read.conflicts.length} request(s) with different result lines under one custom_id (error batch_duplicate_result, no label): ${read.conflicts.slice(0, 5).join(", ")}`);
    if (read.repeated) said.push(`${read.repeated} result line(s) repeated identically (read once)`);
    if (read.withoutId) said.push(`${read.withoutId} result line(s) without a custom_id (ignored)`);
    if (said.length) {
      e.result_warnings = said;
      for (const w of said) this.settings.onWarning?.(`judge "${this.judge.id}", batch ${e.batch_id ?? e.key}: ${w}`);
    }
    // the follow-up chunk(s) and this entry's end are listed in one snapshot write
    await this.listSealed(() => {
      e.status = "processed";
    });
    this.report(e, { total: e.requests, completed: e.requests });
    if (fatal) throw fatal;
  }

  /**
   * What one result line means for its conversation: a verdict, or the next request. The line is classified by the
   * provider layer's one classifier (`classifyBatchLine`: the status table and the reply classifier the online path
   * uses); this carries the outcome out in batch rounds (a resend goes into the next round's batch).
   * @returns a verdict, the next request, or `fatal` for the fatal kinds (401/403, no quota, no such model: unpaid),
   *   which stop the judge as online. Throws what the judge-level rules throw (`observe`, through `stepped`).
   */
  private interpret(
    conv: JudgeConversation,
    line: StateLine,
    r: ResultLine | undefined,
    failure: string | undefined,
  ): Interpreted {
    const resend = (why: string): { kind: "verdict"; verdict: Verdict } | { kind: "request"; request: ChatRequest } => {
      line.resends = (line.resends ?? 0) + 1;
      // (the result line, if any, was already counted by `account`)
      if (line.resends > this.maxResends)
        return this.stepped(conv, { kind: "error", error: { kind: "batch_error", message: `${why} (gave up after ${line.resends} batch rounds)` } }, undefined, 0);
      return { kind: "request", request: this.judge.request(conv) };
    };
    if (!r) {
      if (failure) return this.stepped(conv, { kind: "error", error: { kind: "batch_failed", message: failure } }, undefined, 0);
      return resend("the batch ended without a result for this request (expired or cancelled)");
    }
    const req = this.judge.request(conv);
    const body = chatRequestBody(req, req.max_tokens, this.judge.tokenParam());
    const state: FaultState = {
      judgeId: this.judge.id,
      timeoutMs: 0,
      timedOut: false,
      aborted: false,
      // what this line may have been sent with (it may predate what the judge learned since): each once per line
      canDropTemperature: !line.adaptedFor?.includes("drop_temperature"),
      canSwitchTokenParam: !line.adaptedFor?.includes("max_completion_tokens") && conv.maxTokens !== undefined,
      neverAnswered: false,
      maxRetryAfterMs: Number.POSITIVE_INFINITY,
      random: () => 0.5,
      sent: sentShape(body, req),
    };
    const cls = classifyBatchLine(r, state, { isComplete: (c) => this.judge.isComplete(c), ...lazyPromptSize(body) });
    switch (cls.kind) {
      case "not_run":
        // not run before the batch expired or was cancelled: no attempt was made
        return resend(cls.message);
      case "conflict":
        return this.stepped(conv, { kind: "error", error: { kind: "batch_duplicate_result", message: cls.message } }, undefined, 1);
      case "line_error":
        return this.stepped(conv, { kind: "error", error: { kind: cls.errorKind, message: cls.message } }, r);
      case "fault": {
        const f = cls.fault;
        const msg = `HTTP ${r.status}: ${"message" in f ? f.message : ""}`;
        switch (f.action) {
          case "fatal":
            return { kind: "fatal", error: new JudgeFatalError(this.judge.id, f.kind, redact(f.message, this.judge.secrets)) };
          case "retry":
          case "connection":
          case "invalid_response":
            return this.account(conv, r), resend(msg);
          case "aborted":
            return resend("aborted");
          case "refused":
            return this.stepped(conv, { kind: "refused", message: f.message }, r);
          case "model_output":
            return this.stepped(conv, { kind: "error", error: { kind: f.kind, message: f.message }, ...(f.output !== undefined ? { output: f.output } : {}) }, r);
          case "error":
            return this.stepped(conv, { kind: "error", error: { kind: f.kind, message: f.message } }, r);
          case "resend": {
            // a server rejecting a parameter (temperature, max_tokens, the system role, the schema, a budget): adapt
            // the judge and resend in the next round, as the online path resends at once; once per line and kind (a
            // line built before the judge learned is resent too); a server that still rejects gets its bad_request
            if (!line.adaptedFor?.includes(f.adapt)) {
              this.judge.adapt(f.adapt, f.value);
              line.adaptedFor = [...(line.adaptedFor ?? []), f.adapt];
              return this.account(conv, r), resend(`HTTP 400, adapted (${f.adapt})`);
            }
            return this.stepped(conv, { kind: "error", error: { kind: "bad_request", message: `HTTP ${r.status} (already adapted: ${f.adapt})` } }, r);
          }
        }
        break;
      }
      case "completion": {
        const c = cls.reply;
        switch (c.kind) {
          case "transient":
            // credits or quota used up, said inside a 200 (code 402): fatal for the judge, as online
            if (c.fault.quota)
              return {
                kind: "fatal",
                error: new JudgeFatalError(
                  this.judge.id,
                  "insufficient_quota",
                  redact(`judge "${this.judge.id}": the account has no credits or quota left (${c.fault.where}${c.fault.code !== undefined ? `, code ${c.fault.code}` : ""}): ${clipMessage(c.fault.message)}. Its remaining items stay un-judged: top up the account, then run the same command again to resume.`, this.judge.secrets),
                ),
              };
            // a provider failure inside the 200: transient, resent in the next round like a 5xx (never a label)
            return this.account(conv, r), resend(`provider error in an HTTP 200 (${c.fault.where}${c.fault.code !== undefined ? `, code ${c.fault.code}` : ""}): ${clipMessage(c.fault.message)}`);
          case "invalid":
            return this.account(conv, r), resend(clipMessage(c.message));
          case "refused":
            return this.stepped(conv, { kind: "refused", message: c.message }, r);
          case "final":
            return this.stepped(conv, { kind: "error", error: { kind: c.errorKind, message: c.message } }, r);
          case "cut":
            if (!line.lengthRetried) {
              line.lengthRetried = true;
              this.account(conv, r);
              conv.maxTokens = conv.maxTokens !== undefined ? conv.maxTokens * 2 : TRUNCATION_RETRY_MAX_TOKENS;
              return { kind: "request", request: this.judge.request(conv) };
            }
            return this.stepped(
              conv,
              c.errorKind === "truncated"
                ? { kind: "error", error: { kind: "truncated", message: `the reply was cut at the token limit (finish_reason "length", max_tokens ${conv.maxTokens ?? "unset"})` } }
                : { kind: "error", error: { kind: "empty_response", message: emptyReplyMessage(c) } },
              r,
            );
          case "reply":
            return this.stepped(
              conv,
              { kind: "reply", content: c.content, finishReason: c.finishReason, ...(c.reasoning !== undefined ? { reasoning: c.reasoning } : {}), ...(c.notes.length ? { notes: c.notes } : {}) },
              r,
            );
        }
      }
    }
    return this.stepped(conv, { kind: "error", error: { kind: "batch_error", message: "an unclassified result line" } }, r);
  }

  /** Count a result line that is not stepped (a resend): one request, its usage and reply. */
  private account(conv: JudgeConversation, r: ResultLine): void {
    conv.attempts += 1;
    addUsage(conv.usage, lineUsage(r));
    const c = r.body?.choices?.[0]?.message;
    if (c) conv.raw.push(typeof c.content === "string" ? c.content : JSON.stringify(c));
  }

  /** Step the conversation with one outcome; a verdict, or the next request (a feedback turn). */
  private stepped(
    conv: JudgeConversation,
    outcome: StepInput["outcome"],
    r: ResultLine | undefined,
    requests = 1,
    usage: Usage = lineUsage(r),
  ): { kind: "verdict"; verdict: Verdict } | { kind: "request"; request: ChatRequest } {
    const c = r?.body?.choices?.[0]?.message;
    const input: StepInput = {
      outcome,
      requests,
      usage,
      raw: outcome.kind === "reply" ? [outcome.content] : outcome.kind === "error" && outcome.output !== undefined ? [outcome.output] : c ? [JSON.stringify(c)] : [],
      maxTokens: conv.maxTokens,
    };
    // the judge-level rules (the reasoning-only / empty stop, flags) count batch outcomes as online ones
    this.judge.observe(outcome);
    const out = this.judge.step(conv, input);
    return out.done ? { kind: "verdict", verdict: out.verdict } : { kind: "request", request: out.request };
  }
}
