import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pLimit from "p-limit";
import type { Judge } from "../judges/judge.js";
import { JudgeFatalError } from "../errors.js";
import { chatFallbackIdPath, countInputs, readTrajectories, type IngestWarning, type InputFormat, type ReadOptions } from "../ingest/index.js";
import type { IngestError, Surface, Trajectory, Verdict } from "../types.js";
import { decideSurfaces, surfaceOfTrajectory } from "../serialize/surface.js";
import { StoreWriteError } from "../store/journal.js";
import { readJsonl } from "../io/jsonl.js";
import { RunStore, readErrors, readTrajectoryIndex, readVerdicts, looseVerdictKey, verdictKey, type RunSnapshot, type TrajectoryIndexRow } from "../store/run-store.js";
import { configDiff, judgeConfigSha256 } from "../store/config-key.js";
import { addVerdict, emptyHealth, HEALTH_THRESHOLDS, withFlags, type JudgeHealth } from "../verdict/health.js";
import { summarizeRun, type RunSummary } from "./summary.js";
import { BatchJudgeRun, batchCapable, type BatchSettings } from "../judges/batch.js";
import type { OpenAIJudge } from "../judges/openai.js";
import { SYSTEM_TEMPLATE } from "../rubric/prompt.js";
import { tokensCost } from "../providers/cost.js";

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
  /**
   * Stop sending when the run's cost (USD: every stored verdict of the run, earlier invocations included, plus the
   * worst case of each verdict's conversation in flight, feedback turns included: {@link reserveCostUsd}) would
   * pass this cap. What is in flight finishes and is stored;
   * the result says `cost_cap`; a later run with a higher cap resumes. Every LLM judge needs a `price`.
   */
  maxCostUsd?: number;
}

/** Where a run stopped at its cost cap (`LabelOptions.maxCostUsd`). */
export interface CostCapState {
  cap_usd: number;
  /**
   * What the run has paid (USD): every verdict in `verdicts.jsonl`, superseded ones (re-judged errors, verdicts of an
   * older configuration) included; a verdict of this invocation with an unknown cost counts its reserved estimate.
   * It can be above the summary's `cost` (the verdicts in use only).
   */
  spent_usd: number;
  /** True when a request was held back because it would have passed the cap. */
  reached: boolean;
  /** Verdicts of this invocation whose cost was unknown (counted at their estimate). */
  unknown_cost_verdicts: number;
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
  /** Per judge, what it changed in its requests after its server's answers (e.g. no temperature for a reasoning model). */
  adaptations: Record<string, string[]>;
}

/** Feedback text assumed per feedback turn (characters) in {@link reserveCostUsd}: the verdict feedback quotes findings. */
export const RESERVE_FEEDBACK_CHARS = 1500;

/**
 * A cautious cost estimate (USD) of one verdict's whole conversation, for the cost cap's reservation: the worst case
 * of the first request plus every configured feedback turn (`retries`, default 2). Each turn resends the whole
 * conversation so far, so with a first prompt of P tokens, O output tokens per reply (the judge's `max_tokens`, or
 * 600) and F tokens of feedback per turn, R turns cost (R+1)·P + R(R+1)/2·(O+F) prompt tokens and (R+1)·O output
 * tokens. P is the request the judge would send (`begin`/`request`: the rubric, the rendered trajectory and its
 * tool list, as `label --dry-run` renders it) in characters / 3, else the trajectory's texts, tool calls, tools and
 * injections in characters / 3; / 3 is above the ~4 characters per token of English text, so the estimate errs
 * high. No cache discount. Returns 0 for a judge without a price (a built-in judge).
 */
export function reserveCostUsd(t: Trajectory, judge: Judge, ctx: { budgetChars?: number; minQuoteChars?: number } = {}): number {
  const oj = judge as Partial<OpenAIJudge>;
  const cfg = oj.config;
  if (!cfg?.price) return 0;
  let chars = 0;
  try {
    if (oj.begin && oj.request) chars = JSON.stringify(oj.request(oj.begin(t, { repeat: 0, budgetChars: ctx.budgetChars, minQuoteChars: ctx.minQuoteChars })).messages).length;
  } catch {
    chars = 0;
  }
  if (chars === 0) {
    chars = SYSTEM_TEMPLATE.length + 2000;
    for (const m of t.messages) {
      chars += m.text.length + 40;
      for (const c of m.tool_calls ?? []) chars += c.name.length + JSON.stringify(c.arguments ?? "").length;
    }
    for (const v of Object.values(t.injections ?? {})) chars += v.length;
    if (Array.isArray(t.tools) && t.tools.length > 0) chars += JSON.stringify(t.tools).length;
  }
  const retriesRaw = (judge.verdictConfig as { retries?: unknown } | undefined)?.retries;
  const retries = typeof retriesRaw === "number" && Number.isInteger(retriesRaw) && retriesRaw >= 0 ? retriesRaw : 2;
  const p = Math.ceil(chars / 3);
  const o = cfg.max_tokens ?? 600;
  const f = Math.ceil(RESERVE_FEEDBACK_CHARS / 3);
  const prompt = (retries + 1) * p + ((retries * (retries + 1)) / 2) * (o + f);
  return tokensCost(prompt, 0, (retries + 1) * o, cfg.price);
}

/**
 * A judge's stored verdicts in the run were made with another configuration than the one given now (issue 12,
 * point 5). The message names the judge, what changed and how to proceed; nothing was judged or stored.
 */
export class JudgeConfigChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgeConfigChangedError";
  }
}

/**
 * The `judge_config_sha256` a judge's verdicts get in a run: sha256 of its verdict-affecting configuration
 * (`Judge.verdictConfig`) and the run settings applied to it (budget, minimum quote length).
 */
export function runJudgeConfig(judge: Judge, opts: Pick<LabelOptions, "budgetChars" | "minQuoteChars">): { sha: string; config: Record<string, unknown> } {
  const config = { ...(judge.verdictConfig ?? {}), model: judge.model, run_budget_chars: opts.budgetChars ?? null, run_min_quote_chars: opts.minQuoteChars ?? null };
  return { sha: judgeConfigSha256(config), config };
}

/**
 * The judges whose stored verdicts were made under another configuration, with a message for each: what changed
 * (from `store.json`'s recorded configuration, else the models the verdicts name) and how to proceed.
 */
function configChanges(
  store: RunStore,
  judges: readonly Judge[],
  current: Map<string, { sha: string; config: Record<string, unknown> }>,
  before: RunSnapshot["judges"],
): Array<{ judge: string; message: string }> {
  const out: Array<{ judge: string; message: string }> = [];
  for (const j of judges) {
    const cur = current.get(j.id)!;
    const other = store.storedConfigs(j.id, j.promptSha256).filter((c) => c.judge_config_sha256 !== cur.sha);
    if (other.length === 0) continue;
    const n = other.reduce((a, c) => a + c.verdicts, 0);
    const unknown = other.filter((c) => c.judge_config_sha256 === "").reduce((a, c) => a + c.verdicts, 0);
    const models = [...new Set(other.flatMap((c) => c.models))];
    const parts: string[] = [];
    const prev = before.find((b) => b.id === j.id);
    const known = other.find((c) => c.judge_config_sha256 !== "");
    if (prev?.config && known && prev.judge_config_sha256 === known.judge_config_sha256) {
      const diff = configDiff(prev.config, cur.config);
      if (diff.length) parts.push(`changed: ${diff.join("; ")}`);
    }
    if (parts.length === 0 && models.some((m) => m !== j.model)) parts.push(`model ${models.map((m) => JSON.stringify(m)).join(", ")} -> ${JSON.stringify(j.model)}`);
    if (unknown > 0) parts.push(`${unknown} of them stored without a configuration hash (by an ipi-judge version before judge_config_sha256), so they cannot be matched to this configuration`);
    out.push({
      judge: j.id,
      message:
        `judge "${j.id}": ${n} verdict(s) in this run were made with another configuration than the one given now` +
        (parts.length ? ` (${parts.join("; ")})` : ""),
    });
  }
  return out;
}

/** How to proceed after a configuration change (the end of {@link JudgeConfigChangedError}'s message). */
export const CONFIG_CHANGE_HELP =
  "To proceed: --on-config-change rejudge (judge every item again under the new configuration; the old verdicts " +
  "stay in verdicts.jsonl, superseded), --on-config-change keep (keep the stored verdicts and judge only what is " +
  "missing: the run then mixes configurations), or give the judge a new id (or use a new --run) to keep both apart.";

/**
 * sha256 over a trajectory's content (not its id or path): its messages and injections, and its tool list when it
 * has one (a changed tool description changes what the judge sees; trajectories without tools hash as before).
 */
export function contentSha256(t: Trajectory): string {
  const text = JSON.stringify(Array.isArray(t.tools) && t.tools.length > 0 ? { m: t.messages, i: t.injections, t: t.tools } : { m: t.messages, i: t.injections });
  // the one-shot hash (Node >= 20.12) skips the Hash object a createHash call builds; same digest
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: "hex") => string }).hash;

/** Chat-JSONL fallback ids (`<file>:<line>`) a run stored, by resolved file and line; and every stored id. */
export interface StoredChatIds {
  byLine: Map<string, string>;
  ids: Set<string>;
}

/**
 * Read the chat-JSONL fallback ids a run stored (any id rule, old or new), for {@link keepStoredChatId}. Stored
 * `source.path`s are resolved against the current directory.
 * @returns empty maps when the run has no index yet.
 */
export async function storedChatFallbackIds(runDir: string): Promise<StoredChatIds> {
  const out: StoredChatIds = { byLine: new Map(), ids: new Set() };
  if (!fs.existsSync(path.join(runDir, "trajectories.jsonl"))) return out;
  for (const r of (await readTrajectoryIndex(runDir)).values()) {
    out.ids.add(r.id);
    const src = r.source as { format?: string; path?: unknown; line?: unknown } | undefined;
    if (src?.format === "chat-jsonl" && typeof src.path === "string" && typeof src.line === "number" && r.id.endsWith(`:${src.line}`))
      out.byLine.set(`${path.resolve(src.path)}\0${src.line}`, r.id);
  }
  return out;
}

/**
 * The id a run already stored for a chat-JSONL line without an id of its own, when it differs from the id the
 * current rule gives (`chatFallbackIdPath`: relative to the current directory; the older rule made it relative to
 * the folder common to all inputs, so `data.jsonl:1` became `x/data.jsonl:1` when another input was added). Using
 * the stored id keeps a resumed run from judging, paying for and counting the same line twice.
 * @returns the stored id, or undefined (the line has its own id, is stored under the current id, or is new).
 */
export function keepStoredChatId(t: Trajectory, stored: StoredChatIds): string | undefined {
  if (t.source.format !== "chat-jsonl" || t.source.line === undefined) return undefined;
  if (t.id !== `${chatFallbackIdPath(t.source.path)}:${t.source.line}`) return undefined;
  if (stored.ids.has(t.id)) return undefined;
  const prev = stored.byLine.get(`${path.resolve(t.source.path)}\0${t.source.line}`);
  return prev !== undefined && prev !== t.id ? prev : undefined;
}

/**
 * The run-index row `label` stores for a trajectory (one line of `trajectories.jsonl`).
 * @param surfaces the trajectory's surfaces by placeholder (default: `decideSurfaces(t).surfaces`, input-given
 *   surfaces kept); the row carries them and their one-value summary `surface` (`surfaceOfTrajectory`).
 */
export function indexRow(t: Trajectory, surfaces: Record<string, Surface> = decideSurfaces(t).surfaces): TrajectoryIndexRow {
  const surface = surfaceOfTrajectory(t, surfaces);
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
    ...(Object.keys(surfaces).length > 0 ? { surfaces } : {}),
    ...(surface !== undefined ? { surface } : {}),
    attacked: Object.keys(t.injections ?? {}).length > 0 || (t.attack !== undefined && t.attack !== null && t.attack !== "none"),
    reference: t.reference,
    run_error: t.run_error,
    n_messages: t.messages.length,
    content_sha256: contentSha256(t),
    metadata: t.metadata,
  };
}

/** The resume key of one verdict a judge would make on a trajectory (what `RunStore.has` looks up). */
export function resumeKey(t: Trajectory, judge: Judge, repeat: number, judgeConfigSha256: string): string {
  return verdictKey({ trajectory_id: t.id, judge_id: judge.id, repeat, prompt_sha256: judge.promptSha256, judge_config_sha256: judgeConfigSha256 });
}

/**
 * The repeats of a trajectory a judge still has to judge: every repeat whose resume key is not stored (`has`),
 * or all of them when the trajectory's content changed since it was labelled. Shared by `labelRun` and
 * `label --dry-run` (`./dry-run.ts`), so both skip the same verdicts.
 */
export function pendingRepeats(
  t: Trajectory,
  judge: Judge,
  repeats: number,
  changed: boolean,
  has: (key: string, repeat: number) => boolean,
  judgeConfigSha256: string,
): number[] {
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) if (changed || !has(resumeKey(t, judge, r, judgeConfigSha256), r)) out.push(r);
  return out;
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
  let costCap: CostCapState | undefined;
  const adaptations: Record<string, string[]> = {};
  /** USD reserved for verdicts in flight (cost cap). */
  let reserved = 0;
  const warnings: IngestWarning[] = [];
  try {
    if (opts.maxCostUsd !== undefined) {
      costCap = { cap_usd: opts.maxCostUsd, spent_usd: 0, reached: false, unknown_cost_verdicts: 0 };
      // the cap is on what the run has paid: every verdict earlier invocations stored counts, superseded ones
      // (re-judged errors, verdicts of an older configuration or prompt) included: they were paid for too
      for await (const v of readJsonl<Verdict>(store.file("verdicts.jsonl")))
        if (typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd)) costCap.spent_usd += v.cost_usd;
      // a cap already spent is "reached" only when a request is held back: a run with nothing left stays complete
    }
    // issue 12.5: a judge whose configuration changed since its verdicts were stored is never taken as the same
    const changes = configChanges(store, opts.judges, current, store.snapshot.judges ?? []);
    if (changes.length > 0 && onChange === "refuse")
      throw new JudgeConfigChangedError(`run "${opts.run}": ${changes.map((c) => c.message).join("; ")}. ${CONFIG_CHANGE_HELP}`);
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
        // cost cap: reserve this verdict's estimate, or hold it back (un-judged: a run with a higher cap resumes it)
        let reservation = 0;
        if (costCap) {
          if (costCap.reached) return;
          reservation = reserveCostUsd(t, judge, { budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars });
          if (costCap.spent_usd + reserved + reservation > costCap.cap_usd) {
            costCap.reached = true;
            return;
          }
          reserved += reservation;
        }
        let v: Verdict;
        try {
          v = await judge.judge(t, {
            repeat,
            signal: opts.signal,
            budgetChars: opts.budgetChars,
            minQuoteChars: opts.minQuoteChars,
          });
        } catch (e) {
          reserved -= reservation;
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
        if (costCap) {
          reserved -= reservation;
          // a verdict whose cost is unknown (a response without usage) counts its estimate: the cap errs early
          if (typeof v.cost_usd === "number") costCap.spent_usd += v.cost_usd;
          else {
            costCap.spent_usd += reservation;
            costCap.unknown_cost_verdicts++;
          }
        }
        // A request cut short by Ctrl-C is not a verdict: the item is judged again on resume.
        if (opts.signal?.aborted && v.status !== "ok") return;
        v.judge_config_sha256 = current.get(judge.id)!.sha;
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
        track(v);
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
        opts.onIngestWarning?.(w);
      },
    };
    const oldIds = await storedChatFallbackIds(store.dir);
    const remapped: Array<{ from: string; to: string; path: string }> = [];
    for await (const item of readTrajectories(opts.inputs, readOpts)) {
      if (item.kind === "trajectory" && oldIds.byLine.size > 0) {
        const to = keepStoredChatId(item.trajectory, oldIds);
        if (to !== undefined) {
          remapped.push({ from: item.trajectory.id, to, path: item.trajectory.source.path });
          item.trajectory.id = to;
        }
      }
      if (opts.signal?.aborted || fatal) {
        interrupted = !fatal;
        break;
      }
      if (costCap?.reached) break;
      if (item.kind === "error") {
        if (store.addError(item.error)) progress.errors++;
        report();
        continue;
      }
      if (opts.limit !== undefined && taken >= opts.limit) break;
      taken++;
      progress.read++;
      // Where each injection entered (input-given surfaces win; a mismatch with where code finds it is recorded).
      const sd = decideSurfaces(item.trajectory);
      const t = Object.keys(sd.surfaces).length > 0 ? { ...item.trajectory, surfaces: sd.surfaces } : item.trajectory;
      for (const w of sd.warnings) {
        store.addError({ path: t.source.path, line: t.source.line, trajectory_id: t.id, kind: "surface_mismatch", message: w });
      }
      const state = store.addTrajectory(indexRow(t, sd.surfaces));
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
        const sha = current.get(judge.id)!.sha;
        const todo =
          onChange === "keep"
            ? pendingRepeats(t, judge, repeats, state === "changed", (_key, r) => store.has(looseVerdictKey(k4(r)), opts.retryErrors, true), sha)
            : pendingRepeats(t, judge, repeats, state === "changed", (key) => store.has(key, opts.retryErrors), sha);
        progress.skipped += repeats - todo.length;
        for (const r of todo) {
          const key = resumeKey(t, judge, r, sha);
          const batcher = batchers.get(judge.id);
          if (batcher) {
            // already in a batch sent by an earlier (killed) process: its result is awaited, not paid twice
            // the Batch API's bookkeeping keys conversations without the configuration hash
            if (!batcher.inBatch(verdictKey(k4(r))))
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
          v.judge_config_sha256 = current.get(id)!.sha;
          store.addVerdict(v);
          progress.judged++;
          track(v);
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
    if (fatal) throw fatal;
    // a cap that held back a request left items un-judged: the run is not complete (agree/committee/report warn)
    store.finish({ interrupted, stoppedJudges: Object.keys(stopped), limit: opts.limit, ...(costCap?.reached ? { costCap } : {}) });
  } finally {
    await store.close();
  }
  const [verdicts, index, errors] = await Promise.all([
    readVerdicts(store.dir, { slim: true }),
    readTrajectoryIndex(store.dir, { slim: true }),
    readErrors(store.dir),
  ]);
  const summary = summarizeRun(opts.run, verdicts, index, errors, stopped);
  // A judge of this invocation with verdicts but not one usable label is a stopped judge (issue 12.2): not a success.
  for (const j of summary.judges) {
    if (!j.health.stopped || stopped[j.judge_id] || !opts.judges.some((x) => x.id === j.judge_id)) continue;
    stopped[j.judge_id] = j.health.flags.find((f) => f.code === "no_usable_verdict")!.message;
  }
  if (warnings.length > 0) summary.ingest_warnings = warnings;
  try {
    const tmp = path.join(store.dir, `.summary.json.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify({ ...summary, this_run: progress, interrupted, ...(costCap ? { cost_cap: costCap } : {}) }, null, 2) + "\n");
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
  };
}
