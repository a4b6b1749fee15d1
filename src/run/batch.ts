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
 * already stored (`<key>.stored.jsonl` lists the custom_ids whose verdict is stored, each trusted only when its verdict is
 * in the store: `./batch-marks.ts`); the next round's file is rewritten
 * whole before it is listed. A request is sent again only when its result says so (a resend, a refused quota line) or
 * never came (an expired batch); a result the provider ran but that was not read (a gone or torn file, a completed
 * batch short of its results: `./batch-download.ts`) is a judge_error of unknown cost, not sent again.
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
import type { OpenAIJudge } from "../judges/llm-judge.js";
import { compactStateLine, expandStateLine, type SystemTexts } from "./batch-state.js";
import { chatRequestBody, defaultSleep, readUsage, type ChatRequest } from "../providers/send.js";
import { BatchApi, TERMINAL_BATCH_STATUS } from "../providers/batch-api.js";
import { ChunkWriter, judgeTag, safeName, type KeyLine, type StateLine } from "./batch-chunk.js";
import { DigestSet } from "./batch-keys.js";
import { BatchLineSteps } from "./batch-interpret.js";
import { StoredMarks } from "./batch-marks.js";
import { chunkResults, type RequestCounts } from "./batch-download.js";
import { checkRequestCounts } from "./batch-counts.js";
import { batchWriteError, marksNotSaved } from "./batch-write-error.js";

export type { BatchEntry, BatchProgress, BatchSettings } from "./batch-types.js";

/** Polls again of an ended batch that reports completed requests but no output file, before they are taken as lost. */
const OUTPUT_REPOLLS = 3;
import { RequestBuildError, type BatchEntry, type BatchSettings } from "./batch-types.js";


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
  /** Polls again of ended batches that report completed requests without an output file, by chunk key. */
  private readonly repolls = new Map<string, number>();
  /** What each result line means for its conversation (`./batch-interpret.ts`). */
  private readonly steps: BatchLineSteps;

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
    this.steps = new BatchLineSteps(judge, this.maxResends);
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
  async open(onVerdict?: (v: Verdict, judged: Trajectory, content?: string) => void): Promise<void> {
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
      // the turns their conversations already had answered were paid: kept on a verdict (red team 33)
      let kept = 0;
      for (const e of stale) kept += await this.keepPaidTurns(e, onVerdict);
      for (const e of stale) this.entries.splice(this.entries.indexOf(e), 1);
      const n = stale.reduce((a, e) => a + e.requests, 0);
      this.settings.onWarning?.(
        `judge "${this.judge.id}": ${n} request(s) in ${stale.length} Batch API chunk(s) written under another configuration (model ${[...new Set(stale.map((e) => JSON.stringify(e.judge_model ?? "?")))].join(", ")}) and never sent are dropped: their items are judged under the current one` +
          (kept ? ` (${kept} of those conversations had paid turns: stored as judge_error judge_stopped with them, so the cost figures count them)` : ""),
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

  /**
   * A chunk dropped before it was sent (`open`): the turns its conversations had already answered (a feedback turn's
   * chunk) were paid. Each such conversation is stored as judge_error `judge_stopped` with its attempts, usage, raw
   * replies and cost under the configuration it was made with, as a fatal stop online keeps them (judged again: the
   * store's `resumeStatus`). Lines already stored by a process stopped here are skipped (`./batch-marks.ts`).
   * @returns the conversations stored.
   */
  private async keepPaidTurns(e: BatchEntry, onVerdict?: (v: Verdict, judged: Trajectory, content?: string) => void): Promise<number> {
    if (!onVerdict || !fs.existsSync(this.stateFile(e.key))) return 0;
    const message = `the judge's configuration changed (model ${e.judge_model ?? "?"} -> ${this.judge.model}) before this conversation's next turn was sent: its paid turns are kept here; judged again under the current configuration`;
    const marks = await StoredMarks.open(path.join(this.dir, `${e.key}.stored.jsonl`), this.store.ledger, this.judge.id, marksNotSaved(e.batch_id ?? e.key));
    let n = 0;
    try {
      for await (const line of readJsonl<StateLine>(this.stateFile(e.key))) {
        if (!(line.conv.attempts > 0) || marks.stored(line.custom_id, line.conv.trajectory.id, line.conv.repeat)) continue;
        const conv = this.judge.resume(line.conv, expandStateLine(line, e.key, this.dir, this.systems, this.judge.id));
        const out = this.steps.stepped(conv, { kind: "error", error: { kind: "judge_stopped", message } }, undefined, 0);
        if (out.kind !== "verdict") continue;
        // never a label from a stopped conversation
        Object.assign(out.verdict, { status: "judge_error", label: null, compromised: null, error: { kind: "judge_stopped", message } });
        if (e.config_sha256 !== undefined) out.verdict.judge_config_sha256 = e.config_sha256;
        if (e.judge_model !== undefined) out.verdict.judge_model = e.judge_model;
        const seq = marks.nextSeq();
        onVerdict(out.verdict, line.conv.trajectory, line.content_sha256);
        marks.mark(line.custom_id, seq);
        n++;
      }
    } finally {
      marks.close();
    }
    return n;
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

  /**
   * This judge's chunks whose results are not stored yet (any status but `processed`), as a summary says them when the
   * batch path stopped before collecting them: each chunk's batch id (or key, when never sent), status and requests.
   */
  unfinished(): { requests: number; batches: { batch_id: string | null; key: string; status: string; requests: number }[] } {
    const open = this.mine().filter((e) => e.status !== "processed");
    return {
      requests: open.reduce((a, e) => a + e.requests, 0),
      batches: open.map((e) => ({ batch_id: e.batch_id ?? null, key: e.key, status: e.batch_status ?? e.status, requests: e.requests })),
    };
  }

  /** True when this verdict key is in a chunk sent earlier and not yet processed (resume: wait for it). */
  inBatch(key: string): boolean {
    return this.inFlight.has(key);
  }

  /**
   * Queue one (trajectory, repeat) for this round's batch: its first request goes into the request file.
   * @param content `contentSha256(t)` when known (the index row's): kept on the state line for the verdict.
   * @throws RequestBuildError when its request cannot be built (nothing written); a write fault as it is.
   */
  add(t: Trajectory, ctx: JudgeContext, content?: string): void {
    let line: StateLine;
    let req: ChatRequest;
    try {
      const conv = this.judge.begin(t, ctx);
      line = { custom_id: "", conv: this.judge.freeze(conv), ...(content !== undefined ? { content_sha256: content } : {}) };
      req = this.judge.request(conv);
    } catch (e) {
      throw new RequestBuildError(e);
    }
    this.write(line, req, 0);
  }

  private stateFile(key: string): string {
    return path.join(this.dir, `${key}.state.jsonl`);
  }

  private write(line: StateLine, req: ChatRequest, round: number): void {
    if (this.current && (this.current.requests >= this.maxRequests || this.current.bytes >= this.maxBytes)) this.seal();
    this.current ??= new ChunkWriter(this.dir, this.newKey(round), round, this.followUpOf);
    const chunk = this.current;
    line.custom_id = `${chunk.key}-${chunk.requests}`;
    let compact: StateLine;
    try {
      compact = compactStateLine(line, this.dir, this.systems);
    } catch (e) {
      // its system text's file (written once per run): a file-system fault says no batch was sent for the chunk
      throw batchWriteError(this.dir, e, chunk.after);
    }
    chunk.add(compact, chatRequestBody(req, req.max_tokens, this.judge.tokenParam()));
    this.inFlight.add(this.keyOf(line.conv));
  }

  /** The batch whose conversations' next turns are being written (`process`), named when a chunk cannot be written. */
  private followUpOf: string | undefined;

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

  /**
   * Progress of a chunk: `counts` the provider's as checked (a field absent: not known, `null`); none at all (just
   * submitted): 0 of its requests.
   */
  private report(e: BatchEntry, counts?: RequestCounts): void {
    this.settings.onProgress?.({
      judge_id: this.judge.id,
      key: e.key,
      batch_id: e.batch_id,
      round: e.round,
      status: e.batch_status ?? e.status,
      total: counts?.total ?? e.requests,
      completed: counts ? (counts.completed ?? null) : 0,
      failed: counts ? (counts.failed ?? null) : 0,
    });
  }

  /** A polled batch's `request_counts` checked (`checkRequestCounts`), each problem warned once per batch. */
  private checkedCounts(e: BatchEntry, raw: unknown): RequestCounts {
    const { counts, problems } = checkRequestCounts(raw, e.requests);
    for (const p of problems) {
      if (this.countsSaid.has(`${e.key}\u0000${p}`)) continue;
      this.countsSaid.add(`${e.key}\u0000${p}`);
      this.settings.onWarning?.(`judge "${this.judge.id}", batch ${e.batch_id ?? e.key}: the provider's ${p}: not shown as progress (?), not taken as a count`);
    }
    return counts;
  }
  private readonly countsSaid = new Set<string>();

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
        // its counts checked first (./batch-counts.ts): one that cannot be true is unknown, said once, never printed
        const counts = this.checkedCounts(e, b.request_counts);
        this.report(e, counts);
        if (!TERMINAL_BATCH_STATUS.has(b.status)) continue;
        // results the provider reports completed but no output file named yet: polled again a few times (red team 33:
        // a completed batch without its output_file_id had every request sent again, 4x paid)
        if (!b.output_file_id && (counts?.completed ?? 0) > 0 && (this.repolls.get(e.key) ?? 0) < OUTPUT_REPOLLS) {
          this.repolls.set(e.key, (this.repolls.get(e.key) ?? 0) + 1);
          continue;
        }
        e.output_file_id = b.output_file_id ?? null;
        e.error_file_id = b.error_file_id ?? null;
        const failure = b.status === "failed" ? (b.errors?.data ?? []).map((x) => x.message).join("; ") || "the batch failed" : undefined;
        await this.process(e, onVerdict, failure, false, counts);
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
  private async process(e: BatchEntry, onVerdict: (v: Verdict, judged: Trajectory, content?: string) => void, failure?: string, batchGone = false, counts?: RequestCounts): Promise<void> {
    const { results, read, lost, warnings, missingWarning } = await chunkResults(this.api, this.dir, e, counts, batchGone);
    for (const w of warnings) this.settings.onWarning?.(`judge "${this.judge.id}", batch ${e.batch_id ?? e.key}: ${w}`);
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
    this.followUpOf = e.batch_id ?? e.key;
    this.current = new ChunkWriter(this.dir, `${e.key}-f`, e.round + 1, this.followUpOf);
    let fatal: JudgeFatalError | undefined;
    // the lines of this chunk whose verdict is stored (custom_ids, appended after each): a chunk processed again after
    // a stop while storing skips exactly those (red team 26: every stored verdict was appended again), and a verdict of
    // an earlier chunk (an error being retried, an edited trajectory) never hides this one's (review 27); a mark whose
    // verdict never reached the journal (a kill in between, red team 33) is not taken (`./batch-marks.ts`)
    const marks = await StoredMarks.open(path.join(this.dir, `${e.key}.stored.jsonl`), this.store.ledger, this.judge.id, marksNotSaved(e.batch_id ?? e.key));
    try {
      for await (const line of readJsonl<StateLine>(this.stateFile(e.key))) {
        const key = this.keyOf(line.conv);
        // its result line is this chunk's either way (never "a custom_id no request of this chunk had")
        seen.add(line.custom_id);
        if (marks.stored(line.custom_id, line.conv.trajectory.id, line.conv.repeat)) {
          this.inFlight.delete(key);
          continue;
        }
        const conv = this.judge.resume(line.conv, expandStateLine(line, e.key, this.dir, this.systems, this.judge.id));
        const r = results.get(line.custom_id);
        // a result lost (a gone file or batch, an unreadable line, one the batch's counts say completed but no file
        // holds): judge_error, its usage unknown (it ran and was billed, or may have: never a cost of 0, never resent)
        const why = r ? undefined : lost(line.custom_id);
        let next =
          why !== undefined
            ? this.steps.stepped(conv, { kind: "error", error: why }, undefined, 1, readUsage(undefined))
            : this.steps.interpret(conv, line, r, failure);
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
          next = this.steps.stepped(conv, { kind: "error", error: { kind: "config_changed", message: `the judge's configuration changed while its batch ran (model ${e.judge_model ?? "?"} -> ${this.judge.model}): not continued under the new one` } }, undefined, 0);
        if (next.kind === "verdict") {
          if (sha !== undefined) next.verdict.judge_config_sha256 = sha;
          if (e.judge_model !== undefined) next.verdict.judge_model = e.judge_model;
          const seq = marks.nextSeq();
          onVerdict(next.verdict, line.conv.trajectory, line.content_sha256);
          marks.mark(line.custom_id, seq);
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
      marks.close();
    }
    // result lines not taken on trust: said on the entry (store.json) and to the caller, never dropped in silence
    for (const id of seen) results.delete(id);
    const said: string[] = [];
    if (results.size) said.push(`${results.size} result line(s) with a custom_id no request of this chunk had (ignored): ${[...results.keys()].slice(0, 5).join(", ")}`);
    if (read.conflicts.length) said.push(`${read.conflicts.length} request(s) with different result lines under one custom_id (error batch_duplicate_result, no label): ${read.conflicts.slice(0, 5).join(", ")}`);
    if (read.repeated) said.push(`${read.repeated} result line(s) repeated identically (read once)`);
    const missing = missingWarning();
    if (missing) said.push(missing);
    if (marks.unbacked) said.push(`${marks.unbacked} result line(s) marked stored whose verdict is not in verdicts.jsonl (the process stopped before it was written): stored now from the downloaded result file`);
    if (read.withoutId) said.push(`${read.withoutId} result line(s) without a custom_id (ignored)`);
    if (said.length) {
      e.result_warnings = said;
      for (const w of said) this.settings.onWarning?.(`judge "${this.judge.id}", batch ${e.batch_id ?? e.key}: ${w}`);
    }
    // the follow-up chunk(s) and this entry's end are listed in one snapshot write
    await this.listSealed(() => {
      e.status = "processed";
    });
    this.followUpOf = undefined;
    this.report(e, { total: e.requests, completed: e.requests, failed: 0 });
    if (fatal) throw fatal;
  }

}
