/**
 * The steps of `labelRun` (./label.ts), each one idea: the cost cap's price check, the running health warnings, the
 * run store's set-up for an invocation (configuration changes, judges, invocation record), the reading loop that
 * stores trajectories and schedules their judging (the summary at the end: `./label-summary.ts`).
 */
import { quoted } from "../format/quote-name.js";
import { reserveForBatch } from "./batch-cap.js";
import { RequestBuildError } from "./batch-types.js";
import { UsageError } from "../errors.js";
import { IngestFatalError, readTrajectories, readTrajectoriesResuming, type IngestWarning, type ReadOptions, type UnchangedFile, type UnchangedItem } from "../ingest/index.js";
import type { Trajectory, Verdict } from "../types.js";
import { referenceKey, verdictKey, type RunStore, type TrajectoryIndexRow } from "../store/run-store.js";
import { WhereTally, matchesWhere } from "../store/where.js";
import type { WhereWarnings } from "./where-warnings.js";
import { addVerdict, emptyHealth, flagCodesOf, flaggedWords, HEALTH_THRESHOLDS, withFlags, type JudgeHealth } from "../verdict/health.js";
import type { openBatchPaths } from "./batch-paths.js";
import type { OpenAIJudge } from "../judges/llm-judge.js";
import { batchEntries, configChanges, CONFIG_CHANGE_HELP, inFlightWithoutBatch, JudgeConfigChangedError, promptChanges, TRANSPORT_KEY_VERSION } from "./config-change.js";
import type { MovedContent } from "./moved-content.js";
import { keepStoredChatId, planRepeats, type StoredChatIds } from "./resume.js";
import { countRejudging, formatRejudge, type RejudgeCount } from "./rejudge.js";
import { PreparationError, type TrajectoryPreparer } from "./prepare.js";
import { countInputItem, markLeftByStop, progressDone, type LabelRunState } from "./label-core.js";
import { recordCrash, type OnlinePath } from "./online.js";
import type { LabelOptions } from "./label-options.js";
import { activeJudges, repeatsLeft, repeatsOpen, stampRow, type InBatch } from "./fast-resume.js";
import { corruptLinesError } from "./corrupt-lines.js";
import { preCount } from "./before-reading.js";
import type { ReadSince } from "./read-since.js";
import type { RemovedInputs } from "./removed-inputs.js";
import { toolArgumentsRecord } from "../ingest/tool-arguments.js";
import { changedCellFields, metadataKey } from "../store/meta-key.js";

/**
 * Refuse a cost cap with an unpriced LLM judge: it would reserve $0 per item and the cap never fire (checked here,
 * not only in the CLI: a library caller gets the same refusal; issue 23).
 * @throws UsageError naming the judges without a price.
 */
export function requirePricesForCap(opts: LabelOptions): void {
  if (opts.maxCostUsd === undefined) return;
  const unpriced = opts.judges.filter((j) => {
    const cfg = (j as unknown as { config?: { price?: unknown } }).config;
    return cfg !== undefined && !cfg.price;
  });
  if (unpriced.length)
    throw new UsageError(
      `maxCostUsd needs a price for every judge; ${unpriced.map((j) => `"${j.id}"`).join(", ")} has none (add price: {input_per_mtok, cached_input_per_mtok, output_per_mtok} to its config)`,
    );
}

/** The health flags the running warnings leave to the summary: marks on compliance labels to check (../verdict/marked-compliance.ts). */
export const SAID_IN_SUMMARY: ReadonlySet<string> = new Set(["tool_arguments_invalid", "compliance_evidence_unrelated"]);

/**
 * The running health of each judge over this invocation's verdicts: the returned function takes each verdict, and a
 * judge that looks broken is named through `onWarning` once per flag (after HEALTH_THRESHOLDS.minVerdicts
 * verdicts), so a user can stop before paying for the rest. A marked-compliance flag ({@link SAID_IN_SUMMARY}: labels
 * to check, never a broken judge) is no reason to stop: the summary says it once, with the run's final counts (session
 * 51: the unrelated-evidence warning was printed while running, with early counts, and again in the summary).
 */
export function healthWarnings(onWarning: LabelOptions["onWarning"]): (v: Verdict) => void {
  const tallies = new Map<string, JudgeHealth>();
  const warned = new Set<string>();
  return (v: Verdict) => {
    let h = tallies.get(v.judge_id);
    if (!h) tallies.set(v.judge_id, (h = emptyHealth(v.judge_id, v.judge_model)));
    addVerdict(h, v);
    if (h.verdicts < HEALTH_THRESHOLDS.minVerdicts) return;
    // which flags are set, cheaply; the flags' sentences only when a code first appears (the same warnings at the same
    // verdict as building them all each time)
    const codes = flagCodesOf(h);
    if (codes.every((c) => warned.has(`${v.judge_id}\u0000${c}`))) return;
    for (const f of withFlags(h).flags) {
      const k = `${v.judge_id}\u0000${f.code}`;
      if (warned.has(k)) continue;
      warned.add(k);
      if (SAID_IN_SUMMARY.has(f.code)) continue;
      onWarning?.(`judge ${quoted(v.judge_id)} (${v.judge_model}) ${flaggedWords([f.code])} (${f.code}): ${f.message}; the run goes on (Ctrl-C stops it, keeping what is stored)`);
    }
  };
}

/**
 * Set the run store up for this invocation: the cost cap starts at what the run has paid; a judge whose configuration
 * changed refuses the run (`refuse`: the store abandoned) or is warned about; `store.json` names every judge with its
 * latest configuration; the progress total (the limit, or a pre-count when progress is reported); the invocation's
 * record; an error for unreadable journal lines.
 * @throws JudgeConfigChangedError under `refuse` when a judge's configuration changed.
 * @throws UsageError without `--batch` when a judge has Batch API chunks in flight.
 */
export async function openInvocation(
  rs: LabelRunState,
  opts: LabelOptions,
  ctx: { repeats: number; onChange: "refuse" | "rejudge" | "keep" },
): Promise<void> {
  const { store, progress, costCap, configs: current } = rs;
  const { repeats, onChange } = ctx;
  if (costCap) {
    // the cap is on what the run has paid: every verdict earlier invocations stored counts, superseded ones
    // (re-judged errors, verdicts of an older configuration or prompt) included: they were paid for too
    // (summed by the store as it loaded the journal)
    costCap.spent_usd = costCap.spent_before_usd = store.paidUsd;
    costCap.unknown_cost_before = store.unknownCostVerdicts;
    // a cap already spent is "reached" only when a request is held back: a run with nothing left stays complete
  }
  // chunks of an earlier --batch run still in flight are collected by --batch only (red team 28)
  const flyingWithoutBatch = opts.batch ? undefined : inFlightWithoutBatch(opts.run, batchEntries(store.snapshot.extra), opts.judges);
  if (flyingWithoutBatch) {
    store.abandon();
    throw new UsageError(flyingWithoutBatch);
  }
  // issue 12.5: a judge whose configuration changed since its verdicts were stored is never taken as the same
  // a changed judge prompt (rubric version or its text) is the same choice: judging again is paid again
  const changes = [...configChanges(store, opts.judges, current, store.snapshot.judges ?? []), ...promptChanges(store.ledger, opts.judges)];
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
      // the key's version (../run/config-change.ts legacyTransportKey): a run written now is read with transport in its key
      config_key_version: current.get(j.id)!.keyVersion ?? TRANSPORT_KEY_VERSION,
    })),
  ];
  // The pre-count walks every input once more (it stops at a Ctrl-C: ./before-reading.ts); with a limit, the limit is
  // the total (a bar that ends early when the input is smaller than the limit is corrected by the reporter: total >= read).
  await preCount(opts, progress);
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
      retry_refusals: !!opts.retryRefusals,
      on_config_change: onChange,
      budget_chars: opts.budgetChars,
      format: opts.format,
      batch: !!opts.batch,
      overrides: opts.overrides,
      field_map: opts.fieldMap,
      security_scorer: opts.securityScorer,
      utility_scorer: opts.utilityScorer,
    },
  };
  // the unreadable lines this open skipped, by file and line (a record of other lines is superseded: ./corrupt-lines.ts)
  const corrupt = corruptLinesError(store);
  if (corrupt) store.addError(corrupt);
}

/** A chat-JSONL line given the id this run stored for it under the older fallback-id rule. */
export type RemappedId = { from: string; to: string; path: string };

/** What the reading loop did ({@link readAndSchedule}). */
export interface ReadOutcome {
  /** Stopped by the signal (not by a fatal store error). */
  interrupted: boolean;
  /** `--limit` stopped the reading (a trajectory past the limit was there): the run covers part of its inputs. */
  limitStopped: boolean;
  duplicateIds: number;
  /** Input files that changed while they were read (input errors `changed_during_read`: red team 31 F4). */
  changedDuringRead: number;
  /** Trajectories that could not be prepared (item errors `prepare_failed`: passed over, the others judged). */
  prepareFailed: number;
  referenceChanged: number;
  /** Stored trajectories whose cell-naming fields changed in the input (same content): rows re-written (`metadata_changed`). */
  metadataChanged: number;
  /** Of {@link metadataChanged}, those whose attacked status flipped (their verdicts were decided under the other). */
  attackedChanged: number;
  remapped: RemappedId[];
}

/** What both passes over the input need (the re-judge count first, then the reading loop), so they read alike. */
interface ReadContext {
  repeats: number;
  onChange: "refuse" | "rejudge" | "keep";
  readOpts: ReadOptions;
  oldIds: StoredChatIds;
  preparer: TrajectoryPreparer;
  duplicateFrom: (t: Trajectory) => string | undefined;
  /** The resume fast path's check (`./fast-resume.ts`), or undefined: every file read. */
  unchanged?: UnchangedFile;
  /** Watches the read for inputs of stored errors read without error since (`./read-since.ts`). */
  since?: ReadSince;
  /** Watches the read for the ids it meets: the run's others whose file is gone are `input_removed` (`./removed-inputs.ts`). */
  removed?: RemovedInputs;
  /** With `--where`: the trajectories' held input warnings, by whether the filter keeps them (`./where-warnings.ts`). */
  whereWarnings?: WhereWarnings;
  /** Carries a moved trajectory's verdicts over to its new id instead of judging it again (`./moved-content.ts`). */
  moved?: MovedContent;
}

/**
 * Read the input once: keep a stored chat id, stop on the signal, a fatal store error or a reached cost cap; store
 * each input error; prepare each trajectory, apply `--limit` then `--where`, store it ({@link admitTrajectory}) and
 * schedule what is still to judge ({@link scheduleRepeats}); wait while too much is in flight; stop when every judge
 * is stopped.
 */
export async function readAndSchedule(
  rs: LabelRunState,
  opts: LabelOptions,
  ctx: ReadContext & {
    whereTally: WhereTally | null;
    batchers: Awaited<ReturnType<typeof openBatchPaths>>;
    online: OnlinePath;
    /** Run once, before the first repeat to judge is scheduled (the re-judge count, said before anything is sent). */
    beforeFirstSend?: () => Promise<void>;
  },
): Promise<ReadOutcome> {
  const { store, progress, stopped, costCap } = rs;
  const { readOpts, oldIds, preparer, whereTally, duplicateFrom, online } = ctx;
  const report = rs.report;
  const out: ReadOutcome = { interrupted: false, limitStopped: false, duplicateIds: 0, changedDuringRead: 0, prepareFailed: 0, referenceChanged: 0, metadataChanged: 0, attackedChanged: 0, remapped: [] };
  const remapped = out.remapped;
  let beforeFirstSend = ctx.beforeFirstSend;
  let taken = 0;
  const read = ctx.unchanged ? readTrajectoriesResuming(opts.inputs, readOpts, ctx.unchanged) : readTrajectories(opts.inputs, readOpts);
  const items = ctx.since ? ctx.since.watch(read, ctx.removed) : ctx.removed ? ctx.removed.watch(read) : read;
  for await (const item of items) {
    if (item.kind === "trajectory" && oldIds.byLine.size > 0) {
      const to = keepStoredChatId(item.trajectory, oldIds);
      if (to !== undefined) {
        remapped.push({ from: item.trajectory.id, to, path: item.trajectory.source.path });
        ctx.removed?.meet(to);
        item.trajectory.id = to;
      }
    }
    if (opts.signal?.aborted || rs.fatal) {
      out.interrupted = !rs.fatal;
      break;
    }
    if (costCap?.reached) break;
    if (item.kind === "error") {
      if (item.error.kind === "duplicate_id") out.duplicateIds++;
      if (item.error.kind === "changed_during_read") out.changedDuringRead++;
      // an empty placeholder (a combination the benchmark never ran) and an input given twice are stored but are no error of the input
      if (store.addError(item.error)) countInputItem(progress, item.error.kind);
      report();
      continue;
    }
    if (item.kind === "unchanged") {
      // a file taken as unchanged unread (./fast-resume.ts): stored as it is, every repeat done; read, kept and skipped as a read would count it
      if (opts.limit !== undefined && taken >= opts.limit) {
        out.limitStopped = true;
        break;
      }
      taken++;
      progress.read++;
      progress.unread++;
      progress.skipped += skippedUnchanged(rs, opts, item, { ...ctx, inBatch: inBatchOf(ctx.batchers) });
      report();
      if (opts.judges.every((j) => stopped[j.id])) break;
      continue;
    }
    // Injected text the input does not record recovered, surfaces decided, the index row (./prepare.ts)
    const prepared = await prepareOrRecord(rs, opts, preparer, item.trajectory, ctx.since);
    if (!prepared) {
      out.prepareFailed++;
      continue;
    }
    const { trajectory: t, row, surfaceWarnings, external } = prepared;
    stampRow(row, external ? undefined : item.stamp, opts, surfaceWarnings);
    // --limit first: a trajectory read after the limit is reached is not tallied by --where either, so its
    // statement ("N kept") says what was judged; --where: one it does not keep is neither stored nor judged (nor
    // counted by --limit)
    if (opts.limit !== undefined && taken >= opts.limit) {
      out.limitStopped = true;
      break;
    }
    const kept = !whereTally || whereTally.add(row);
    // the input warnings of a trajectory --where leaves out are not this run's: counted, not said (./where-warnings.ts)
    ctx.whereWarnings?.item(item.warnings, kept);
    if (!kept) continue;
    taken++;
    progress.read++;
    const { state: admitted, metadataChanged } = admitTrajectory(rs, t, row, surfaceWarnings, duplicateFrom(t));
    if (metadataChanged.length > 0) out.metadataChanged++;
    if (metadataChanged.includes("attacked")) out.attackedChanged++;
    if (admitted === "duplicate") {
      out.duplicateIds++;
      report();
      continue;
    }
    if (admitted === "reference_changed") out.referenceChanged++;
    // the same content as a stored trajectory whose input file is gone: moved, its verdicts carried over, the rest judged
    const carriedFrom = await ctx.moved?.carry(row, row.content_sha256, () => repeatsLeft(rs, opts, t.id, row.content_sha256, ctx.repeats, ctx.onChange) > 0, (old, c) => repeatsLeft(rs, opts, old, c, ctx.repeats, ctx.onChange) < repeatsLeft(rs, opts, "", c, ctx.repeats, ctx.onChange));
    if (admitted === "changed") noteChanged(rs, t, carriedFrom, repeatsLeft(rs, opts, t.id, row.content_sha256, ctx.repeats, ctx.onChange) > 0);
    if (beforeFirstSend && repeatsLeft(rs, opts, t.id, row.content_sha256, ctx.repeats, ctx.onChange) > 0) {
      await beforeFirstSend();
      beforeFirstSend = undefined;
    }
    scheduleRepeats(rs, opts, t, row.content_sha256, ctx);
    rs.reverify?.take(t, row.content_sha256); // its stored verdicts verified under older rules, verified again (./reverify.ts)
    report();
    while (rs.pending.size >= online.maxPending || (rs.pending.size >= online.minPendingForChars && rs.pendingChars >= online.maxPendingChars)) await new Promise<void>((r) => (rs.wake = r));
    if (opts.judges.every((j) => stopped[j.id])) break;
  }
  // the read ended on its own: inputs counted by the pre-count and gone before the walk reached them were never read,
  // and the total no longer promises them (break44: "49/50" with an ETA after the last item)
  const whole = !out.interrupted && !out.limitStopped && !costCap?.reached && !rs.fatal && !opts.judges.every((j) => stopped[j.id]);
  const done = progressDone(progress);
  if (whole && done < progress.total) {
    progress.total = done;
    report();
  }
  return out;
}

/**
 * One trajectory of the read prepared (`./prepare.ts`), or undefined when it could not be: its `prepare_failed` error
 * stored and counted among the input errors, the item passed over, the run going on (red team 42: one item's fault
 * stopped the whole run). A read watched for stored errors answered since (`./read-since.ts`) is told it was raised again.
 * @throws IngestFatalError with `--strict` (stop at the first bad item); any other fault than a preparation's as it is.
 */
async function prepareOrRecord(rs: LabelRunState, opts: LabelOptions, preparer: TrajectoryPreparer, raw: Trajectory, since?: ReadSince) {
  try {
    return await preparer.prepare(raw);
  } catch (e) {
    if (!(e instanceof PreparationError)) throw e;
    if (opts.strict) throw new IngestFatalError(e.error);
    since?.raise(e.error);
    if (rs.store.addError(e.error)) rs.progress.errors++;
    rs.report();
    return undefined;
  }
}

/**
 * The batch paths' check for the resume fast path (`InBatch`, `./fast-resume.ts`): whether a judge's batch path holds
 * a verdict key in a chunk sent earlier. Undefined without batch judges.
 */
export function inBatchOf(batchers: ReadonlyMap<string, { inBatch(key: string): boolean }>): InBatch | undefined {
  return batchers.size ? (judgeId, key) => batchers.get(judgeId)?.inBatch(key) ?? false : undefined;
}

/**
 * The repeats a file taken as unchanged counts as skipped, as a read would count them (`scheduleRepeats`): every
 * repeat of every judge not stopped, but new ones a batch of an earlier process holds (awaited, neither judged nor
 * skipped). The check made before the file was passed over found none left, and its count (`item.repeats`) is taken
 * as it is while the judges it counted are all still running (nothing else judges the trajectory meanwhile: a read
 * meets its id once, and it had no repeat left to send); otherwise they are counted again, and any left then is an
 * internal error, never a silent skip.
 * @throws Error when the trajectory has repeats left.
 */
function skippedUnchanged(rs: LabelRunState, opts: LabelOptions, item: UnchangedItem, ctx: { repeats: number; onChange: "refuse" | "rejudge" | "keep"; inBatch?: InBatch }): number {
  const id = item.id;
  const judges = activeJudges(rs, opts);
  if (item.repeats !== undefined && item.repeats.judges === judges) return ctx.repeats * judges - item.repeats.awaited;
  const content = rs.store.storedContent(id);
  const open = content === undefined ? undefined : repeatsOpen(rs, opts, id, content, ctx);
  if (open === undefined || open.left > 0) throw new Error(`internal error: trajectory ${id} was passed over as unchanged with work left; run again with --verify-content`);
  return ctx.repeats * opts.judges.filter((j) => !rs.stopped[j.id]).length - open.awaited;
}

/**
 * Store one prepared trajectory of the input: its surface warnings as errors; a duplicate id (this run holds other
 * content under it from another input: `storedFrom`) is an input error and is not stored; otherwise its index row,
 * with an error saying so when its benchmark reference or its content changed.
 * With its cell-naming fields changed (same content: `../store/meta-key.ts`), the row is re-written and an error of
 * kind `metadata_changed` names the fields, old and new.
 * @returns `state`: `duplicate` (not stored, not to judge), `reference_changed` (stored, the row re-written), `changed`
 *   (stored, its content changed since labelled: the caller writes the note, {@link noteChanged}), or `stored`; `metadataChanged`: the cell-naming fields whose change re-wrote its row (empty when none).
 */
export function admitTrajectory(
  rs: LabelRunState,
  t: Trajectory,
  row: TrajectoryIndexRow,
  surfaceWarnings: readonly string[],
  storedFrom: string | undefined,
): { state: "duplicate" | "reference_changed" | "changed" | "stored"; metadataChanged: string[] } {
  const { store, progress } = rs;
  for (const w of surfaceWarnings) {
    store.addError({ path: t.source.path, line: t.source.line, trajectory_id: t.id, kind: "surface_mismatch", message: w });
  }
  // every trajectory with a call whose arguments are not valid JSON, listed (the ingest warning names one per file)
  const bad = toolArgumentsRecord(t);
  if (bad) store.addError(bad);
  if (storedFrom !== undefined) {
    store.addError({
      path: t.source.path,
      line: t.source.line,
      trajectory_id: t.id,
      kind: "duplicate_id",
      message: `duplicate trajectory id "${t.id}": this run already holds a different trajectory under it, read from ${storedFrom}; this one is not judged (give each trajectory its own id, or label it in another --run)`,
    });
    progress.errors++;
    return { state: "duplicate", metadataChanged: [] };
  }
  const refBefore = store.storedReference(t.id);
  const metaBefore = store.storedMetadata(t.id);
  const state = store.addTrajectory(row);
  // break54 #0: the model, condition, attack, suite, tasks or surfaces fixed in the input (same content): the row follows
  const fields = (state === "metadata_changed" || state === "reference_changed") && metaBefore !== undefined ? changedCellFields(metaBefore, metadataKey(row)) : [];
  if (fields.length > 0) {
    const flip = fields.includes("attacked") ? `; it is ${row.attacked ? "attacked" : "unattacked"} now and its stored verdicts were decided as ${row.attacked ? "unattacked" : "attacked"} (DESIGN row 6, the unattacked rule): they stand as stored, a fresh run may label it otherwise` : "";
    store.addError({
      path: t.source.path,
      line: t.source.line,
      trajectory_id: t.id,
      kind: "metadata_changed",
      message: `trajectory ${t.id}: ${fields.join(", ")} changed in the input since it was labelled (${metaBefore} -> ${metadataKey(row)}); its index row now carries the new values (every figure reads them); the verdicts stand (they judge the content, which is the same)${flip}`,
    });
  }
  if (state === "reference_changed") {
    // finding 5: the benchmark's verdict changed in the input (same content): the index row follows it, said
      store.addError({
      path: t.source.path,
      line: t.source.line,
      trajectory_id: t.id,
      kind: "reference_changed",
      message: `trajectory ${t.id}: the benchmark's reference changed since it was labelled (${refBefore} -> ${referenceKey(row.reference)}); its index row now carries the new reference (agree/compare read it); the verdicts stand (they do not depend on the reference)`,
    });
  }
  // a changed content's note is written once the caller knows whether its verdicts were carried ({@link noteChanged})
  return { state: state === "reference_changed" ? "reference_changed" : state === "changed" ? "changed" : "stored", metadataChanged: fields };
}

/**
 * The `content_changed` note of a trajectory whose content changed since it was labelled, saying what happened to it:
 * judged again (`progress.changed`), or, its new content stored under another id whose row moved onto this one (a
 * chat-JSONL row deleted or inserted above it: `./moved-content.ts`), its verdicts carried from `carriedFrom`
 * (`progress.changed_carried`; runs55 #1: 30 carried rows were said as "30 trajectories changed ... (judged again)").
 * `more`: whether the carried verdicts left judges or repeats to send (those are judged).
 */
export function noteChanged(rs: LabelRunState, t: Trajectory, carriedFrom: string | undefined, more: boolean): void {
  if (carriedFrom === undefined) rs.progress.changed++;
  else rs.progress.changed_carried = (rs.progress.changed_carried ?? 0) + 1;
  rs.store.addError({
    path: t.source.path,
    line: t.source.line,
    trajectory_id: t.id,
    kind: "content_changed",
    message:
      carriedFrom === undefined
        ? `trajectory ${t.id} changed since it was labelled (its content hash differs); it is judged again and the new verdicts supersede the old`
        : `trajectory ${t.id} changed since it was labelled (its content hash differs): its content now is the one labelled as ${carriedFrom} (a row moved), whose verdicts were carried over (no judge call) and supersede the old${more ? "; the judges and repeats they do not cover are judged" : ""}`,
  });
}

/**
 * Schedule every repeat of every judge not stopped that this trajectory still needs (`planRepeats`: a verdict
 * belongs to the content it judged, issue 27): into its judge's batch (unless a batch sent by an earlier process
 * holds it) or on the online path. Counts the repeats already stored as skipped.
 */
export function scheduleRepeats(
  rs: LabelRunState,
  opts: LabelOptions,
  t: Trajectory,
  content: string,
  ctx: { repeats: number; onChange: "refuse" | "rejudge" | "keep"; batchers: Awaited<ReturnType<typeof openBatchPaths>>; online: OnlinePath },
): void {
  const { store, progress, stopped, configs: current } = rs;
  const { repeats, onChange, batchers, online } = ctx;
  for (const judge of opts.judges) {
    const k4 = (r: number) => ({ trajectory_id: t.id, judge_id: judge.id, repeat: r, prompt_sha256: judge.promptSha256 });
    // a verdict belongs to the content it judged (issue 27): one made on other content is work still to do
    const plan = () => planRepeats(t, content, judge, repeats, store.ledger, { configSha: current.get(judge.id)!.sha, onConfigChange: onChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals });
    if (stopped[judge.id]) {
      // read with work left for a judge stopped by its own error: never sent, said apart from what a Ctrl-C left
      if (!batchers.has(judge.id) && plan().length > 0) markLeftByStop(rs, judge.id, t.id);
      continue;
    }
    const todo = plan();
    progress.skipped += repeats - todo.length;
    for (const { repeat: r } of todo) {
      const batcher = batchers.get(judge.id);
      if (batcher) {
        // the Batch API's bookkeeping keys conversations without the configuration hash
        // already in a batch sent by an earlier (killed) process: its result is awaited, not paid twice; a new one is
        // reserved by the cost cap at the price the batch bills (./batch-cap.ts)
        if (batcher.inBatch(verdictKey(k4(r)))) continue;
        // the request is built here (its cost estimated, the trajectory rendered): a fault on this item is its
        // judge_crash and the run goes on (red team 42); a request file that cannot be written stops it
        let reservedNow: boolean;
        try {
          reservedNow = reserveForBatch(rs, t, judge);
        } catch (e) {
          recordCrash(rs, t, judge.id, r, e, true);
          continue;
        }
        if (!reservedNow) continue;
        try {
          batcher.add(t, { repeat: r, budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars }, content);
        } catch (e) {
          if (!(e instanceof RequestBuildError)) throw e;
          recordCrash(rs, t, judge.id, r, e.cause, true);
        }
        continue;
      }
      online.schedule(t, judge, r, content);
    }
  }
}

/** Record in `store.json` the request settings each judge actually used, and collect what each adapted to its server. */
export function recordRequestParams(store: RunStore, judges: LabelOptions["judges"], adaptations: Record<string, string[]>): void {
  for (const j of judges) {
    const p = (j as Partial<OpenAIJudge>).requestParams?.();
    const row = store.snapshot.judges.find((x) => x.id === j.id) as (Record<string, unknown> & { id: string }) | undefined;
    if (p && row) {
      row.request_params = p;
      if (p.adapted.length) adaptations[j.id] = p.adapted;
    }
  }
}

/** The warning for chat-JSONL lines that kept the id stored under the older id rule, or undefined when none did. */
export function idRuleWarning(remapped: readonly RemappedId[], dir: string): IngestWarning | undefined {
  if (remapped.length === 0) return undefined;
  return {
    kind: "id_rule_changed",
    path: dir,
    count: remapped.length,
    message:
      `${remapped.length} chat-JSONL line(s) without an id keep the id this run stored for them (under the older id rule, or relative to the directory it was labelled from) ` +
      `(e.g. ${remapped[0].path} line ${remapped[0].from.slice(remapped[0].from.lastIndexOf(":") + 1)}: "${remapped[0].to}", now "${remapped[0].from}" for a new run): not judged or counted twice`,
  };
}

/**
 * The stored verdicts this invocation will judge again, counted by reason before any is sent (issue 22 item 8; over
 * the trajectories this invocation judges: prepared, filtered by `--where` and de-duplicated as the reading loop
 * does) and said through `onWarning`. `labelRun` runs it when its reading loop first finds a repeat to judge (every
 * verdict judged again is such a repeat: a loop that finds none judges nothing again, and the count is empty).
 */
export async function countRejudgingFirst(
  opts: LabelOptions,
  ctx: ReadContext & {
    store: RunStore;
    configs: LabelRunState["configs"];
  },
): Promise<RejudgeCount> {
  const { repeats, onChange, readOpts, oldIds, preparer, duplicateFrom, store, configs } = ctx;
  const rejudge = await countRejudging({
    inputs: opts.inputs,
    read: readOpts,
    limit: opts.limit,
    judges: opts.judges,
    repeats,
    ledger: store.ledger,
    configs,
    onConfigChange: onChange,
    retryErrors: opts.retryErrors,
    retryRefusals: opts.retryRefusals,
    oldIds,
    signal: opts.signal,
    onHeapCheck: opts.onHeapCheck,
    prepare: (raw) => preparer.prepare(raw),
    unchanged: ctx.unchanged,
    keep: (p) => matchesWhere(p.row, opts.where) && duplicateFrom(p.trajectory) === undefined,
    othersOf: ctx.moved ? (id, sha) => ctx.moved!.idsHolding(sha, id) : undefined,
  });
  for (const line of formatRejudge(rejudge, new Map(opts.judges.map((j) => [j.id, j.rubricVersion])))) opts.onWarning?.(`${line} (before anything is sent)`);
  return rejudge;
}
