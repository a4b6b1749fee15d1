/**
 * `label --dry-run`: what a label run would send and what it would cost, without sending anything or storing a
 * verdict. The same ingest (`readTrajectories`, the same limit, format and size bound) and the same resume rule as
 * `labelRun` (`planRepeats`: a stored verdict made with this prompt, configuration and content is not counted; one
 * made with another prompt or rubric, on changed content, or cut short is counted again, by reason (`rejudge`);
 * `--retry-errors` counts stored judge errors) and the same
 * configuration-change rule (`--on-config-change`: a judge whose stored verdicts were made under another
 * configuration makes `label` refuse, which the result says, or is counted as `rejudge`/`keep` would). The run
 * folder, when it exists, is only read (no lock, nothing written).
 *
 * Per judge: requests (first requests), prompt tokens (counted with the model's tokenizer where known,
 * `./../providers/tokens.ts`, else estimated and labelled so) plus the `response_format` schema each request
 * carries, the share of prompt tokens in the cacheable prefix (the system message, identical in every request), and
 * a cost range at the judge's `price` (issue 23): the floor with no feedback turn (`estimated_cost_usd`), the
 * ceiling with every feedback turn spent, and the estimate from the judge's observed turns per verdict where the run
 * already holds its verdicts (`costRange`).
 */
import path from "node:path";
import type { JudgePrice } from "../config/judges.js";
import type { Judge } from "../judges/judge.js";
import type { OpenAIJudge } from "../judges/llm-judge.js";
import { readTrajectories, type IngestWarning } from "../ingest/index.js";
import { OWN_OUTPUT } from "../ingest/own-folders.js";
import { referenceKey } from "../store/run-store.js";
import { metadataKey } from "../store/meta-key.js";
import type { VerdictLedger } from "../store/ledger.js";
import type { Trajectory } from "../types.js";
import { tokensCost } from "../providers/cost.js";
import { RESERVE_FEEDBACK_CHARS } from "./cost-cap.js";
import { countPromptTokens, tokenizerFor, type TokenizerName } from "../providers/tokens.js";
import { keepStoredChatId, planRepeats, storedChatFallbackIds, type RejudgeReason } from "./resume.js";
import { addRejudge, emptyRejudge } from "./rejudge.js";
import { mayCarry } from "./carry-candidates.js";
import { inFlightText, inFlightUnderOtherConfig, inFlightWithoutBatch, promptChanges, legacyTransportKey, runJudgeConfig } from "./config-change.js";
import type { BatchEntry } from "./batch-types.js";
import { readDone, storedBatchEntries, storedKeyVersions, type ObservedTurns } from "./dry-run-stored.js";
import { DryRunCap, type DryRunCostCap } from "./dry-run-cap.js";
import { checkBatchJudges, refuseSharedBatchFolders } from "./batch-judges.js";
import { awaitedKey, awaitedText, batchAwaited, dryRunPrice, type BatchAwaited } from "./dry-run-batch.js";
import { WhereTally, type WhereStatement } from "../store/where.js";
import type { LabelOptions } from "./label.js";
import { PreparationError, TrajectoryPreparer } from "./prepare.js";

/** Output tokens assumed per request when the judge sets no `max_tokens` below it (a verdict's JSON reply). */
export const DEFAULT_ASSUMED_OUTPUT_TOKENS = 600;
/** Shortest prefix OpenAI's prompt cache serves (tokens); a shorter system message is assumed never cached. */
export const MIN_CACHEABLE_PREFIX_TOKENS = 1024;

/** One judge's figures in a dry run. */
export interface DryRunJudge {
  id: string;
  model: string;
  /** Chat requests the run would start (one per trajectory and repeat not yet stored). */
  requests: number;
  /** Verdicts already stored (skipped, as `label` would). */
  already_stored: number;
  /**
   * Stored verdicts the run would judge again (included in `requests`), by reason (`RejudgeReason`: another prompt
   * or rubric, another configuration, changed content, ...), and the part of `estimated_cost_usd` they make (null
   * without a price).
   */
  rejudge: { verdicts: number; by_reason: Partial<Record<RejudgeReason, number>>; estimated_cost_usd: number | null };
  /**
   * Of the repeats to judge (`requests` for an LLM judge), those of content now stored under another id that covers it (`./carry-candidates.ts`): label
   * carries that id's verdicts over instead (no request) where its row moved, so `requests`, `rejudge` and the cost
   * are upper bounds. Absent when none.
   */
  may_carry?: { requests: number; rejudged: number };
  prompt_tokens: number;
  /** How `prompt_tokens` was counted: a real encoding, or `estimated` (characters / 4). */
  tokenizer: TokenizerName;
  /** Prompt tokens of the cacheable prefix (the system message) over all requests, and its share of `prompt_tokens`. */
  cacheable_prefix_tokens: number;
  cacheable_share: number | null;
  /** The output-token assumption of the ceiling (per request). */
  assumed_output_tokens_per_request: number;
  /**
   * Output tokens of the estimate `estimated_cost_usd` is priced at (the floor: one request per item at the observed
   * output per request, else a short verdict's), so the two figures rest on one assumption (new user 34: this field
   * read 600 per request beside a cost priced at 40).
   */
  estimated_output_tokens: number;
  /** USD at the judge's price; null without a price (`cost_reason`). */
  estimated_cost_usd: number | null;
  cost_reason?: string;
  /** The price estimated at: under `--batch`, a batch judge's Batch API price (`priced_at`). */
  price?: JudgePrice;
  /**
   * Under `--batch`, for a judge that goes through the Batch API: `batch` (its `price.batch_*`), or
   * `online_upper_bound` (its config gives no batch price: the figures are at the online price, about twice the bill).
   */
  priced_at?: "batch" | "online_upper_bound";
  /**
   * Under `--batch`: items of this judge in Batch API chunks of an earlier run still in flight, which label polls and
   * does not send again (not in `requests`; `./dry-run-batch.ts`). Absent when none.
   */
  awaiting_batch?: number;
  /** Trajectories whose rendering was cut to the character budget (they are sent elided). */
  truncated: number;
  /** Tokens of the `response_format` schema per request (billed as prompt by OpenAI; included in every figure below). */
  schema_tokens_per_request: number;
  /** Feedback turns per verdict at most (`retries`). */
  retries: number;
  /**
   * The range to budget on (USD; null without a price): `floor` one request per verdict (no feedback turn), output at
   * the observed tokens per request where the run holds verdicts of this judge, else the assumption; `ceiling` every
   * feedback turn spent, each resending the conversation (replies at the assumed output, feedback ~1,500
   * characters); `observed` the judge's observed requests per verdict in this run (null + `observed_reason` when it
   * holds none).
   */
  cost_range: { floor_usd: number | null; ceiling_usd: number | null; observed_usd: number | null; observed_reason?: string };
  /** What the run's stored verdicts of this judge show (absent when none). */
  observed?: { verdicts: number; requests_per_verdict: number; output_tokens_per_request: number };
}

/** A judge whose stored verdicts were made under another configuration, and what `label` would do about it. */
export interface DryRunConfigChange {
  judge: string;
  /** Current verdicts of the judge made under another configuration hash. */
  verdicts: number;
  on_config_change: "refuse" | "rejudge" | "keep";
  message: string;
}

/** How many bad input items a dry run names (the rest are counted). */
export const DRY_RUN_ERROR_ITEMS = 5;

export interface DryRunResult {
  run: string;
  /** Judges whose configuration changed since their verdicts were stored (empty when none). */
  config_changes: DryRunConfigChange[];
  /** True when the real `label` with these options would refuse the run (exit 2): a change under `refuse`. */
  label_would_refuse: boolean;
  /** Why label would refuse a run without `--batch`: Batch API chunks of it are in flight (absent otherwise). */
  batches_in_flight?: string;
  /** Under `--batch`: the chunks in flight label would poll instead of sending their items again (absent when none). */
  batches_to_poll?: string;
  /**
   * Current stored verdicts verified under older rules (`../rubric/verify-rules.ts`): label re-verifies its LLM judges'
   * with no judge call (`./reverify.ts`) and judges the signature judge's again (absent when none).
   */
  older_rules?: number;
  /**
   * Trajectories read from the input (before `--where`; with `--limit`, up to where the limit stopped reading): the
   * `read` of `label`'s `this_run` (src/run/label.ts ThisRun).
   */
  read: number;
  /** Trajectories `--where` kept and `--limit` let through, those `label` would judge or skip as stored (`this_run.kept`). */
  trajectories: number;
  /** `--limit`, when given (absent without one). */
  limit?: number;
  /** `--where`: what it kept of the input (absent without one). */
  where?: WhereStatement;
  /** Bad input items (never the empty placeholders: {@link empty_placeholders}; never the inputs given twice: {@link duplicate_inputs}). */
  input_errors: number;
  /**
   * The first {@link DRY_RUN_ERROR_ITEMS} bad input items with label's message for each (hostile55 F9: the dry run
   * counted them without naming them): `where` is the file (and line) as errors.jsonl names it.
   */
  input_error_items?: Array<{ where: string; kind: string; message: string }>;
  /**
   * Inputs given again (errors.jsonl kind `duplicate_input`: the same file, line or Inspect sample twice, as an
   * `inspect eval-retry` log beside its original): read once, not errors, as `label` reports them (`read_once`).
   */
  duplicate_inputs: number;
  /** Empty placeholder files (no messages, no verdict: combinations the benchmark never ran): skipped, not errors. */
  empty_placeholders: number;
  /**
   * Trajectories whose benchmark reference (security/utility) differs from the run's stored row, content unchanged:
   * `label` would re-write their index rows (errors.jsonl kind `reference_changed`) without judging them again.
   */
  reference_changed: number;
  /** Stored trajectories whose cell-naming fields (model, condition, attack, suite, surfaces) changed, content the same: label would re-write their rows (`metadata_changed`). */
  metadata_changed: number;
  /** Trajectories moved or renamed (their content stored under an id whose file is gone): carried over, not judged (`./moved-content.ts`). */
  moved?: number;
  /** Folders of ipi-judge's own output met in an input folder and passed over, one note each (`../ingest/own-folders.ts`; absent when none). */
  own_output?: string[];
  judges: DryRunJudge[];
  /** Sum of the judges' floors (one request per verdict); null when any judge has no price. */
  estimated_cost_usd: number | null;
  /** Sums of the judges' ranges (see `DryRunJudge.cost_range`); null when any judge has no price. */
  cost_range: { floor_usd: number | null; ceiling_usd: number | null; observed_usd: number | null; observed_note?: string };
  assumptions: string[];
  /** With `maxCostUsd`: what the cap would let through at the worst case, and what it reserves for batches in flight. */
  cost_cap?: DryRunCostCap;
}

/** One judge's tally while the dry run reads: its result row and what the count needs beside it. */
interface JudgeTally {
  judge: Judge;
  oj: Partial<OpenAIJudge>;
  row: DryRunJudge;
  /** Token counts of rendered texts (a system message repeats). */
  cache: Map<string, number>;
  configSha: string;
  count: ReturnType<typeof emptyRejudge>;
  /** Prompt tokens of the requests that judge stored verdicts again. */
  rejudgeTokens: number;
  /** Under `--batch`: its items in chunks in flight (`awaitedKey`), which label awaits and does not send again. */
  awaited?: ReadonlySet<string>;
}

/**
 * Render every request a label run would send and count it; nothing is sent or stored.
 * @param opts the label options (`inputs`, `run`, `labelsDir`, `judges`, `format`, `limit`, `repeats`,
 *   `retryErrors`, `retryRefusals`, `budgetChars`, `minQuoteChars`, `maxItemBytes`, `signal`).
 * @param assumeOutputTokens output tokens per request for the cost estimate (default: the judge's `max_tokens`
 *   when lower than {@link DEFAULT_ASSUMED_OUTPUT_TOKENS}, else that default).
 */
export async function dryRun(opts: LabelOptions, assumeOutputTokens?: number): Promise<DryRunResult> {
  // what label would refuse as a usage error, the dry run refuses alike (judges sharing a batch folder)
  refuseSharedBatchFolders(opts.judges, opts.batch);
  checkBatchJudges(opts.judges, opts.batch, opts.onWarning);
  const repeats = Math.max(1, opts.repeats ?? 1);
  const { ledger, configs, observed, rows: storedRows, paid, goneBySha } = await readDone(path.join(opts.labelsDir, opts.run));
  const onChange = opts.onConfigChange ?? "refuse";
  // refuse is counted as rejudge would send (what the result says beside label_would_refuse)
  const planChange = onChange === "refuse" ? "rejudge" : onChange;
  // label's configuration-change rule (issue 12.5): verdicts of a judge made under another configuration make
  // label refuse (default), judge every item again (rejudge) or keep them and judge what is missing (keep)
  const configChanges: DryRunConfigChange[] = [];
  const batches = storedBatchEntries(path.join(opts.labelsDir, opts.run));
  // label without --batch refuses a run whose batches are in flight (review 28: the dry run priced them instead)
  const flyingWithoutBatch = opts.batch ? undefined : inFlightWithoutBatch(opts.run, batches, opts.judges);
  // with --batch, label polls them and sends nothing new for their items (red team 33 F8)
  const awaited = opts.batch ? await batchAwaited(path.join(opts.labelsDir, opts.run), batches, opts.judges) : new Map<string, BatchAwaited>();
  const keyVersions = storedKeyVersions(path.join(opts.labelsDir, opts.run));
  const cap = await DryRunCap.open(opts, path.join(opts.labelsDir, opts.run), batches, paid);
  const per = opts.judges.map((j) => judgeTally(j, opts, { observed, configs, ledger, onChange, assumeOutputTokens, batches, keyVersions, awaited }, configChanges));
  let read = 0;
  let inputErrors = 0;
  const errorItems: NonNullable<DryRunResult["input_error_items"]> = [];
  let placeholders = 0;
  let duplicates = 0;
  let referenceChanged = 0;
  let metadataChanged = 0;
  let moved = 0;
  const whereTally = opts.where ? new WhereTally(opts.where) : null;
  // chat-JSONL lines stored under an older fallback-id rule keep their stored id, as in labelRun
  const oldIds = await storedChatFallbackIds(path.join(opts.labelsDir, opts.run));
  const ownOutput: string[] = []; // ipi-judge's own output passed over (../ingest/own-folders.ts): said in the result
  const readOpts = { format: opts.format, strict: opts.strict, maxItemBytes: opts.maxItemBytes, overrides: opts.overrides, fieldMap: opts.fieldMap, securityScorer: opts.securityScorer, utilityScorer: opts.utilityScorer, labelsRoot: opts.labelsDir, onWarning: (w: IngestWarning) => void (w.kind === OWN_OUTPUT && ownOutput.push(w.message)) };
  // the trajectory label would judge (./prepare.ts: recovered injected text, decided surfaces): the same content hash
  const preparer = new TrajectoryPreparer(opts.inputs, readOpts);
  for await (const item of readTrajectories(opts.inputs, readOpts)) {
    if (opts.signal?.aborted) break;
    if (item.kind === "error") {
      // an empty placeholder and an input given twice are no error of the input (label counts them apart too)
      if (item.error.kind === "empty_placeholder") placeholders++;
      else if (item.error.kind === "duplicate_input") duplicates++;
      else {
        inputErrors++;
        if (errorItems.length < DRY_RUN_ERROR_ITEMS) errorItems.push({ where: item.error.line !== undefined ? `${item.error.path}:${item.error.line}` : item.error.path, kind: item.error.kind, message: item.error.message });
      }
      continue;
    }
    const kept = oldIds.byLine.size > 0 ? keepStoredChatId(item.trajectory, oldIds) : undefined;
    if (kept !== undefined) item.trajectory.id = kept;
    // a trajectory that cannot be prepared is an item error label records and passes over: counted as one here
    const prepared = await preparer.prepare(item.trajectory).catch((e: unknown) => {
      if (e instanceof PreparationError) return undefined;
      throw e;
    });
    if (!prepared) {
      inputErrors++;
      continue;
    }
    const { trajectory: t, row: indexRowNow } = prepared;
    // --limit, then --where, as label: a trajectory after the limit is not tallied (the statement says what would be
    // judged); one --where does not keep is not judged (nor counted by --limit)
    if (opts.limit !== undefined && read >= opts.limit) break;
    if (whereTally && !whereTally.add(indexRowNow)) continue;
    read++;
    const sha = indexRowNow.content_sha256;
    // finding 5: same content, another benchmark reference: label would re-write the index row (not re-judge)
    const stored = storedRows.get(indexRowNow.id);
    if (stored !== undefined && stored.sha === sha && stored.ref !== referenceKey(indexRowNow.reference)) referenceChanged++;
    // break54 #0: same content, another model, condition, attack, suite or surfaces: label would re-write the row
    if (stored !== undefined && stored.sha === sha && stored.meta !== metadataKey(indexRowNow)) metadataChanged++;
    // a new id with the content of a stored one whose file is gone: label carries its verdicts over (./moved-content.ts);
    // also a stored id whose content is another now (its path held another trajectory: a folder renamed onto the name
    // of another whose files are gone; verify41), whose verdicts of that other content label never reuses
    const old = stored === undefined || stored.sha !== sha ? goneBySha.get(sha) : undefined;
    // (a judge or repeat the old id holds no verdict of is judged: tallied as label plans it once the rest is carried)
    const k = old?.findIndex((o) => per.some((p) => planRepeats({ id: o }, sha, p.judge, repeats, ledger, { configSha: p.configSha, onConfigChange: planChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals }).length < repeats)) ?? -1;
    if (k !== -1) {
      const from = old!.splice(k, 1)[0];
      moved++;
      for (const p of per) tallyRequests(p, { ...t, id: from }, sha, { repeats, ledger, planChange, opts, cap });
      continue;
    }
    const others = storedIdsOf(storedRows, sha, t.id);
    for (const p of per) tallyRequests(p, t, sha, { repeats, ledger, planChange, opts, cap, others });
  }
  const totals = costTotals(per);
  return {
    run: opts.run,
    config_changes: configChanges,
    label_would_refuse: configChanges.some((c) => c.on_config_change === "refuse") || flyingWithoutBatch !== undefined,
    ...(flyingWithoutBatch !== undefined ? { batches_in_flight: flyingWithoutBatch } : {}),
    ...(awaitedText(awaited) !== undefined ? { batches_to_poll: awaitedText(awaited) } : {}),
    ...(ledger.verifiedUnderOlderRules ? { older_rules: ledger.verifiedUnderOlderRules } : {}),
    read: whereTally ? whereTally.statement("trajectories read").statement.of : read,
    trajectories: read,
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    ...(whereTally ? { where: whereTally.statement("trajectories read").statement } : {}),
    input_errors: inputErrors,
    ...(errorItems.length ? { input_error_items: errorItems } : {}),
    empty_placeholders: placeholders,
    duplicate_inputs: duplicates,
    reference_changed: referenceChanged,
    metadata_changed: metadataChanged,
    ...(moved ? { moved } : {}),
    ...(ownOutput.length > 0 ? { own_output: ownOutput } : {}),
    judges: per.map((p) => p.row),
    estimated_cost_usd: totals.floor_usd,
    cost_range: totals,
    assumptions: dryRunAssumptions(),
    ...(cap ? { cost_cap: cap.result() } : {}),
  };
}

/**
 * A judge's empty tally (its row: tokenizer, assumed output, retries, price, what the run's stored verdicts show),
 * and, when its stored verdicts in the run were made under another configuration, the change pushed on
 * `configChanges` with what `label` would do about it (`ctx.onChange`).
 */
function judgeTally(
  j: Judge,
  opts: LabelOptions,
  ctx: {
    observed: Map<string, ObservedTurns>;
    configs: Map<string, Map<string, number>>;
    ledger: VerdictLedger;
    onChange: DryRunConfigChange["on_config_change"];
    assumeOutputTokens: number | undefined;
    batches: readonly BatchEntry[];
    keyVersions: ReadonlyMap<string, number | undefined>;
    awaited: ReadonlyMap<string, BatchAwaited>;
  },
  configChanges: DryRunConfigChange[],
): JudgeTally {
  const { observed, configs, onChange, assumeOutputTokens } = ctx;
  const oj = j as Partial<OpenAIJudge>;
  const cfg = oj.config;
  const tokenizer = tokenizerFor(j.model);
  const out = assumeOutputTokens ?? Math.min(DEFAULT_ASSUMED_OUTPUT_TOKENS, cfg?.max_tokens ?? DEFAULT_ASSUMED_OUTPUT_TOKENS);
  const row: DryRunJudge = {
    id: j.id,
    model: j.model,
    requests: 0,
    already_stored: 0,
    prompt_tokens: 0,
    tokenizer,
    cacheable_prefix_tokens: 0,
    cacheable_share: null,
    assumed_output_tokens_per_request: oj.begin ? out : 0,
    estimated_output_tokens: 0,
    estimated_cost_usd: null,
    truncated: 0,
    schema_tokens_per_request: 0,
    retries: retriesOf(j),
    cost_range: { floor_usd: null, ceiling_usd: null, observed_usd: null },
    rejudge: { verdicts: 0, by_reason: {}, estimated_cost_usd: null },
    ...dryRunPrice(j, cfg?.price, opts.batch !== undefined),
    ...(ctx.awaited.has(j.id) ? { awaiting_batch: 0 } : {}),
  };
  const ob = observed.get(j.id);
  if (ob && ob.verdicts > 0)
    row.observed = { verdicts: ob.verdicts, requests_per_verdict: ob.requests / ob.verdicts, output_tokens_per_request: ob.completion_tokens / ob.requests };
  // a run stored before headers and query parameters entered the key keeps its key (legacyTransportKey)
  const storedHere = [...(configs.get(`${j.id}\u0000${j.promptSha256}`) ?? [])].map(([sha, verdicts]) => ({ judge_config_sha256: sha, verdicts, models: [] }));
  const configSha = legacyTransportKey({ storedConfigs: () => storedHere }, j, runJudgeConfig(j, opts), { config_key_version: ctx.keyVersions.get(j.id) }).key.sha;
  let other = 0;
  for (const [sha, n] of configs.get(`${j.id}\u0000${j.promptSha256}`) ?? []) if (sha !== configSha) other += n;
  if (other > 0) {
    const what =
      onChange === "refuse"
        ? "label would REFUSE this run (exit 2) unless given --on-config-change rejudge or keep (or a new judge id or --run); the counts below are what --on-config-change rejudge would send"
        : onChange === "rejudge"
          ? "--on-config-change rejudge: every item is counted again under the new configuration"
          : "--on-config-change keep: the stored verdicts are kept and only missing items are counted (the run then mixes configurations)";
    configChanges.push({ judge: j.id, verdicts: other, on_config_change: onChange, message: `judge "${j.id}": ${other} verdict(s) in this run were made with another configuration than the one given now: ${what}` });
  }
  // a Batch API chunk in flight under another configuration: label refuses that too (review 27, M3)
  const flying = inFlightUnderOtherConfig(ctx.batches, j.id, configSha);
  if (flying.length > 0)
    configChanges.push({
      judge: j.id,
      verdicts: 0,
      on_config_change: onChange,
      message: `judge "${j.id}": ${inFlightText(flying)}${onChange === "refuse" ? ": label would REFUSE this run (exit 2) unless given --on-config-change rejudge or keep" : ""}`,
    });
  for (const c of promptChanges(ctx.ledger, [j])) {
    const what =
      onChange === "refuse"
        ? "label would REFUSE this run (exit 2) unless given --on-config-change rejudge or keep (or a new judge id or --run); the counts below are what --on-config-change rejudge would send"
        : onChange === "rejudge"
          ? "--on-config-change rejudge: they are counted again under the new prompt"
          : "--on-config-change keep: the stored verdicts are kept and only missing items are counted (the run then mixes prompts)";
    configChanges.push({ judge: j.id, verdicts: c.verdicts, on_config_change: onChange, message: `${c.message}: ${what}` });
  }
  return { judge: j, oj, row, cache: new Map<string, number>(), configSha, count: emptyRejudge(), rejudgeTokens: 0, awaited: ctx.awaited.get(j.id)?.items };
}

/**
 * Count one (prepared) trajectory for one judge as `label` would plan it: the repeats already stored, those judged
 * again by reason, and for an LLM judge the first request rendered once and counted per repeat (prompt tokens,
 * schema tokens, cacheable prefix, elided renderings). `sha` is the trajectory's content hash.
 */
function tallyRequests(
  p: JudgeTally,
  t: Trajectory,
  sha: string,
  ctx: { repeats: number; ledger: VerdictLedger; planChange: "rejudge" | "keep"; opts: LabelOptions; cap?: DryRunCap; others?: readonly string[] },
): void {
  const { repeats, ledger, planChange, opts } = ctx;
  const planned = planRepeats(t, sha, p.judge, repeats, ledger, { configSha: p.configSha, onConfigChange: planChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals });
  p.row.already_stored += repeats - planned.length;
  // in a Batch API chunk in flight: awaited by label --batch, not sent again (as label-steps' `inBatch`)
  const todo = p.awaited ? planned.filter((x) => !p.awaited!.has(awaitedKey(t.id, x.repeat))) : planned;
  if (p.row.awaiting_batch !== undefined) p.row.awaiting_batch += planned.length - todo.length;
  const planOpts = { configSha: p.configSha, onConfigChange: planChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals };
  const againPlans = todo.filter((x) => x.reason !== "new");
  const carry = { requests: mayCarry(ctx.others ?? [], sha, p.judge, repeats, ledger, planOpts, todo), rejudged: mayCarry(ctx.others ?? [], sha, p.judge, repeats, ledger, planOpts, againPlans) };
  if (carry.requests > 0) p.row.may_carry = { requests: (p.row.may_carry?.requests ?? 0) + carry.requests, rejudged: (p.row.may_carry?.rejudged ?? 0) + carry.rejudged };
  addRejudge(p.count, p.judge.id, todo, carry.rejudged);
  const again = againPlans.length;
  p.row.rejudge.verdicts += again;
  if (!p.oj.begin || !p.oj.request || todo.length === 0) return;
  ctx.cap?.add(t, p.judge, todo.length); // --max-cost: reserved in label's order (./dry-run-cap.ts)
  // every repeat sends the same first request (a fresh nonce, the same length): render and count once
  const conv = p.oj.begin(t, { repeat: todo[0].repeat, budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars });
  const req = p.oj.request(conv);
  const tokens = countPromptTokens(req.messages, p.row.tokenizer, p.cache);
  if (req.response_format && p.row.schema_tokens_per_request === 0)
    p.row.schema_tokens_per_request = countPromptTokens([{ role: "system", content: JSON.stringify(req.response_format) }], p.row.tokenizer) - 4;
  const sys = req.messages[0]?.role === "system" ? (p.cache.get(req.messages[0].content) ?? 0) + 3 : 0;
  p.row.requests += todo.length;
  p.row.prompt_tokens += tokens * todo.length;
  p.rejudgeTokens += tokens * again;
  p.row.cacheable_prefix_tokens += sys * todo.length;
  if (conv.truncated) p.row.truncated += todo.length;
}

/**
 * Finish every judge's row (rejudge reasons, cacheable share, output tokens, its cost range at its price or the
 * reason it has none) and sum the judges' ranges: null when any judge has no price; `observed` counts a judge with
 * no stored verdicts at its floor (said in `observed_note`), null when no judge has any.
 */
function costTotals(per: JudgeTally[]): DryRunResult["cost_range"] {
  let total: number | null = 0;
  let ceiling: number | null = 0;
  let observedTotal: number | null = 0;
  let observedMissing = 0;
  for (const p of per) {
    const r = p.row;
    r.rejudge.by_reason = p.count.judges[0]?.by_reason ?? {};
    if (!p.oj.begin) r.rejudge.estimated_cost_usd = 0;
    r.cacheable_share = r.prompt_tokens > 0 ? r.cacheable_prefix_tokens / r.prompt_tokens : null;
    r.estimated_output_tokens = Math.round(r.requests * (r.observed ? r.observed.output_tokens_per_request : Math.min(r.assumed_output_tokens_per_request, FLOOR_OUTPUT_TOKENS)));
    if (!p.oj.begin) {
      r.estimated_cost_usd = 0;
      r.cost_range = { floor_usd: 0, ceiling_usd: 0, observed_usd: 0 };
      continue;
    }
    if (!r.price) {
      r.cost_reason = `judge "${r.id}" has no price in its config (price: {input_per_mtok, cached_input_per_mtok, output_per_mtok})`;
      r.cost_range.observed_reason = r.cost_reason;
      total = null;
      ceiling = null;
      observedTotal = null;
      continue;
    }
    // the prefix is served from the cache on every request after the first, when long enough to be cached
    const perReqPrefix = r.requests > 0 ? r.cacheable_prefix_tokens / r.requests : 0;
    costRange(r, perReqPrefix >= MIN_CACHEABLE_PREFIX_TOKENS ? perReqPrefix : 0);
    r.estimated_cost_usd = r.cost_range.floor_usd;
    // the share of the floor that judges stored verdicts again (their prompt tokens among all those counted)
    const again = r.rejudge.verdicts;
    r.rejudge.estimated_cost_usd =
      again === 0 ? 0 : r.cost_range.floor_usd !== null && r.prompt_tokens > 0 ? (r.cost_range.floor_usd * p.rejudgeTokens) / r.prompt_tokens : null;
    if (total !== null && r.estimated_cost_usd !== null) total += r.estimated_cost_usd;
    ceiling = ceiling !== null && r.cost_range.ceiling_usd !== null ? ceiling + r.cost_range.ceiling_usd : null;
    if (r.cost_range.observed_usd !== null && observedTotal !== null) observedTotal += r.cost_range.observed_usd;
    else observedTotal = observedTotal !== null ? observedTotal + (r.cost_range.floor_usd ?? 0) : null;
    if (r.cost_range.observed_usd === null) observedMissing++;
  }
  return {
    floor_usd: total,
    ceiling_usd: ceiling,
    observed_usd: observedMissing === per.length ? null : observedTotal,
    ...(observedMissing > 0 ? { observed_note: `${observedMissing} judge(s) without stored verdicts in this run count at their floor` } : {}),
  };
}

/** What every dry-run figure assumes (listed with the result). */
function dryRunAssumptions(): string[] {
  return [
    "floor (estimated_cost_usd): one request per trajectory and repeat, no feedback turn; ceiling: every feedback turn (retries) spent, each resending the conversation; observed: the judge's requests per verdict and output tokens per request in the verdicts this run already holds. Transport retries (429, 5xx) come on top of all three",
    "every request carries the response_format schema (schema_tokens_per_request), which OpenAI bills as prompt tokens",
    `output tokens per reply: the judge's observed figure in this run where there is one; else ${FLOOR_OUTPUT_TOKENS} for the floor (a short verdict) and assumed_output_tokens_per_request for the ceiling (--assume-output-tokens; default the judge's max_tokens or ${DEFAULT_ASSUMED_OUTPUT_TOKENS}, whichever is lower); reasoning models use many more`,
    `the cacheable prefix (the system message) is billed at cached_input_per_mtok on every request after the first when it is at least ${MIN_CACHEABLE_PREFIX_TOKENS} tokens (OpenAI's minimum), else at input_per_mtok`,
    "tokenizer 'estimated' = characters / 4, not a count",
  ];
}

/**
 * Output tokens per reply of the floor when the run holds no verdict of the judge: a short verdict (one finding, one
 * quote, a sentence of rationale; replies on the shared corpus averaged ~47-60 tokens).
 */
export const FLOOR_OUTPUT_TOKENS = 40;

/** Characters of one feedback turn assumed by the ceiling (as the cost cap's reservation: `RESERVE_FEEDBACK_CHARS`). */
export const FEEDBACK_TOKENS_PER_TURN = Math.ceil(RESERVE_FEEDBACK_CHARS / 4);

/** A judge's feedback turns per verdict (`verdictConfig.retries`, default 2). */
function retriesOf(j: Judge): number {
  const r = (j.verdictConfig as { retries?: unknown } | undefined)?.retries;
  return typeof r === "number" && Number.isInteger(r) && r >= 0 ? r : 2;
}

/**
 * Fill `r.cost_range` (USD). With P the first prompt per verdict (rendered request + schema), O output tokens per
 * reply, F feedback tokens per turn and t requests per verdict, one verdict's conversation costs
 * t·P + t(t-1)/2·(O+F) prompt tokens (each turn resends the conversation so far) and t·O output tokens; the cached
 * system prefix (`prefix` tokens per request, 0 when too short to be cached) is billed at the cached price on every
 * request after the first. floor: t = 1, O = observed or assumed; ceiling: t = retries + 1, O = assumed;
 * observed: t and O observed in the run's stored verdicts of this judge. The floor's O without an observation is
 * {@link FLOOR_OUTPUT_TOKENS} (a short verdict), the ceiling's the assumption (600 or the judge's `max_tokens`).
 */
function costRange(r: DryRunJudge, prefix: number): void {
  const price = r.price!;
  const n = r.requests;
  if (n === 0) {
    r.cost_range = { floor_usd: 0, ceiling_usd: 0, observed_usd: 0 };
    return;
  }
  const p = r.prompt_tokens / n + r.schema_tokens_per_request;
  const assumed = r.assumed_output_tokens_per_request;
  const at = (t: number, o: number): number => {
    const prompt = n * (t * p + ((t * (t - 1)) / 2) * (o + FEEDBACK_TOKENS_PER_TURN));
    const cached = Math.max(0, n * t - 1) * prefix;
    return tokensCost(prompt, cached, n * t * o, price);
  };
  const ob = r.observed;
  r.cost_range = {
    floor_usd: at(1, ob ? ob.output_tokens_per_request : Math.min(assumed, FLOOR_OUTPUT_TOKENS)),
    ceiling_usd: at(r.retries + 1, assumed),
    observed_usd: ob ? at(ob.requests_per_verdict, ob.output_tokens_per_request) : null,
    ...(ob ? {} : { observed_reason: "this run holds no verdict of this judge with its usage yet" }),
  };
}

/** The stored ids other than `id` whose latest index row records content `sha` (built once per rows map). */
function storedIdsOf(rows: ReadonlyMap<string, { sha: string }>, sha: string, id: string): string[] {
  let by = BY_SHA.get(rows);
  if (!by) {
    BY_SHA.set(rows, (by = new Map()));
    for (const [k, r] of rows) by.set(r.sha, [...(by.get(r.sha) ?? []), k]);
  }
  return (by.get(sha) ?? []).filter((x) => x !== id);
}
const BY_SHA = new WeakMap<ReadonlyMap<string, { sha: string }>, Map<string, string[]>>();
