/**
 * The options of a label run (`labelRun`, ./label.ts; `label --dry-run`, ./dry-run.ts), in their own file so the
 * runner's steps (./label-steps.ts) take them without importing the runner.
 */
import type { Judge } from "../judges/judge.js";
import type { IngestWarning, InputFormat, ReadOptions } from "../ingest/index.js";
import type { WhereFilter } from "../store/where.js";
import type { BatchSettings } from "./batch.js";
import type { LabelProgress } from "./label-core.js";

/** What a label run reads, with which judges, into which run, and how (see each field). */
export interface LabelOptions {
  inputs: string[];
  run: string;
  labelsDir: string;
  judges: Judge[];
  format?: InputFormat;
  /** Inspect logs: the scorer whose value is the benchmark's injection verdict (`NAME` or `NAME.key`). */
  securityScorer?: string;
  /** Inspect logs: the scorer whose value is the user task's success (`reference.utility`; `NAME` or `NAME.key`). */
  utilityScorer?: string;
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
   * Judge again the items whose stored verdict is `judge_refused` (a provider's refusal is often transient: a router's
   * other upstream, a content filter). The refusal stays in `verdicts.jsonl` as history; the new verdict is current.
   */
  retryRefusals?: boolean;
  /**
   * Read every input file and compare its content hash, even a file whose size and mtime are those recorded when it
   * was stored (the resume fast path, `./fast-resume.ts`, off). Default false.
   */
  verifyContent?: boolean;
  /**
   * What to do when a judge's stored verdicts in this run were made with another configuration (or with none
   * recorded: runs from before `judge_config_sha256`): `refuse` (default: throw `JudgeConfigChangedError` (./config-change.ts)
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
   * items of the re-judge pre-count read): the CLI's heap-size GC trigger (`src/io/heap-gc.ts`) hangs here.
   */
  onHeapCheck?: () => void;
  /**
   * Called while a resume reads the run's journals back (`RunStore.open`), before any input is read: the journal lines
   * read so far (a multiple of 1,024, `LOAD_CHECK_EVERY`). A million-trajectory run takes minutes here (m1m51,
   * session 51: 23 silent minutes at load 30); the CLI prints a line now and then (`src/cli/load-progress.ts`).
   */
  onLoadProgress?: (journalLines: number) => void;
  /** Called when a judge is stopped by a fatal error (bad key, no quota). */
  onJudgeStopped?: (judgeId: string, message: string) => void;
  /**
   * Send the requests of batch-capable judges (`batchCapable(config)`) through the OpenAI Batch API
   * (`./batch.ts`) instead of one by one; other judges stay online. Resumes sent batches.
   */
  batch?: Pick<BatchSettings, "pollMs" | "onProgress" | "onWarning" | "maxRequests" | "maxBytes" | "sleep">;
  /**
   * Stop sending when the run's cost (USD: every stored verdict of the run, earlier invocations included, plus the
   * worst case of each verdict's conversation in flight, feedback turns included: `reserveCostUsd` (./cost-cap.ts)) would
   * pass this cap. What is in flight finishes and is stored;
   * the result says `cost_cap`; a later run with a higher cap resumes. Every LLM judge needs a `price`.
   */
  maxCostUsd?: number;
}
