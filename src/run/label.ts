import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pLimit from "p-limit";
import type { Judge } from "../judges/judge.js";
import { JudgeFatalError } from "../judges/judge.js";
import { countInputs, readTrajectories, type IngestWarning, type InputFormat, type ReadOptions } from "../ingest/index.js";
import type { IngestError, Trajectory, Verdict } from "../types.js";
import { StoreWriteError } from "../store/journal.js";
import { RunStore, readErrors, readTrajectoryIndex, readVerdicts, verdictKey, type TrajectoryIndexRow } from "../store/run-store.js";
import { summarizeRun, type RunSummary } from "./summary.js";
import { BatchJudgeRun, batchCapable, type BatchSettings } from "../judges/batch.js";
import type { OpenAIJudge } from "../judges/openai.js";

/** Progress of a label run, reported after every stored verdict or error. */
export interface LabelProgress {
  /** Trajectories read so far (including ones already judged). */
  read: number;
  /** Expected number of input items (files + lines), from a cheap pre-count; 0 while unknown. */
  total: number;
  /** Verdicts stored by this process. */
  judged: number;
  /** Verdicts skipped because they were already stored (resume). */
  skipped: number;
  errors: number;
  in_flight: number;
  /** Trajectories whose content changed since they were labelled (judged again). */
  changed: number;
}

export interface LabelOptions {
  inputs: string[];
  run: string;
  labelsDir: string;
  judges: Judge[];
  format?: InputFormat;
  /** Inspect logs: the scorer whose value is the benchmark's injection verdict (`NAME` or `NAME.key`). */
  securityScorer?: string;
  /** Largest input item (AgentDojo file or JSONL line) read, in bytes; larger ones are `too_large` errors. */
  maxItemBytes?: number;
  /** Independent repeats per judge (test-retest); default 1. */
  repeats?: number;
  /** Overrides every judge's own concurrency. */
  concurrency?: number;
  /** Stop after this many trajectories. */
  limit?: number;
  /** The first bad input item is fatal. */
  strict?: boolean;
  /** Values that replace what the input says (agent model, condition, attack): `readTrajectories` overrides. */
  overrides?: ReadOptions["overrides"];
  /** chat-jsonl: input key -> canonical field (`--field key=field`), see `ReadOptions.fieldMap`. */
  fieldMap?: ReadOptions["fieldMap"];
  /** Called with each ingest warning (aggregated once per folder or file) at the end of the read. */
  onWarning?: (w: IngestWarning) => void;
  /** Judge again the items whose stored verdict is `judge_error`. */
  retryErrors?: boolean;
  budgetChars?: number;
  minQuoteChars?: number;
  signal?: AbortSignal;
  onProgress?: (p: LabelProgress) => void;
  /** Called when a judge is stopped by a fatal error (bad key, no quota). */
  onJudgeStopped?: (judgeId: string, message: string) => void;
  /**
   * Send the requests of batch-capable judges (`batchCapable(config)`) through the OpenAI Batch API
   * (`../judges/batch.ts`) instead of one by one; other judges stay online. Resumes sent batches.
   */
  batch?: Pick<BatchSettings, "pollMs" | "onProgress" | "maxRequests" | "maxBytes" | "sleep">;
}

export interface LabelResult {
  summary: RunSummary;
  runDir: string;
  /** True when the run was stopped (Ctrl-C) before reading all its input. */
  interrupted: boolean;
  progress: LabelProgress;
  stoppedJudges: Record<string, string>;
}

/** sha256 over a trajectory's messages and injections (its content, not its id or path). */
export function contentSha256(t: Trajectory): string {
  const text = JSON.stringify({ m: t.messages, i: t.injections });
  // the one-shot hash (Node >= 20.12) skips the Hash object a createHash call builds; same digest
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: "hex") => string }).hash;

/** The run-index row `label` stores for a trajectory (one line of `trajectories.jsonl`). */
export function indexRow(t: Trajectory): TrajectoryIndexRow {
  return {
    id: t.id,
    source: t.source,
    agent_model: t.agent_model,
    agent_family: t.agent_family,
    suite: t.suite,
    user_task_id: t.user_task_id,
    injection_task_id: t.injection_task_id,
    attack: t.attack,
    condition: t.condition,
    attacked: Object.keys(t.injections ?? {}).length > 0 || (t.attack !== undefined && t.attack !== null && t.attack !== "none"),
    reference: t.reference,
    run_error: t.run_error,
    n_messages: t.messages.length,
    content_sha256: contentSha256(t),
    metadata: t.metadata,
  };
}

/**
 * Label trajectories with judges into a run store (`<labelsDir>/<run>/`), resumably: every verdict whose
 * key (trajectory id, judge id, repeat, prompt hash) is already stored is skipped; each verdict is appended to
 * `verdicts.jsonl` as soon as it exists, so a killed run loses at most the verdicts in flight. Bad input items
 * go to `errors.jsonl` and the run goes on (unless `strict`). A judge that throws `JudgeFatalError` is stopped;
 * the other judges go on.
 * @throws RunLockedError when another process has the run open; StoreWriteError when the store cannot be written
 *   (what was stored stays); IngestFatalError in strict mode.
 */
export async function labelRun(opts: LabelOptions): Promise<LabelResult> {
  const repeats = Math.max(1, opts.repeats ?? 1);
  const store = await RunStore.open(opts.labelsDir, opts.run, { inputs: opts.inputs });
  const progress: LabelProgress = { read: 0, total: 0, judged: 0, skipped: 0, errors: 0, in_flight: 0, changed: 0 };
  const stopped: Record<string, string> = {};
  let interrupted = false;
  let fatal: unknown = null;
  const warnings: IngestWarning[] = [];
  try {
    store.snapshot.judges = opts.judges.map((j) => ({
      id: j.id,
      model: j.model,
      family: j.family,
      prompt_sha256: j.promptSha256,
      rubric_version: j.rubricVersion,
    }));
    // The pre-count walks every input once more; with a limit, the limit is the total (a bar that ends early
    // when the input is smaller than the limit is corrected by the reporter: total >= read).
    if (opts.limit !== undefined) progress.total = opts.limit;
    else if (opts.onProgress) progress.total = await countInputs(opts.inputs, { format: opts.format, maxItemBytes: opts.maxItemBytes }).catch(() => 0);
    store.snapshot.last_invocation = {
      at: new Date().toISOString(),
      inputs: opts.inputs,
      judges: opts.judges.map((j) => j.id),
      options: {
        repeats,
        concurrency: opts.concurrency,
        limit: opts.limit,
        strict: !!opts.strict,
        retry_errors: !!opts.retryErrors,
        budget_chars: opts.budgetChars,
        format: opts.format,
        batch: !!opts.batch,
        overrides: opts.overrides,
        field_map: opts.fieldMap,
        security_scorer: opts.securityScorer,
      },
    };
    if (store.resumed.bad_lines > 0) {
      store.addError({
        path: store.dir,
        kind: "store_corrupt_lines",
        message: `${store.resumed.bad_lines} unreadable line(s) in the run's journals were skipped; what they held is judged again if missing`,
      });
    }

    // Batch API judges (--batch): their items go into request files instead of being sent one by one.
    const batchers = new Map<string, BatchJudgeRun>();
    if (opts.batch)
      for (const j of opts.judges) {
        const oj = j as Partial<OpenAIJudge>;
        if (!oj.begin || !oj.config || !batchCapable(oj.config)) continue;
        const b = new BatchJudgeRun(store, j as OpenAIJudge, { ...opts.batch, signal: opts.signal });
        await b.open();
        batchers.set(j.id, b);
      }

    const limits = new Map(opts.judges.map((j) => [j.id, pLimit(Math.max(1, opts.concurrency ?? j.concurrency ?? 1))]));
    const totalConcurrency = [...limits.values()].reduce((a, l) => a + l.concurrency, 0);
    // Items read ahead of the judges: enough to keep every judge busy, few enough that waiting items do not pile
    // up in the old generation of the heap (memory and GC time grow with them).
    const maxPending = Math.max(8, totalConcurrency * 2);
    /** Wakes the reading loop when an item finishes (cheaper than racing every pending promise per item). */
    let wake: (() => void) | undefined;
    const pending = new Set<Promise<void>>();
    const report = () => opts.onProgress?.({ ...progress, in_flight: pending.size });

    const schedule = (t: Trajectory, judge: Judge, repeat: number) => {
      const limit = limits.get(judge.id)!;
      const p: Promise<void> = limit(async () => {
        if (stopped[judge.id] || opts.signal?.aborted || fatal) return;
        let v: Verdict;
        try {
          v = await judge.judge(t, {
            repeat,
            signal: opts.signal,
            budgetChars: opts.budgetChars,
            minQuoteChars: opts.minQuoteChars,
          });
        } catch (e) {
          if (e instanceof JudgeFatalError) {
            if (!stopped[judge.id]) {
              stopped[judge.id] = e.message;
              store.snapshot.stopped_judges[judge.id] = e.message;
              opts.onJudgeStopped?.(judge.id, e.message);
            }
            return;
          }
          if (opts.signal?.aborted) return;
          store.addError({
            path: t.source.path,
            line: t.source.line,
            trajectory_id: t.id,
            kind: "judge_crash",
            message: `judge ${judge.id} failed on ${t.id}: ${(e as Error)?.message ?? String(e)}`,
          });
          progress.errors++;
          report();
          return;
        }
        // A request cut short by Ctrl-C is not a verdict: the item is judged again on resume.
        if (opts.signal?.aborted && v.status !== "ok") return;
        try {
          store.addVerdict(v);
        } catch (e) {
          // Only a store that cannot be written stops the run. A verdict that cannot be serialized (a RangeError
          // from JSON.stringify, nothing written) is this item's error: judged again on resume, the run goes on.
          if (e instanceof StoreWriteError) {
            fatal ??= e;
            return;
          }
          try {
            store.addError({
              path: t.source.path,
              line: t.source.line,
              trajectory_id: t.id,
              kind: "judge_crash",
              message: `judge ${judge.id} on ${t.id}: the verdict could not be stored: ${String((e as Error)?.message ?? e).slice(0, 500)}`,
            });
          } catch (e2) {
            fatal ??= e2;
            return;
          }
          progress.errors++;
          report();
          return;
        }
        progress.judged++;
        report();
      }).finally(() => {
        pending.delete(p);
        const w = wake;
        wake = undefined;
        w?.();
      });
      pending.add(p);
    };

    let taken = 0;
    const readOpts: ReadOptions = {
      format: opts.format,
      strict: opts.strict,
      maxItemBytes: opts.maxItemBytes,
      overrides: opts.overrides,
      fieldMap: opts.fieldMap,
      securityScorer: opts.securityScorer,
      onWarning: (w) => {
        warnings.push(w);
        opts.onWarning?.(w);
      },
    };
    for await (const item of readTrajectories(opts.inputs, readOpts)) {
      if (opts.signal?.aborted || fatal) {
        interrupted = !fatal;
        break;
      }
      if (item.kind === "error") {
        if (store.addError(item.error)) progress.errors++;
        report();
        continue;
      }
      const t = item.trajectory;
      if (opts.limit !== undefined && taken >= opts.limit) break;
      taken++;
      progress.read++;
      const state = store.addTrajectory(indexRow(t));
      if (state === "changed") {
        progress.changed++;
        store.addError({
          path: t.source.path,
          line: t.source.line,
          trajectory_id: t.id,
          kind: "content_changed",
          message: `trajectory ${t.id} changed since it was labelled (its content hash differs); it is judged again and the new verdicts supersede the old`,
        });
      }
      for (const judge of opts.judges) {
        if (stopped[judge.id]) continue;
        for (let r = 0; r < repeats; r++) {
          const key = verdictKey({ trajectory_id: t.id, judge_id: judge.id, repeat: r, prompt_sha256: judge.promptSha256 });
          if (state !== "changed" && store.has(key, opts.retryErrors)) {
            progress.skipped++;
            continue;
          }
          const batcher = batchers.get(judge.id);
          if (batcher) {
            // already in a batch sent by an earlier (killed) process: its result is awaited, not paid twice
            if (!batcher.inBatch(key))
              batcher.add(t, { repeat: r, budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars });
            continue;
          }
          schedule(t, judge, r);
        }
      }
      report();
      while (pending.size >= maxPending) await new Promise<void>((r) => (wake = r));
      if (opts.judges.every((j) => stopped[j.id])) break;
    }
    await Promise.all(pending);
    for (const [id, b] of batchers) {
      if (fatal || opts.signal?.aborted || stopped[id]) break;
      let done = true;
      try {
        done = await b.finish((v) => {
          store.addVerdict(v);
          progress.judged++;
          report();
        });
      } catch (e) {
        if (!(e instanceof JudgeFatalError)) throw e;
        stopped[id] = e.message;
        store.snapshot.stopped_judges[id] = e.message;
        opts.onJudgeStopped?.(id, e.message);
      }
      if (!done) interrupted = true;
    }
    if (opts.signal?.aborted) interrupted = true;
    if (fatal) throw fatal;
  } finally {
    await store.close();
  }
  const [verdicts, index, errors] = await Promise.all([
    readVerdicts(store.dir, { slim: true }),
    readTrajectoryIndex(store.dir, { slim: true }),
    readErrors(store.dir),
  ]);
  const summary = summarizeRun(opts.run, verdicts, index, errors, stopped);
  if (warnings.length > 0) summary.ingest_warnings = warnings;
  try {
    const tmp = path.join(store.dir, `.summary.json.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify({ ...summary, this_run: progress, interrupted }, null, 2) + "\n");
    fs.renameSync(tmp, path.join(store.dir, "summary.json"));
  } catch {
    /* the summary file is a convenience; the journals hold the run */
  }
  return {
    summary,
    runDir: store.dir,
    interrupted,
    progress,
    stoppedJudges: stopped,
  };
}
