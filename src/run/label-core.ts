/**
 * The shared core of a label run, as its two paths see it: the progress record, and the state the online path
 * (`./online.ts`) and the batch path (`./batch.ts`) both write into (the run store, what was stopped, the cost
 * cap, the configuration hash each verdict gets, progress reports and running judge health). `labelRun`
 * (`./label.ts`) builds it, reads and schedules the items, and ends the run.
 */
import type { StoredReverifier } from "./reverify.js";
import type { BatchUnfinished } from "./batch-types.js";
import { IdBits } from "../store/id-bits.js";
import type { RunStore } from "../store/run-store.js";
import type { Verdict } from "../types.js";
import type { CostCapState } from "./cost-cap.js";

/** Progress of a label run, reported after every stored verdict or error. */
export interface LabelProgress {
  /** Trajectories read so far (including ones already judged). */
  read: number;
  /**
   * Expected number of input items to read (files + lines), from a cheap pre-count, leaving out the empty placeholders
   * it recognised ({@link placeholders_counted}: passed over at once, they are no work); 0 while unknown.
   */
  total: number;
  /**
   * Empty placeholders the pre-count recognised and left out of {@link total} (`countInputItems`,
   * ../ingest/placeholder-count.ts); absent when none. {@link progressDone} leaves as many of the ones met out.
   */
  placeholders_counted?: number;
  /** Verdicts stored by this process. */
  judged: number;
  /** Verdicts skipped because they were already stored (resume). */
  skipped: number;
  /**
   * Input errors newly stored by this process (never the empty placeholders: {@link empty_placeholders}; never a
   * judge's crash: {@link judge_crashes}, which this counted too until red team L3).
   */
  errors: number;
  /**
   * Judge crashes newly stored by this process (errors.jsonl kind `judge_crash`: a judge threw on an item, e.g. a
   * signature worker killed by it, or its verdict could not be stored): no verdict stored for that judge and item, so a
   * rerun judges it again. Not input errors: the item was read (it is in `read`), its input is fine.
   */
  judge_crashes: number;
  /**
   * Of {@link judge_crashes}, per judge and kind (`timed_out`, `worker_died`, `not_stored`, `other`; absent until
   * one crashed).
   */
  judge_crashes_by_judge?: Record<string, Record<string, number>>;
  /** Per judge: the items this process sent it (online; absent until one was sent): the share that crashed is loud. */
  sent_by_judge?: Record<string, number>;
  /**
   * Empty placeholder files met by this process (`messages: []` and no verdict: a combination the benchmark never
   * ran, VIGIL has 8,023): stored in `errors.jsonl` as kind `empty_placeholder` but not an error of the input, so
   * counted apart from {@link errors}.
   */
  empty_placeholders: number;
  /**
   * Inputs given twice met by this process (errors.jsonl kind `duplicate_input`: the same file, line or Inspect sample
   * again, e.g. an `inspect eval-retry` log beside its original, or a byte-identical copy): read once, no error of the
   * input, so counted apart from {@link errors} (new user 48: `errors: 4` for nothing wrong). Absent: none (a progress
   * record from before the field).
   */
  duplicate_inputs?: number;
  /**
   * Online verdicts in flight when the report was made: their judge is at work on them (a request out, or the wait
   * before a retry), at most the judges' concurrency together (progress reports only: a finished run has none, so
   * `this_run.in_flight` is 0; what an interrupted run left un-judged is `this_run.in_flight_when_stopped`).
   */
  in_flight: number;
  /**
   * Online verdicts read and waiting for a turn of their judge (its `concurrency` is taken), when the report was made;
   * the reading loop reads ahead up to twice the judges' concurrency (`OnlinePath.maxPending`). Progress reports only.
   */
  queued?: number;
  /** Trajectories whose content changed since they were labelled and were judged again (no verdict carried). */
  changed: number;
  /**
   * Trajectories whose content changed since they were labelled and took the verdicts of their new content from the
   * id it was stored under (a row moved: `./moved-content.ts`), not judged again for them; absent when none.
   */
  changed_carried?: number;
  /**
   * Of `read`, the trajectories a resume took as unchanged without reading their file (its path, size and mtime as
   * recorded: `./fast-resume.ts`); `--verify-content` reads them.
   */
  unread: number;
}

/** The state of one label run shared by the reading loop, the online path and the batch path. */
export interface LabelRunState {
  readonly store: RunStore;
  readonly progress: LabelProgress;
  /** Judges stopped by a fatal error (bad key, no quota), with the message: their items stay un-judged. */
  readonly stopped: Record<string, string>;
  /** Set when `maxCostUsd` was given: what the run has paid, and whether a request was held back. */
  readonly costCap: CostCapState | undefined;
  /** Batch judges whose Batch API path stopped on a failing files/batches call, with what they left (`./batch-paths.ts`). */
  readonly batchUnfinished: Record<string, BatchUnfinished>;
  /**
   * Trajectories whose batch verdict, stored by this invocation, was made on another text than the trajectory's now
   * (edited after an earlier process sent the batch: red team 37 F4); `labelRun` judges them again in a second pass.
   */
  batchStale?: Set<string>;
  /** What the batch path warned of (said on stderr as it came), for the summary's `warnings` (`./batch-paths.ts`). */
  readonly batchWarnings: string[];
  /** USD reserved for verdicts in flight (cost cap). */
  reserved: number;
  /** A store that cannot be written (the run stops and rethrows it at the end). */
  fatal: unknown;
  /** Per judge: the `judge_config_sha256` its verdicts get, and the configuration hashed (`runJudgeConfig`). */
  readonly configs: Map<string, { sha: string; config: Record<string, unknown>; keyVersion?: number }>;
  /** The run's settings every judge gets per item. */
  readonly judgeCtx: { budgetChars?: number; minQuoteChars?: number; abortSignal?: AbortSignal; onWarning?: (message: string) => void };
  readonly signal: AbortSignal | undefined;
  /** Online verdicts scheduled and not yet ended, queued or at their judge (the reading loop waits when there are too many). */
  readonly pending: Set<Promise<void>>;
  /** Of {@link pending}, the verdicts whose judge is at work on them now (`judge()` called, not yet returned). */
  judging: number;
  /** Of {@link pending}, the verdicts waiting for a turn of their judge (its concurrency taken). */
  queued: number;
  /**
   * Characters of text of the trajectories those verdicts judge (`heldChars`, counted once per verdict in flight):
   * the reading loop also waits when they pass `OnlinePath.maxPendingChars`.
   */
  pendingChars: number;
  /**
   * Per judge: ids of the trajectories read whose online repeat for that judge the stop (the signal) left
   * un-judged and unstored: queued when it came, or cut short before any reply. Another judge may have stored its
   * verdict of the same trajectory. A rerun judges what is missing (`ThisRun.in_flight_when_stopped`, `_by_judge`).
   */
  readonly stoppedInFlight: Map<string, Set<string>>;
  /**
   * Per judge stopped by its own fatal error (`stopped`): ids of the trajectories read that it left un-judged and
   * unstored because it had stopped: the one(s) whose request stopped it (nothing paid stored) and those queued or
   * read after, with work left for it, never sent (`ThisRun.left_by_stopped_judge`). Not in `stoppedInFlight`.
   * One bit per trajectory of the run store's id table (`IdBits`: a judge that stops early in a million-trajectory
   * run held ~100 MB of ids in a `Set`); identity is kept so that a trajectory is counted once across its repeats.
   */
  readonly leftByStoppedJudge: Map<string, IdBits>;
  /**
   * The re-verifier of stored verdicts verified under older rules (`./reverify.ts`): set when the run holds some of a
   * judge this invocation runs; the reading loop hands it each prepared trajectory, the fast path reads their files.
   */
  reverify?: StoredReverifier;
  /** Wakes the reading loop when an item finishes (cheaper than racing every pending promise per item). */
  wake: (() => void) | undefined;
  /** Report progress (`LabelOptions.onProgress`) with the verdicts in flight. */
  report(): void;
  /** Count a stored verdict into its judge's running health, warning once per flag. */
  track(v: Verdict): void;
  /** Stop a judge after a `JudgeFatalError` (recorded in the store's snapshot; `onJudgeStopped` is called once). */
  stopJudge(judgeId: string, message: string): void;
}

/**
 * Record that a judge stopped by its own error left trajectory `id` un-judged ({@link LabelRunState.leftByStoppedJudge}).
 */
export function markLeftByStop(run: Pick<LabelRunState, "leftByStoppedJudge" | "store">, judgeId: string, id: string): void {
  let ids = run.leftByStoppedJudge.get(judgeId);
  if (!ids) run.leftByStoppedJudge.set(judgeId, (ids = new IdBits(run.store.idSlots)));
  ids.add(id);
}

/**
 * Count one input item stored in errors.jsonl that is no trajectory read: an empty placeholder and an input given
 * twice (read once) apart from the input errors ({@link LabelProgress}).
 */
export function countInputItem(progress: LabelProgress, kind: string): void {
  if (kind === "empty_placeholder") progress.empty_placeholders++;
  else if (kind === "duplicate_input") progress.duplicate_inputs = (progress.duplicate_inputs ?? 0) + 1;
  else progress.errors++;
}

/**
 * The input items done, on the scale of {@link LabelProgress.total}: trajectories read, plus input errors, inputs given
 * twice and the empty placeholders met beyond those the pre-count left out of the total (`placeholders_counted`). A
 * judge's crash on an item is not one more: the item is in `read` (red team L3: counted twice).
 */
export function progressDone(p: LabelProgress): number {
  return p.read + p.errors + (p.duplicate_inputs ?? 0) + Math.max(0, (p.empty_placeholders ?? 0) - (p.placeholders_counted ?? 0));
}
