/**
 * The label runner: `labelRun` reads the input, decides per (trajectory, judge, repeat) what is still to judge
 * (resume keys, `./resume.ts`), schedules it on the online path (`./online.ts`) or the batch path (`./batch.ts`)
 * over one shared state (`./label-core.ts`: store, progress, stopped judges, cost cap `./cost-cap.ts`), refuses or
 * warns about changed judge configurations (`./config-change.ts`), and ends with the run's summary.
 */
import { OWN_OUTPUT } from "../ingest/own-folders.js";
import { byJudgeName, sortedByJudge } from "../format/judge-order.js";
import path from "node:path";
import type { IngestWarning, ReadOptions } from "../ingest/index.js";
import type { Trajectory } from "../types.js";
import type { RunStore } from "../store/run-store.js";
import { WhereTally, type WhereStatement } from "../store/where.js";
import { WhereWarnings } from "./where-warnings.js";
import type { IdBits } from "../store/id-bits.js";
import { MAX_REPEATS } from "../store/repeat-bound.js";
import { UsageError } from "../errors.js";
import type { RunSummary } from "./summary.js";
import { openBatchPaths, finishBatchPaths } from "./batch-paths.js";
import { reserveBatchInFlight } from "./batch-cap.js";
import { checkBatchJudges, refuseSharedBatchFolders } from "./batch-judges.js";
import type { CostCapState } from "./cost-cap.js";
import { legacyTransportKey, runJudgeConfig } from "./config-change.js";
import { contentSha256, storedChatFallbackIds } from "./resume.js";
import { TrajectoryPreparer } from "./prepare.js";
import type { RejudgeCount } from "./rejudge.js";
import type { LabelProgress, LabelRunState } from "./label-core.js";
import { OnlinePath } from "./online.js";
import { ReadSince } from "./read-since.js";
import { duplicateSource } from "./duplicate-source.js";
import { MovedContent } from "./moved-content.js";
import { RemovedInputs } from "./removed-inputs.js";
import { recordRemoved } from "./removed-record.js";
import { unchangedCheck } from "./fast-resume.js";
import { reverifyWarnings, StoredReverifier } from "./reverify.js";
import { openForLabel, stopIfNothingRead } from "./before-reading.js";
import { warnOldGroupNames } from "./old-group-names.js";
import type { LabelOptions } from "./label-options.js";
import { addInputWarnings, summarizeLabelRun, writeSummaryFile } from "./label-summary.js";
import { sayMoves } from "./moved-removed.js";
import { removedRecord } from "../store/removed-ids.js";
import {
  inBatchOf,
  countRejudgingFirst,
  healthWarnings,
  idRuleWarning,
  openInvocation,
  readAndSchedule,
  recordRequestParams,
  requirePricesForCap,
  type ReadOutcome,
} from "./label-steps.js";

// The parts of the label runner, exported here under the names callers used before the split.
export type { LabelProgress } from "./label-core.js";
export { RESERVE_FEEDBACK_CHARS, reserveCostUsd, type CostCapState } from "./cost-cap.js";
export { CONFIG_CHANGE_HELP, JudgeConfigChangedError, runJudgeConfig } from "./config-change.js";
export { contentSha256, indexRow, keepStoredChatId, planRepeats, resumeKey, storedChatFallbackIds, type RejudgeReason, type RepeatPlan, type StoredChatIds } from "./resume.js";
export type { RejudgeCount, RejudgeJudge } from "./rejudge.js";
export type { LabelOptions } from "./label-options.js";

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
  /**
   * Set when the run was interrupted (Ctrl-C) and no judge went through the Batch API: of `kept`, the trajectories
   * with a (judge, repeat) the stop left un-judged and unstored (queued when it came, or cut short before any
   * reply): not stored by every judge, though another judge may have stored its verdict of them; a rerun judges
   * what is missing. With one judge and one repeat, `kept = judged + skipped + judge_crashes + this` when no input error
   * concerns a kept trajectory. Absent on a complete run, and with `--batch` (items waiting in a batch are resumed
   * by polling; the batch lines say their state).
   */
  in_flight_when_stopped?: number;
  /** With {@link in_flight_when_stopped}: per judge (every judge of the run), the trajectories it left un-judged. */
  in_flight_when_stopped_by_judge?: Record<string, number>;
  /**
   * With {@link in_flight_when_stopped}, when a judge had been stopped by its own error (bad key, no quota, never
   * answered): per such judge only, the trajectories read that it left un-judged and unstored because it had
   * stopped: the one(s) whose request stopped it and those read or queued after, never sent. Not in flight, so
   * not in `in_flight_when_stopped_by_judge`; with one repeat, per judge `in flight + this = read - stored` when no
   * input error concerns a kept trajectory. A rerun judges them once the judge is fixed.
   */
  left_by_stopped_judge?: Record<string, number>;
}

/**
 * The `this_run` statement of one invocation from its progress and `--where` tally (see {@link ThisRun}).
 *
 * @param progress the run's progress (`progress.read` counts the kept trajectories)
 * @param where the `--where` statement over this invocation's input, if any
 * @param stopped an interrupted online run's trajectories left un-judged, per judge (`LabelRunState.stoppedInFlight`),
 *   the run's judge ids, and those left by judges stopped by their own error (`LabelRunState.leftByStoppedJudge`),
 *   else undefined
 */
export function thisRunOf(
  progress: LabelProgress,
  where?: WhereStatement,
  stopped?: {
    byJudge: ReadonlyMap<string, ReadonlySet<string>>;
    judges: readonly string[];
    leftByStoppedJudge?: ReadonlyMap<string, { readonly size: number; has(id: string): boolean }>;
  },
): ThisRun {
  const { read: kept, ...rest } = progress;
  let inFlight: Pick<ThisRun, "in_flight_when_stopped" | "in_flight_when_stopped_by_judge" | "left_by_stopped_judge"> = {};
  if (stopped) {
    const any = new Set<string>();
    for (const ids of stopped.byJudge.values()) for (const id of ids) any.add(id);
    const byJudge: Record<string, number> = {};
    for (const j of stopped.judges) byJudge[j] = stopped.byJudge.get(j)?.size ?? 0;
    inFlight = { in_flight_when_stopped: any.size, in_flight_when_stopped_by_judge: byJudge };
    const left: Record<string, number> = {};
    for (const j of stopped.judges) {
      const ids = stopped.leftByStoppedJudge?.get(j);
      if (!ids || ids.size === 0) continue;
      // a trajectory counted in flight for this judge (another repeat of it) is counted once, there
      let n = ids.size;
      for (const id of stopped.byJudge.get(j) ?? []) if (ids.has(id)) n--;
      if (n > 0) left[j] = n;
    }
    if (Object.keys(left).length > 0) inFlight.left_by_stopped_judge = left;
  }
  return {
    read: where ? where.of : kept,
    kept,
    ...rest,
    ...(where ? { where } : {}),
    ...inFlight,
  };
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
  /** Input files that changed while they were read in this invocation (input errors `changed_during_read`, red team 31 F4). */
  changedDuringRead: number;
  /** Trajectories of this invocation that could not be prepared (item errors `prepare_failed`; passed over, the others judged). */
  prepareFailed: number;
  /**
   * Trajectories whose benchmark reference (security/utility) changed in the input since they were stored, content
   * unchanged: their index rows were re-written (errors.jsonl kind `reference_changed`), nothing judged again.
   */
  referenceChanged: number;
  /**
   * Trajectories whose cell-naming fields (model, condition, attack, suite, tasks, attacked, surfaces) changed in the
   * input since they were stored, content unchanged: their index rows were re-written (errors.jsonl kind
   * `metadata_changed`, `../store/meta-key.ts`), nothing judged again.
   */
  metadataChanged: number;
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

/** Each judge's configuration key as the run stores it (an older transport's key kept, with its warning). */
function judgeConfigKeys(store: RunStore, opts: LabelOptions): LabelRunState["configs"] {
  return new Map(
    opts.judges.map((j) => {
      const k = legacyTransportKey(store, j, runJudgeConfig(j, opts), store.snapshot.judges.find((b) => b.id === j.id));
      if (k.warning) opts.onWarning?.(k.warning);
      return [j.id, k.key] as const;
    }),
  );
}

/**
 * The copy of a run's progress `onProgress` gets: its fields, then the requests in flight and queued. Made with
 * `Object.assign`, not a spread (same keys in the same order, same values): `progress` gains keys after it is made
 * (`sent_by_judge`), which sends a spread of it down V8's slow path, ~2-4 us a copy against ~0.2 (microbenchmark,
 * Node 20), and a run copies it twice per item (the read and the verdict; issue 26 part 2).
 */
function progressSnapshot(progress: LabelProgress, inFlight: number, queued: number): LabelProgress {
  return Object.assign({}, progress, { in_flight: inFlight, queued });
}

/**
 * Label trajectories with judges into a run store (`<labelsDir>/<run>/`), resumably: every verdict whose
 * key (trajectory id, judge id, repeat, prompt hash) is already stored is skipped; each verdict is appended to
 * `verdicts.jsonl` as soon as it exists, so a killed run loses at most the verdicts in flight. Bad input items
 * go to `errors.jsonl` and the run goes on (unless `strict`). A judge that throws `JudgeFatalError` is stopped;
 * the other judges go on.
 * @throws UsageError when two batch judges' ids give one folder under `batches/` (`refuseSharedBatchFolders`), or under
 *   `--batch` no judge can use the Batch API (`checkBatchJudges`), before anything is written; RunLockedError when another process has the run open; StoreWriteError when the store cannot be written
 *   (what was stored stays); IngestFatalError in strict mode.
 */
export async function labelRun(opts: LabelOptions): Promise<LabelResult> {
  checkBatchJudges(opts.judges, opts.batch, opts.onWarning); // once, before anything is read or sent
  const first = await labelOnce(opts);
  const stale = first.batchStale ?? 0;
  if (stale === 0 || first.interrupted || Object.keys(first.stoppedJudges).length > 0 || first.costCap?.reached) return first;
  // red team 37 F4: a --batch resume stored the results of a batch sent before 30 inputs were edited, on their old
  // text, and ended as finished with those 30 left out as stale: they are judged again now, in a new batch
  opts.onWarning?.(
    `${stale} trajector${stale === 1 ? "y" : "ies"} changed after the batch holding ${stale === 1 ? "it" : "them"} was sent by an earlier label process: ` +
      `its results (on the older text) are stored as paid, and ${stale === 1 ? "it is" : "they are"} judged again on the text now: a second pass over the inputs`,
  );
  const again = await labelOnce(opts);
  if ((again.batchStale ?? 0) > 0)
    opts.onWarning?.(`${again.batchStale} trajectories changed again while judged: their verdicts are on an older text and left out of the figures; run the same label command again`);
  return again;
}

/**
 * A library caller's repeats (default 1): what `--repeats` takes, an integer 1 .. MAX_REPEATS (a stored repeat past
 * the bound is refused on read: ../store/repeat-bound.ts). @throws UsageError otherwise.
 */
function repeatsOf(opts: LabelOptions): number {
  const repeats = Math.max(1, opts.repeats ?? 1);
  if (!Number.isInteger(repeats) || repeats > MAX_REPEATS) throw new UsageError(`repeats must be an integer from 1 to ${MAX_REPEATS}, not ${opts.repeats}`);
  return repeats;
}

/** One pass of {@link labelRun}: read, judge, store, summarize. */
async function labelOnce(opts: LabelOptions): Promise<LabelResult & { batchStale?: number }> {
  const repeats = repeatsOf(opts);
  const whereTally = opts.where ? new WhereTally(opts.where) : null;
  const whereWarnings = opts.where ? new WhereWarnings() : undefined;
  requirePricesForCap(opts);
  refuseSharedBatchFolders(opts.judges, opts.batch);
  const store = await openForLabel(opts);
  const progress: LabelProgress = { read: 0, total: 0, judged: 0, skipped: 0, errors: 0, judge_crashes: 0, empty_placeholders: 0, duplicate_inputs: 0, in_flight: 0, changed: 0, unread: 0 };
  const stopped: Record<string, string> = {};
  let interrupted = false;
  let read: ReadOutcome = { interrupted: false, limitStopped: false, duplicateIds: 0, changedDuringRead: 0, prepareFailed: 0, referenceChanged: 0, metadataChanged: 0, attackedChanged: 0, remapped: [] };
  const onChange = opts.onConfigChange ?? "refuse";
  const current = judgeConfigKeys(store, opts);
  const costCap: CostCapState | undefined =
    opts.maxCostUsd !== undefined ? { cap_usd: opts.maxCostUsd, spent_usd: 0, spent_before_usd: 0, unknown_cost_before: 0, reached: false, unknown_cost_verdicts: 0 } : undefined;
  const adaptations: Record<string, string[]> = {};
  const warnings: IngestWarning[] = [];
  /** An input warning: kept for the summary, and said as it comes (own output passed over: ./superseded-errors.ts). */
  const sayIngest = (w: IngestWarning): void => {
    if (w.kind === OWN_OUTPUT && typeof w.path === "string") passedOver.add(path.resolve(w.path) + path.sep);
    warnings.push(w);
    opts.onIngestWarning?.(w);
  };
  const passedOver = new Set<string>(); // sidecar files passed over (resolved), own folders (+ sep): errors about them superseded
  // the input errors stored before this read: those whose input it reads without error are superseded (./read-since.ts)
  const since = new ReadSince(store.storedErrors);
  // the run's trajectories whose input file is gone, found after a read that ran to the end (./removed-inputs.ts)
  const removed = new RemovedInputs(store.idSlots);
  const moved = new MovedContent(store); // a moved input: its verdicts carried over, not judged again (./moved-content.ts)
  let rejudge: RejudgeCount = { verdicts: 0, by_reason: {}, judges: [] };
  let batchJudges = 0;
  // the state the reading loop, the online path and the batch path share (./label-core.ts)
  const runState: LabelRunState = {
    store,
    progress,
    stopped,
    costCap,
    batchUnfinished: {},
    batchWarnings: [],
    reserved: 0,
    fatal: null,
    configs: current,
    judgeCtx: { budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars, abortSignal: opts.abortSignal, onWarning: opts.onWarning },
    signal: opts.signal,
    pending: new Set<Promise<void>>(),
    pendingChars: 0, judging: 0, queued: 0,
    stoppedInFlight: new Map<string, Set<string>>(),
    leftByStoppedJudge: new Map<string, IdBits>(),
    wake: undefined,
    report: () => opts.onProgress?.(progressSnapshot(progress, runState.judging, runState.queued)), // apart: "in flight 8" at concurrency 4 counted both
    // a judge that looks broken is named on the way, so a user can stop before paying for the rest
    track: healthWarnings(opts.onWarning),
    stopJudge: (id, message) => {
      if (stopped[id]) return;
      stopped[id] = message;
      store.snapshot.stopped_judges = sortedByJudge({ ...store.snapshot.stopped_judges, [id]: message }); // by name, not by when it stopped
      opts.onJudgeStopped?.(id, message);
    },
  };
  try {
    await openInvocation(runState, opts, { repeats, onChange });
    runState.reverify = await StoredReverifier.open(runState, opts.judges, onChange); // verdicts under older rules (./reverify.ts)
    stopIfNothingRead(store, opts, "counting the inputs"); // a stop so far leaves the run as it was (./before-reading.ts, and loadCheck)
    warnOldGroupNames(store, opts); // rows stored before group names were normalized keep them: said once
    // Batch API judges (--batch): their items go into request files, not sent one by one (./batch.ts); others one at a time (./online.ts)
    const batchers = await openBatchPaths(runState, opts.judges, opts.batch);
    batchJudges = batchers.size;
    // the cap reserves the worst case of the chunks an earlier invocation left in flight before anything new
    await reserveBatchInFlight(runState, opts.judges.filter((j) => batchers.has(j.id)));
    const online = new OnlinePath(runState, opts.judges, opts.concurrency);
    const readOpts: ReadOptions = {
      format: opts.format,
      strict: opts.strict,
      maxItemBytes: opts.maxItemBytes,
      overrides: opts.overrides,
      fieldMap: opts.fieldMap,
      securityScorer: opts.securityScorer,
      utilityScorer: opts.utilityScorer,
      labelsRoot: opts.labelsDir, // ipi-judge's own output inside an input folder is passed over (../ingest/own-folders.ts)
      ids: store.idSlots, // the read's duplicate checks number ids in the store's table: each id held once
      folders: store.internedStrings, // ... and intern their folders in the store's strings: each folder held once
      onWarning: sayIngest,
      onPassedOver: (file) => passedOver.add(path.resolve(file)),
      onMetSlots: (met) => removed.metBy(met),
      heldFile: (file) => store.holdsFile(file), // a file linked under two input paths keeps the run's name for it
      holdItemWarnings: whereWarnings !== undefined, // --where: said only for what the filter keeps (./where-warnings.ts)
    };
    const oldIds = await storedChatFallbackIds(store.dir);
    const preparer = new TrajectoryPreparer(opts.inputs, readOpts);
    const duplicateFrom = duplicateSource(store);
    // the resume fast path: a file stored unchanged (size, mtime) with nothing left to judge, or only batch items, is not read
    const unchanged = unchangedCheck(runState, opts, { repeats, onChange, inBatch: inBatchOf(batchers) });
    // issue 22 item 8: the verdicts to judge again, counted and said before any is sent, by one more read of the inputs
    // when the reading loop first finds a repeat to judge (a resume with nothing to judge reads its inputs once)
    const countFirst = async () => {
      rejudge = await countRejudgingFirst(opts, { repeats, onChange, readOpts, oldIds, preparer, duplicateFrom, store, configs: current, unchanged, moved });
    };
    read = await readAndSchedule(runState, opts, { repeats, onChange, readOpts, oldIds, preparer, whereTally, whereWarnings, duplicateFrom, batchers, online, unchanged, since, removed, moved, beforeFirstSend: countFirst });
    for (const w of whereWarnings?.drain(opts.where!.text) ?? []) sayIngest(w);
    interrupted = read.interrupted;
    await Promise.all(runState.pending).then(() => Promise.all(opts.judges.map((j) => j.release?.()))); // then the judges free their workers' heaps
    if (await finishBatchPaths(runState, batchers)) interrupted = true;
    if (opts.signal?.aborted) interrupted = true;
    // the request settings each judge actually used (temperature, token parameter, what it adapted to its server)
    recordRequestParams(store, opts.judges, adaptations);
    const w = idRuleWarning(read.remapped, store.dir);
    if (w) sayIngest(w);
    if (runState.fatal) throw runState.fatal;
    // ... recorded for every reader to leave out (./removed-record.ts); a read cut short keeps what it did not meet
    const inputsRemoved = await recordRemoved(store, removed, !interrupted && !read.limitStopped, opts.inputs, opts.onWarning, moved.moves, opts.where);
    // a cap that held back a request left items un-judged: the run is not complete (agree/committee/report warn)
    // --limit marks the run partial only when it stopped the reading (not for fewer trajectories: new-user review)
    store.finish({ inputs: opts.inputs, interrupted, stoppedJudges: Object.keys(stopped).sort(byJudgeName), limit: read.limitStopped ? opts.limit : undefined, ...(whereTally ? { where: { text: opts.where!.text, left_out: whereTally.of - whereTally.kept } } : {}), ...(costCap?.reached ? { costCap } : {}), ...(inputsRemoved !== undefined ? { inputsRemoved } : {}), settled: removed.settled });
  } finally {
    await store.close();
  }
  const summary = await summarizeLabelRun(store, opts, stopped, passedOver, since);
  if (Object.keys(runState.batchUnfinished).length) summary.batch_unfinished = runState.batchUnfinished;
  for (const w of [...runState.batchWarnings, ...reverifyWarnings(runState.reverify, store)]) if (!summary.warnings.includes(w)) summary.warnings.push(w);
  sayMoves(summary, moved.statement(), removedRecord(store.dir)?.ids, moved.moves, store.sourceMoves.statement(), moved.displaced); // moved, not lost (./moved-removed.ts)
  addInputWarnings(summary, warnings, read);
  const inputWhere = whereTally ? whereTally.statement("trajectories read") : undefined;
  // one meaning of read / kept in text, --json and summary.json (red team 2, finding 6)
  // an interrupted online run names what it read and left un-judged (issue 26): a rerun judges them
  const thisRun = thisRunOf(
    progress,
    inputWhere?.statement,
    interrupted && batchJudges === 0 ? { byJudge: runState.stoppedInFlight, judges: opts.judges.map((j) => j.id), leftByStoppedJudge: runState.leftByStoppedJudge } : undefined,
  );
  // stamped with this invocation's start (store.json `label_state.started_at`): a reader tells a summary left by an
  // earlier invocation (this one failed, was killed or could not write it) from this one's (store/run-state.ts)
  const stamp = store.snapshot.label_state?.started_at;
  const unwritten = writeSummaryFile(store.dir, { ...summary, this_run: thisRun, rejudged: rejudge, interrupted, ...(costCap ? { cost_cap: costCap } : {}), ...(stamp ? { label_started_at: stamp } : {}) });
  if (unwritten) opts.onWarning?.(unwritten);
  return {
    summary,
    runDir: store.dir,
    interrupted,
    progress,
    stoppedJudges: sortedByJudge(stopped),
    ...(costCap ? { costCap } : {}),
    adaptations,
    ...(inputWhere ? { where: { input: inputWhere.statement, warnings: inputWhere.warnings } } : {}),
    thisRun,
    ...(runState.batchStale?.size ? { batchStale: runState.batchStale.size } : {}),
    ...{ duplicateIds: read.duplicateIds, changedDuringRead: read.changedDuringRead, prepareFailed: read.prepareFailed },
    ...{ referenceChanged: read.referenceChanged, metadataChanged: read.metadataChanged },
    rejudge,
  };
}
