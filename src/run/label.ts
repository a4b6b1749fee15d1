/**
 * The label runner: `labelRun` reads the input, decides per (trajectory, judge, repeat) what is still to judge
 * (resume keys, `./resume.ts`), schedules it on the online path (`./online.ts`) or the batch path (`./batch.ts`)
 * over one shared state (`./label-core.ts`: store, progress, stopped judges, cost cap `./cost-cap.ts`), refuses or
 * warns about changed judge configurations (`./config-change.ts`), and ends with the run's summary.
 */
import { UsageError } from "../errors.js";
import fs from "node:fs";
import path from "node:path";
import type { Judge } from "../judges/judge.js";
import { countInputs, readTrajectories, type IngestWarning, type InputFormat, type ReadOptions } from "../ingest/index.js";
import type { Trajectory, Verdict } from "../types.js";
import { RunStore, readTrajectoryIndex, referenceKey, sourceKey, verdictKey, type TrajectoryIndexRow } from "../store/run-store.js";
import { WhereTally, matchesWhere, type WhereFilter, type WhereStatement } from "../store/where.js";
import { addVerdict, emptyHealth, HEALTH_THRESHOLDS, withFlags, type JudgeHealth } from "../verdict/health.js";
import { summarizeRun, type RunSummary } from "./summary.js";
import { openBatchPaths, finishBatchPaths, type BatchSettings } from "./batch.js";
import type { OpenAIJudge } from "../judges/llm-judge.js";
import type { CostCapState } from "./cost-cap.js";
import { configChanges, CONFIG_CHANGE_HELP, JudgeConfigChangedError, runJudgeConfig } from "./config-change.js";
import { contentSha256, keepStoredChatId, planRepeats, storedChatFallbackIds } from "./resume.js";
import { TrajectoryPreparer } from "./prepare.js";
import { countRejudging, formatRejudge, type RejudgeCount } from "./rejudge.js";
import type { LabelProgress, LabelRunState } from "./label-core.js";
import { OnlinePath } from "./online.js";

// The parts of the label runner, exported here under the names callers used before the split.
export type { LabelProgress } from "./label-core.js";
export { RESERVE_FEEDBACK_CHARS, reserveCostUsd, type CostCapState } from "./cost-cap.js";
export { CONFIG_CHANGE_HELP, JudgeConfigChangedError, runJudgeConfig } from "./config-change.js";
export { contentSha256, indexRow, keepStoredChatId, planRepeats, resumeKey, storedChatFallbackIds, type RejudgeReason, type RepeatPlan, type StoredChatIds } from "./resume.js";
export type { RejudgeCount, RejudgeJudge } from "./rejudge.js";

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
  onIngestWarning?: (w: IngestWarning) => void;
  /** Judge again the items whose stored verdict is `judge_error`. */
  retryErrors?: boolean;
  /**
   * What to do when a judge's stored verdicts in this run were made with another configuration (or with none
   * recorded: runs from before `judge_config_sha256`): `refuse` (default: throw {@link JudgeConfigChangedError}
   * naming what changed, nothing is stored), `rejudge` (judge every item again under the new configuration; the
   * old verdicts stay in `verdicts.jsonl`, superseded), `keep` (keep them and judge only what is missing).
   */
  onConfigChange?: "refuse" | "rejudge" | "keep";
  /** Called with warnings about the run (a judge's configuration changed and `keep`/`rejudge` was chosen). */
  onWarning?: (message: string) => void;
  /**
   * `--where` (src/store/where.ts): only the trajectories it keeps are stored and judged; the others are read and
   * left out (counted in `LabelResult.where`), and the summary is over the run's trajectories it keeps.
   */
  where?: WhereFilter | null;
  budgetChars?: number;
  minQuoteChars?: number;
  /** Stops the run: nothing new is read or sent; the run ends `interrupted` and a rerun resumes it. */
  signal?: AbortSignal;
  /**
   * Aborts the requests already sent (default: `signal` does). The CLI passes one that only its second Ctrl-C
   * aborts, so its first Ctrl-C lets paid requests finish and stores their verdicts.
   */
  abortSignal?: AbortSignal;
  onProgress?: (p: LabelProgress) => void;
  /**
   * Called now and then where no progress is reported (every 1,024 journal lines while the run store loads, every 64
   * items of the re-judge pre-count read): the CLI's heap-size GC trigger (`src/cli/heap-gc.ts`) hangs here.
   */
  onHeapCheck?: () => void;
  /** Called when a judge is stopped by a fatal error (bad key, no quota). */
  onJudgeStopped?: (judgeId: string, message: string) => void;
  /**
   * Send the requests of batch-capable judges (`batchCapable(config)`) through the OpenAI Batch API
   * (`./batch.ts`) instead of one by one; other judges stay online. Resumes sent batches.
   */
  batch?: Pick<BatchSettings, "pollMs" | "onProgress" | "onWarning" | "maxRequests" | "maxBytes" | "sleep">;
  /**
   * Stop sending when the run's cost (USD: every stored verdict of the run, earlier invocations included, plus the
   * worst case of each verdict's conversation in flight, feedback turns included: {@link reserveCostUsd}) would
   * pass this cap. What is in flight finishes and is stored;
   * the result says `cost_cap`; a later run with a higher cap resumes. Every LLM judge needs a `price`.
   */
  maxCostUsd?: number;
}

/**
 * What one `label` invocation did, the same object in `--json` and `summary.json` (`this_run`), and the counts the
 * text summary and `--dry-run` say. One meaning of "read" (red team 2, finding 6): `read` is the trajectories read
 * from the input (before `--where`; with `--limit`, up to where the limit stopped reading), `kept` those `--where`
 * kept and `--limit` let through (judged now, or already stored: `judged + skipped` when nothing failed).
 * Without `--where`, `read === kept`. The progress counters (`judged`, `skipped`, ...) follow.
 */
export interface ThisRun extends Omit<LabelProgress, "read"> {
  read: number;
  kept: number;
  /** With `--where`: its statement over this invocation's input (`of` = `read`, `kept` = `kept`). */
  where?: WhereStatement;
}

/**
 * The `this_run` statement of one invocation from its progress and `--where` tally (see {@link ThisRun}).
 *
 * @param progress the run's progress (`progress.read` counts the kept trajectories)
 * @param where the `--where` statement over this invocation's input, if any
 */
export function thisRunOf(progress: LabelProgress, where?: WhereStatement): ThisRun {
  const { read: kept, ...rest } = progress;
  return { read: where ? where.of : kept, kept, ...rest, ...(where ? { where } : {}) };
}

export interface LabelResult {
  summary: RunSummary;
  runDir: string;
  /** True when the run was stopped (Ctrl-C) before reading all its input. */
  interrupted: boolean;
  progress: LabelProgress;
  stoppedJudges: Record<string, string>;
  /** Set when `maxCostUsd` was given. */
  costCap?: CostCapState;
  /** Trajectory ids given twice with different inputs in this invocation (input errors `duplicate_id`; the later not judged). */
  duplicateIds: number;
  /**
   * Trajectories whose benchmark reference (security/utility) changed in the input since they were stored, content
   * unchanged: their index rows were re-written (errors.jsonl kind `reference_changed`), nothing judged again.
   */
  referenceChanged: number;
  /** Per judge, what it changed in its requests after its server's answers (e.g. no temperature for a reasoning model). */
  adaptations: Record<string, string[]>;
  /** With `where`: what it kept of this invocation's input (`kept` of `of` trajectories read) and its warnings. */
  where?: { input: WhereStatement; warnings: string[] };
  /** What this invocation read and kept, one meaning in text, `--json` and `summary.json` ({@link ThisRun}). */
  thisRun: ThisRun;
  /**
   * The stored verdicts this invocation set out to judge again, by judge and reason (counted before anything was
   * sent, and said through `onWarning` then): another prompt or rubric, another configuration, changed content, ...
   */
  rejudge: RejudgeCount;
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
  let duplicateIds = 0;
  let referenceChanged = 0;
  const repeats = Math.max(1, opts.repeats ?? 1);
  const whereTally = opts.where ? new WhereTally(opts.where) : null;
  // the cap needs a price for every LLM judge: an unpriced one would reserve $0 per item and the cap never fire
  // (checked here, not only in the CLI: a library caller gets the same refusal; issue 23)
  if (opts.maxCostUsd !== undefined) {
    const unpriced = opts.judges.filter((j) => {
      const cfg = (j as unknown as { config?: { price?: unknown } }).config;
      return cfg !== undefined && !cfg.price;
    });
    if (unpriced.length)
      throw new UsageError(
        `maxCostUsd needs a price for every judge; ${unpriced.map((j) => `"${j.id}"`).join(", ")} has none (add price: {input_per_mtok, cached_input_per_mtok, output_per_mtok} to its config)`,
      );
  }
  const store = await RunStore.open(opts.labelsDir, opts.run, { inputs: opts.inputs, onLoadCheck: opts.onHeapCheck });
  const progress: LabelProgress = { read: 0, total: 0, judged: 0, skipped: 0, errors: 0, in_flight: 0, changed: 0 };
  const stopped: Record<string, string> = {};
  let interrupted = false;
  const onChange = opts.onConfigChange ?? "refuse";
  // Running health of each judge over this invocation's verdicts: a judge that looks broken is named on the way
  // (after HEALTH_THRESHOLDS.minVerdicts verdicts), so a user can stop before paying for the rest.
  const tallies = new Map<string, JudgeHealth>();
  const warned = new Set<string>();
  const track = (v: Verdict) => {
    let h = tallies.get(v.judge_id);
    if (!h) tallies.set(v.judge_id, (h = emptyHealth(v.judge_id, v.judge_model)));
    addVerdict(h, v);
    if (h.verdicts < HEALTH_THRESHOLDS.minVerdicts) return;
    for (const f of withFlags(h).flags) {
      const k = `${v.judge_id}\u0000${f.code}`;
      if (warned.has(k)) continue;
      warned.add(k);
      opts.onWarning?.(`judge ${v.judge_id} (${v.judge_model}) looks broken (${f.code}): ${f.message}; the run goes on (Ctrl-C stops it, keeping what is stored)`);
    }
  };
  const current = new Map(opts.judges.map((j) => [j.id, runJudgeConfig(j, opts)]));
  const costCap: CostCapState | undefined =
    opts.maxCostUsd !== undefined ? { cap_usd: opts.maxCostUsd, spent_usd: 0, spent_before_usd: 0, unknown_cost_before: 0, reached: false, unknown_cost_verdicts: 0 } : undefined;
  const adaptations: Record<string, string[]> = {};
  const warnings: IngestWarning[] = [];
  let rejudge: RejudgeCount = { verdicts: 0, by_reason: {}, judges: [] };
  // the state the reading loop, the online path and the batch path share (./label-core.ts)
  const runState: LabelRunState = {
    store,
    progress,
    stopped,
    costCap,
    reserved: 0,
    fatal: null,
    configs: current,
    judgeCtx: { budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars, abortSignal: opts.abortSignal },
    signal: opts.signal,
    pending: new Set<Promise<void>>(),
    wake: undefined,
    report: () => opts.onProgress?.({ ...progress, in_flight: runState.pending.size }),
    track,
    stopJudge: (id, message) => {
      if (stopped[id]) return;
      stopped[id] = message;
      store.snapshot.stopped_judges[id] = message;
      opts.onJudgeStopped?.(id, message);
    },
  };
  const report = runState.report;
  try {
    if (costCap) {
      // the cap is on what the run has paid: every verdict earlier invocations stored counts, superseded ones
      // (re-judged errors, verdicts of an older configuration or prompt) included: they were paid for too
      // (summed by the store as it loaded the journal)
      costCap.spent_usd = costCap.spent_before_usd = store.paidUsd;
      costCap.unknown_cost_before = store.unknownCostVerdicts;
      // a cap already spent is "reached" only when a request is held back: a run with nothing left stays complete
    }
    // issue 12.5: a judge whose configuration changed since its verdicts were stored is never taken as the same
    const changes = configChanges(store, opts.judges, current, store.snapshot.judges ?? []);
    if (changes.length > 0 && onChange === "refuse") {
      // refused before anything was judged: the run stays as the last invocation left it
      store.abandon();
      throw new JudgeConfigChangedError(`run "${opts.run}": ${changes.map((c) => c.message).join("; ")}. ${CONFIG_CHANGE_HELP}`);
    }
    for (const c of changes)
      opts.onWarning?.(
        `${c.message}: ${onChange === "rejudge" ? "every item is judged again under the new configuration" : "the stored verdicts are kept (--on-config-change keep): this judge's figures mix configurations"}`,
      );
    // store.json names every judge of the run with its latest configuration (judges not in this invocation stay)
    const listed = new Set(opts.judges.map((j) => j.id));
    store.snapshot.judges = [
      ...(store.snapshot.judges ?? []).filter((j) => !listed.has(j.id)),
      ...opts.judges.map((j) => ({
        id: j.id,
        model: j.model,
        family: j.family,
        prompt_sha256: j.promptSha256,
        rubric_version: j.rubricVersion,
        judge_config_sha256: current.get(j.id)!.sha,
        config: current.get(j.id)!.config,
      })),
    ];
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
        on_config_change: onChange,
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

    // Batch API judges (--batch): their items go into request files instead of being sent one by one (./batch.ts);
    // the others are judged one request at a time (./online.ts).
    const batchers = await openBatchPaths(runState, opts.judges, opts.batch);
    const online = new OnlinePath(runState, opts.judges, opts.concurrency);

    let taken = 0;
    duplicateIds = 0;
    const readOpts: ReadOptions = {
      format: opts.format,
      strict: opts.strict,
      maxItemBytes: opts.maxItemBytes,
      overrides: opts.overrides,
      fieldMap: opts.fieldMap,
      securityScorer: opts.securityScorer,
      onWarning: (w) => {
        warnings.push(w);
        opts.onIngestWarning?.(w);
      },
    };
    const oldIds = await storedChatFallbackIds(store.dir);
    const preparer = new TrajectoryPreparer(opts.inputs, readOpts);
    // The same id from another input with other content is a duplicate, never "the trajectory changed": a later
    // invocation given the other file would silently swap the judged trajectory (issue 23). Loud, not judged.
    const duplicateFrom = (t: Trajectory): string | undefined => {
      const storedFrom = store.trajectorySource(t.id);
      return storedFrom !== undefined && storedFrom !== "" && storedFrom !== sourceKey(t.source) && store.hasTrajectory(t.id) && !store.sameTrajectory(t.id, contentSha256(t))
        ? storedFrom
        : undefined;
    };
    // issue 22 item 8: the stored verdicts this invocation will judge again, counted by reason before any is sent
    // (over the trajectories this invocation judges: prepared, filtered and de-duplicated as below)
    rejudge = await countRejudging({
      inputs: opts.inputs,
      read: readOpts,
      limit: opts.limit,
      judges: opts.judges,
      repeats,
      ledger: store.ledger,
      configs: current,
      onConfigChange: onChange,
      retryErrors: opts.retryErrors,
      oldIds,
      signal: opts.signal,
      onHeapCheck: opts.onHeapCheck,
      prepare: (raw) => preparer.prepare(raw),
      keep: (p) => matchesWhere(p.row, opts.where) && duplicateFrom(p.trajectory) === undefined,
    });
    for (const line of formatRejudge(rejudge, new Map(opts.judges.map((j) => [j.id, j.rubricVersion])))) opts.onWarning?.(`${line} (before anything is sent)`);
    const remapped: Array<{ from: string; to: string; path: string }> = [];
    for await (const item of readTrajectories(opts.inputs, readOpts)) {
      if (item.kind === "trajectory" && oldIds.byLine.size > 0) {
        const to = keepStoredChatId(item.trajectory, oldIds);
        if (to !== undefined) {
          remapped.push({ from: item.trajectory.id, to, path: item.trajectory.source.path });
          item.trajectory.id = to;
        }
      }
      if (opts.signal?.aborted || runState.fatal) {
        interrupted = !runState.fatal;
        break;
      }
      if (costCap?.reached) break;
      if (item.kind === "error") {
        if (item.error.kind === "duplicate_id") duplicateIds++;
        if (store.addError(item.error)) progress.errors++;
        report();
        continue;
      }
      // Injected text the input does not record recovered, surfaces decided, the index row (./prepare.ts)
      const { trajectory: t, row, surfaceWarnings } = await preparer.prepare(item.trajectory);
      // --limit first: a trajectory read after the limit is reached is not tallied by --where either, so its
      // statement ("N kept") says what was judged; --where: one it does not keep is neither stored nor judged (nor
      // counted by --limit)
      if (opts.limit !== undefined && taken >= opts.limit) break;
      if (whereTally && !whereTally.add(row)) continue;
      taken++;
      progress.read++;
      for (const w of surfaceWarnings) {
        store.addError({ path: t.source.path, line: t.source.line, trajectory_id: t.id, kind: "surface_mismatch", message: w });
      }
      const storedFrom = duplicateFrom(t);
      if (storedFrom !== undefined) {
        store.addError({
          path: t.source.path,
          line: t.source.line,
          trajectory_id: t.id,
          kind: "duplicate_id",
          message: `duplicate trajectory id "${t.id}": this run already holds a different trajectory under it, read from ${storedFrom}; this one is not judged (give each trajectory its own id, or label it in another --run)`,
        });
        progress.errors++;
        duplicateIds++;
        report();
        continue;
      }
      const content = row.content_sha256;
      const refBefore = store.storedReference(t.id);
      const state = store.addTrajectory(row);
      if (state === "reference_changed") {
        // finding 5: the benchmark's verdict changed in the input (same content): the index row follows it, said
        referenceChanged++;
        store.addError({
          path: t.source.path,
          line: t.source.line,
          trajectory_id: t.id,
          kind: "reference_changed",
          message: `trajectory ${t.id}: the benchmark's reference changed since it was labelled (${refBefore} -> ${referenceKey(row.reference)}); its index row now carries the new reference (agree/compare read it); the verdicts stand (they do not depend on the reference)`,
        });
      }
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
        const k4 = (r: number) => ({ trajectory_id: t.id, judge_id: judge.id, repeat: r, prompt_sha256: judge.promptSha256 });
        // a verdict belongs to the content it judged (issue 27): one made on other content is work still to do
        const todo = planRepeats(t, content, judge, repeats, store.ledger, { configSha: current.get(judge.id)!.sha, onConfigChange: onChange, retryErrors: opts.retryErrors });
        progress.skipped += repeats - todo.length;
        for (const { repeat: r } of todo) {
          const batcher = batchers.get(judge.id);
          if (batcher) {
            // already in a batch sent by an earlier (killed) process: its result is awaited, not paid twice
            // the Batch API's bookkeeping keys conversations without the configuration hash
            if (!batcher.inBatch(verdictKey(k4(r))))
              batcher.add(t, { repeat: r, budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars });
            continue;
          }
          online.schedule(t, judge, r);
        }
      }
      report();
      while (runState.pending.size >= online.maxPending) await new Promise<void>((r) => (runState.wake = r));
      if (opts.judges.every((j) => stopped[j.id])) break;
    }
    await Promise.all(runState.pending);
    if (await finishBatchPaths(runState, batchers)) interrupted = true;
    if (opts.signal?.aborted) interrupted = true;
    // the request settings each judge actually used (temperature, token parameter, what it adapted to its server)
    for (const j of opts.judges) {
      const p = (j as Partial<OpenAIJudge>).requestParams?.();
      const row = store.snapshot.judges.find((x) => x.id === j.id) as (Record<string, unknown> & { id: string }) | undefined;
      if (p && row) {
        row.request_params = p;
        if (p.adapted.length) adaptations[j.id] = p.adapted;
      }
    }
    if (remapped.length > 0) {
      const w: IngestWarning = {
        kind: "id_rule_changed",
        path: store.dir,
        count: remapped.length,
        message:
          `${remapped.length} chat-JSONL line(s) without an id keep the id this run stored for them under the older id rule ` +
          `(e.g. ${remapped[0].path} line ${remapped[0].from.slice(remapped[0].from.lastIndexOf(":") + 1)}: "${remapped[0].to}", now "${remapped[0].from}" for a new run): ` +
          `not judged or counted twice`,
      };
      warnings.push(w);
      opts.onIngestWarning?.(w);
    }
    if (runState.fatal) throw runState.fatal;
    // a cap that held back a request left items un-judged: the run is not complete (agree/committee/report warn)
    store.finish({ interrupted, stoppedJudges: Object.keys(stopped), limit: opts.limit, ...(costCap?.reached ? { costCap } : {}) });
  } finally {
    await store.close();
  }
  // what the three readers would read back from the journals, kept in memory as they were written (no re-read);
  // the verdicts are rebuilt one at a time as the summary folds them (issue 26: nothing per verdict held twice)
  const inputs = store.summaryParts();
  // --where: the summary is over the run's trajectories the filter keeps (stored by this or an earlier invocation),
  // and says so
  let index: ReadonlyMap<string, TrajectoryIndexRow> = inputs.index;
  let verdicts: Iterable<Verdict> = inputs.verdicts;
  let runWhere: WhereStatement | undefined;
  if (opts.where) {
    // the in-memory rows are slim (no suite, attack, ...): with a filter, the index is read back from the journal
    const full = await readTrajectoryIndex(store.dir);
    const tally = new WhereTally(opts.where);
    const keep = new Set([...full.values()].filter((r) => tally.add(r)).map((r) => r.id));
    const kept = new Map([...inputs.index].filter(([id]) => keep.has(id)));
    index = kept;
    verdicts = [...inputs.verdicts].filter((v) => kept.has(v.trajectory_id));
    runWhere = tally.statement(`trajectories of run ${opts.run}`).statement;
  }
  const summary = summarizeRun(opts.run, verdicts, index, [...inputs.errors], stopped);
  if (runWhere) summary.where = runWhere;
  // A judge of this invocation with verdicts but not one usable label is a stopped judge (issue 12.2): not a success.
  for (const j of summary.judges) {
    if (!j.health.stopped || stopped[j.judge_id] || !opts.judges.some((x) => x.id === j.judge_id)) continue;
    stopped[j.judge_id] = j.health.flags.find((f) => f.code === "no_usable_verdict")!.message;
  }
  if (warnings.length > 0) summary.ingest_warnings = warnings;
  if (referenceChanged > 0)
    summary.warnings.push(
      `${referenceChanged} trajectory(ies) carry another benchmark reference (security/utility) than when they were labelled (errors.jsonl kind reference_changed, naming old and new): their index rows follow the input now, so agree/compare read the current reference; nothing was judged again`,
    );
  if (duplicateIds > 0)
    summary.warnings.push(
      `INPUT ERROR: ${duplicateIds} trajectory id(s) given twice with different inputs (errors.jsonl kind duplicate_id, naming both): the later one was not judged; give each trajectory its own id`,
    );
  const inputWhere = whereTally ? whereTally.statement("trajectories read") : undefined;
  // one meaning of read / kept in text, --json and summary.json (red team 2, finding 6)
  const thisRun = thisRunOf(progress, inputWhere?.statement);
  try {
    const tmp = path.join(store.dir, `.summary.json.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify({ ...summary, this_run: thisRun, rejudged: rejudge, interrupted, ...(costCap ? { cost_cap: costCap } : {}) }, null, 2) + "\n");
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
    ...(costCap ? { costCap } : {}),
    adaptations,
    ...(inputWhere ? { where: { input: inputWhere.statement, warnings: inputWhere.warnings } } : {}),
    thisRun,
    duplicateIds,
    referenceChanged,
    rejudge,
  };
}
