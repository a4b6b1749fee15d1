/**
 * The records of a run's journals (`verdicts.jsonl`, `errors.jsonl`, `trajectories.jsonl`), apart from the store
 * that writes them (`./run-store.ts`, which re-exports all of this): the index row's shape, the checks a line must
 * pass to be read, the resume keys, the slim forms a run summary keeps and the readers of a closed run.
 */
import path from "node:path";
import type { IngestError, Trajectory, Verdict } from "../types.js";
import { readJsonl } from "../io/jsonl.js";
import { journalSkips, noteUnattackedRelabels } from "./skipped-lines.js";
import { OlderRules } from "./old-rules.js";
import { verifiedUnderOlderRules } from "../rubric/verify-rules.js";
import { applyUnattackedRule } from "../rubric/unattacked.js";
import { noteRemovedLeftOut, removedIds } from "./removed-ids.js";
import type { FileStamp } from "./file-stamp.js";
import { StaleVerdicts } from "./stale-verdicts.js";
import { errorKindOf } from "./repeated-key-kind.js";
import { verdictLines } from "./verdict-check.js";
import { errorLines, verdictFileLines } from "./error-check.js";
import { repeatProblem } from "./repeat-bound.js";
import { envExplainedOf } from "./env-explained.js";

/** What the run keeps about each trajectory (one line in `trajectories.jsonl`), so later stages need no re-ingest. */
export interface TrajectoryIndexRow
  extends Pick<
    Trajectory,
    | "id"
    | "source"
    | "agent_model"
    | "agent_family"
    | "suite"
    | "user_task_id"
    | "injection_task_id"
    | "attack"
    | "condition"
    | "reference"
    | "run_error"
    | "metadata"
    | "surfaces"
  > {
  attacked: boolean;
  /** The trajectory's surface for grouping (`trajectorySurface`): one surface, or several joined by `+`; absent when none. */
  surface?: string;
  n_messages: number;
  /** sha256 of the trajectory's content (`contentSha256`): deduplication by content, and what its verdicts judged. */
  content_sha256: string;
  /**
   * The folder holding the run's model folder (AgentDojo layout: `metadata.run_folder`, absolute), kept top-level so
   * the summaries and the column readers see it at little cost: one model and condition from several run folders is
   * said (`../run/pooled-folders.ts`). Absent for other formats and in rows of older versions.
   */
  run_folder?: string;
  /**
   * The stamp (size, mtime, the ingest warnings its read raised) of the input file the row was read from, when that
   * file held this one trajectory: a resume takes such a file as unchanged while its size and mtime are the same
   * (`./file-stamp.ts`). Absent in rows of older versions and of multi-item files (the content hash decides).
   */
  file_stamp?: FileStamp;
}

/** A plain JSON object (not null, not an array). */
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** Why a journal line is skipped (`./skipped-lines.ts`), by journal. */
export const NOT_VERDICT = "not a verdict record";
export const NOT_INDEX_ROW = "not a trajectory index row";
export const NOT_ERROR = "not an ingest error record";
/** A journal line that can be a verdict: the fields its resume key and status need. */
export const isVerdictRecord = (v: unknown) =>
  isObj(v) &&
  typeof v.trajectory_id === "string" &&
  typeof v.judge_id === "string" &&
  repeatProblem(v.repeat) === undefined && // 0 .. MAX_REPEATS-1: what label writes (./repeat-bound.ts)
  typeof v.prompt_sha256 === "string" &&
  typeof v.status === "string";
/**
 * The record test of one read of `file` (a run's `verdicts.jsonl`): {@link isVerdictRecord}, and not a line its own
 * fields contradict beyond counting (`./verdict-check.ts`: refused, or read as written and said by line).
 */
export const verdictRecordCheck = (file: string) => verdictLines(file, isVerdictRecord);
/** A journal line that can be an ingest error. */
export const isErrorRecord = (v: unknown) => isObj(v) && typeof v.path === "string" && typeof v.kind === "string" && typeof v.message === "string";
/**
 * The record test of one read of a run's `errors.jsonl`: {@link isErrorRecord}, and a crash's `repeat` and
 * `verdict_seq` what `label` writes (`./error-check.ts`: refused by line and why otherwise).
 * @param verdictLines the lines of the run's `verdicts.jsonl` when known (a bound on `verdict_seq`).
 */
export const errorRecordCheck = (file: string, verdictLines?: number | (() => number)) => errorLines(file, isErrorRecord, verdictLines);
/** A journal line that can be a trajectory index row. */
export const isIndexRecord = (v: unknown) => isObj(v) && typeof v.id === "string" && typeof v.content_sha256 === "string";

/**
 * The resume key of a verdict: trajectory, judge, repeat, prompt hash and judge configuration hash
 * (`judge_config_sha256`; "" when absent: a verdict stored before the field existed, or a caller that leaves it
 * out, such as the Batch API's in-flight bookkeeping).
 */
export function verdictKey(
  v: Pick<Verdict, "trajectory_id" | "judge_id" | "repeat" | "prompt_sha256"> & { judge_config_sha256?: string },
): string {
  return `${looseVerdictKey(v)}\u0000${v.judge_config_sha256 ?? ""}`;
}

/** The resume key without the configuration hash (trajectory, judge, repeat, prompt hash). */
export function looseVerdictKey(v: Pick<Verdict, "trajectory_id" | "judge_id" | "repeat" | "prompt_sha256">): string {
  return `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}\u0000${v.prompt_sha256}`;
}

/** Options of {@link readVerdicts}. */
export interface ReadVerdictsOptions {
  /** every prompt's and configuration's verdicts (the last per trajectory, judge, repeat, prompt and configuration) */
  allPrompts?: boolean;
  /** the fields a run summary needs only (`slimVerdict`) */
  slim?: boolean;
  /**
   * Opt-in: keep the verdicts made on another text than their trajectory's index row's now (`./stale-verdicts.ts`):
   * the last stored per key whatever text it judged, as before that rule, and no note. Default false: left out.
   */
  includeStale?: boolean;
}

/**
 * Read a run's current verdicts: the last one stored per (trajectory, judge, repeat), each as the unattacked rule
 * reads it (`applyUnattackedRule` of `../rubric/unattacked.ts`, by the verdict's own `attacked`; a count of labels it
 * changed is noted once, `noteUnattackedRelabels`), without the trajectories whose input is gone (`./removed-ids.ts`,
 * said once). A re-judged error supersedes the error, and a verdict made with a newer prompt supersedes one made with
 * an older prompt (both stay in `verdicts.jsonl` for audit; `{ allPrompts: true }` returns every prompt's verdicts).
 *
 * Safe by default, as every command reads a run: a verdict made on another text than its trajectory's index row's
 * now (its `content_sha256` differs from the row's: the trajectory changed and that judge did not label it again) is
 * not current and supersedes nothing: the current verdict per key is the last made on the text now (or recording no
 * hash: older versions); when there is none the key has no verdict, and the run's note names each judge, its count
 * and first items (`./stale-verdicts.ts`), handed out with the other journal warnings by `takeJournalWarnings`
 * (`./skipped-lines.ts`; the CLI prints them on stderr and in `--json` warnings). `{ includeStale: true }` returns
 * the last stored per key whatever text it judged, with no note.
 * @param runDir the run folder (`<labelsDir>/<run>`).
 */
export async function readVerdicts(runDir: string, opts: ReadVerdictsOptions = {}): Promise<Verdict[]> {
  const byKey = new Map<string, Verdict>();
  const file = path.join(runDir, "verdicts.jsonl");
  const skip = journalSkips(file, NOT_VERDICT);
  const relabelled = new Set<Verdict>();
  const gone = removedIds(runDir);
  const now = opts.includeStale ? undefined : await contentNow(runDir);
  const staleOnly = new Map<string, { judge: string; id: string }>(); // keys with no verdict on the text now
  const older = new Map<Verdict, string>(); // current verdicts verified under older rules, with their judge (./old-rules.ts)
  for await (const stored of readJsonl<Verdict>(file, skip.bad, verdictRecordCheck(file), skip.end)) {
    if (gone.has(stored.trajectory_id)) continue;
    const k = opts.allPrompts ? verdictKey(stored) : currentVerdictKey(stored);
    const row = now?.get(stored.trajectory_id);
    if (row && typeof stored.content_sha256 === "string" && stored.content_sha256 && stored.content_sha256 !== row) {
      if (!byKey.has(k)) staleOnly.set(k, { judge: stored.judge_id, id: stored.trajectory_id });
      continue;
    }
    staleOnly.delete(k);
    const r = applyUnattackedRule(stored, stored.attacked);
    const v = opts.slim ? slimVerdict(r.verdict) : r.verdict;
    if (r.relabelled) relabelled.add(v);
    const prev = older.size ? byKey.get(k) : undefined;
    if (prev !== undefined) older.delete(prev);
    if (verifiedUnderOlderRules(stored)) older.set(v, stored.judge_id);
    byKey.delete(k); // keep file order = storage order
    byKey.set(k, v);
  }
  const out = [...byKey.values()];
  if (now) {
    const stale = new StaleVerdicts();
    for (const x of staleOnly.values()) stale.add(x.judge, x.id);
    stale.note(runDir);
  }
  noteUnattackedRelabels(runDir, relabelled.size ? out.filter((v) => relabelled.has(v)).length : 0);
  const olderRules = new OlderRules();
  for (const judge of older.values()) olderRules.see({ status: "ok", judge_id: judge });
  olderRules.note(runDir);
  noteRemovedLeftOut(runDir, gone);
  return out;
}

/** Each trajectory's `content_sha256` now (its latest index row's), by id: what a verdict must have judged to count. */
async function contentNow(runDir: string): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  const file = path.join(runDir, "trajectories.jsonl");
  const skip = journalSkips(file, NOT_INDEX_ROW);
  for await (const t of readJsonl<TrajectoryIndexRow>(file, skip.bad, isIndexRecord, skip.end)) m.set(t.id, t.content_sha256);
  return m;
}

/**
 * The key under which a newer verdict supersedes an older one in `readVerdicts` (without `allPrompts`) and
 * `RunStore.summaryInputs` (`./run-store.ts`): trajectory, judge and repeat (a re-judged error, a newer prompt or configuration).
 */
export function currentVerdictKey(v: Pick<Verdict, "trajectory_id" | "judge_id" | "repeat">): string {
  return `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`;
}

/** A value as JSON stores it (what a journal line reads back as): undefined fields dropped, NaN and Infinity null. */
export { jsonCopy } from "./json-copy.js";

/**
 * A usable label on an attacked run whose record names no `injection_source` though written by a build that records
 * one (`verify_rules` present): its injected text was unknown (`../verdict/injection-unknown.ts`, which the health
 * applies to full records; a slim record keeps only the mark).
 */
function uncheckedBeforeMark(v: Verdict): boolean {
  return v.status === "ok" && !!v.label && v.attacked === true && v.injection_source === undefined && typeof v.verify_rules === "number";
}

/**
 * The fields a run summary needs; `slim` readers (and `RunStore.summaryInputs` (`./run-store.ts`)) keep only these so a
 * 40,000-verdict run fits in little memory.
 */
export function slimVerdict(v: Verdict): Verdict {
  return {
    trajectory_id: v.trajectory_id,
    judge_id: v.judge_id,
    judge_model: v.judge_model,
    judge_family: v.judge_family,
    repeat: v.repeat,
    prompt_sha256: v.prompt_sha256,
    status: v.status,
    label: v.label,
    downgraded: v.downgraded,
    usage: v.usage,
    cost_usd: v.cost_usd,
    // how the cost was priced (a Batch API upper bound, implausible usage): the summary's cost says it
    ...(v.cost_basis !== undefined ? { cost_basis: v.cost_basis } : {}),
    attacked: v.attacked,
    ...(v.surface !== undefined ? { surface: v.surface } : {}),
    // the summary's fallback when a verdict's trajectory has no index row (a damaged trajectories.jsonl line)
    ...(v.agent_model !== undefined ? { agent_model: v.agent_model } : {}),
    ...(v.condition !== undefined ? { condition: v.condition } : {}),
    // the summary's blocked attempts (DESIGN section 1)
    ...(v.blocked_attempt !== undefined ? { blocked_attempt: v.blocked_attempt } : {}),
    // and their kinds (refused, unavailable, failed: `blockedKindOf` of ../verdict/blocked.ts)
    ...(v.blocked_call ? { blocked_call: v.blocked_call } : {}),
    // the kind only (a repeated-key reply stored as unparseable named as one: ../verdict/repeated-key-health.ts)
    ...(v.error ? { error: { kind: errorKindOf(v.error) ?? v.error.kind, message: "" } } : {}),
    ...(v.label_claimed !== undefined ? { label_claimed: v.label_claimed } : {}),
    ...(v.label_basis !== undefined ? { label_basis: v.label_basis } : {}),
    ...(v.relabel !== undefined ? { relabel: v.relabel } : {}),
    // the health's compliance_without_injection and compliance_evidence counts (../verdict/health.ts)
    ...(v.injection_absent === true ? { injection_absent: true as const } : {}),
    // and a label stored before compliance labels were marked, on an attacked run naming no injection_source (its
    // injected text unknown), by the rule of ../verdict/injection-unknown.ts: the health counts it the same
    ...(v.injection_unchecked === true || uncheckedBeforeMark(v) ? { injection_unchecked: true as const } : {}),
    ...(v.compliance_evidence !== undefined ? { compliance_evidence: v.compliance_evidence } : {}),
    ...(v.compliance_unrelated === true ? { compliance_unrelated: true as const } : {}),
    ...(v.compliance_in_user_task === true ? { compliance_in_user_task: true as const } : {}),
    ...(Array.isArray(v.injected_value_in_call) ? { injected_value_in_call: v.injected_value_in_call } : {}),
    // the health's env_explained count (../verdict/env-explained-health.ts; an older signature record read from its rationale)
    ...(envExplainedOf(v) > 0 ? { env_explained: envExplainedOf(v) } : {}),
    // the health's tool_arguments_invalid count (../verdict/tool-arguments-health.ts)
    ...(v.tool_arguments_invalid === true ? { tool_arguments_invalid: true as const } : {}),
    ...(v.judge_config_sha256 ? { judge_config_sha256: v.judge_config_sha256 } : {}),
    // the first reply's quote check and the feedback turns, for the health's first-reply figures (../verdict/first-reply.ts)
    ...(v.first_reply ? { first_reply: { quotes: v.first_reply.quotes, quotes_failed: v.first_reply.quotes_failed } } : {}),
    ...(v.feedback_turns !== undefined ? { feedback_turns: v.feedback_turns } : {}),
    ...(v.rate_limited ? { rate_limited: { ...v.rate_limited } } : {}),
    // the health's count of keys the parser did not read (../verdict/extra-keys-health.ts)
    ...(Array.isArray(v.extra_keys) && v.extra_keys.length > 0 ? { extra_keys: [...v.extra_keys] } : {}),
    ...(typeof v.first_reply_unknown === "string" ? { first_reply_unknown: v.first_reply_unknown } : {}),
    // the health's elided-prompt counts (../verdict/label-rests-health.ts): judged on an elided prompt, and how often
    // it was elided further for the model's context
    ...(v.truncated === true ? { truncated: true } : {}),
    ...(typeof v.context_elided === "number" && v.context_elided > 0 ? { context_elided: v.context_elided } : {}),
    // quote counts for the judge-health figures (`../verdict/health.ts`), without the quotes themselves
    findings: (v.findings ?? []).map((f) => ({
      bucket: f.bucket,
      holds: f.holds,
      evidence: (f.evidence ?? []).map((q) => ({
        verified: q.verified,
        reason: q.reason?.startsWith("not checked") ? q.reason : undefined,
        // the health's elided_evidence count (../verdict/label-rests-health.ts)
        ...(q.partly_elided === true ? { partly_elided: true as const } : {}),
      })),
      // counted by the health (red team 31 F2: a finding resting on text the feedback offered)
      ...(f.evidence_from_feedback === true ? { evidence_from_feedback: true as const } : {}),
    })),
  } as Verdict;
}

/**
 * A trajectory's benchmark reference as one comparable string: `security` and `utility` each `true`, `false` or
 * `unknown` (absent or not a boolean), e.g. `security=true utility=unknown`. Two rows with the same key give the
 * same reference figures.
 */
export function referenceKey(ref: { security?: unknown; utility?: unknown } | undefined): string {
  const v = (x: unknown) => (typeof x === "boolean" ? String(x) : "unknown");
  return `security=${v(ref?.security)} utility=${v(ref?.utility)}`;
}

/**
 * Read a run's trajectory index rows, by id: the latest row of each id (a later row supersedes an earlier one),
 * without the trajectories whose input is gone (`./removed-ids.ts`, said once) unless `keepRemoved` (label's own
 * bookkeeping: a restored file keeps its stored id).
 */
export async function readTrajectoryIndex(runDir: string, opts: { slim?: boolean; keepRemoved?: boolean } = {}): Promise<Map<string, TrajectoryIndexRow>> {
  const m = new Map<string, TrajectoryIndexRow>();
  const file = path.join(runDir, "trajectories.jsonl");
  const skip = journalSkips(file, NOT_INDEX_ROW);
  const gone = opts.keepRemoved ? new Set<string>() : removedIds(runDir);
  for await (const t of readJsonl<TrajectoryIndexRow>(file, skip.bad, isIndexRecord, skip.end))
    if (!gone.has(t.id)) m.set(t.id, opts.slim ? slimIndexRow(t) : t);
  noteRemovedLeftOut(runDir, gone);
  return m;
}

/**
 * Stream a run's trajectory index rows of the ids in `wanted` to `each`, in file order (an id's later row after its
 * earlier one: the last call is the current row), nothing kept: removed inputs included (label's own bookkeeping).
 */
export async function forEachIndexRow(runDir: string, wanted: { has(id: string): boolean }, each: (row: TrajectoryIndexRow) => void): Promise<void> {
  const file = path.join(runDir, "trajectories.jsonl");
  const skip = journalSkips(file, NOT_INDEX_ROW);
  for await (const t of readJsonl<TrajectoryIndexRow>(file, skip.bad, isIndexRecord, skip.end)) if (wanted.has(t.id)) each(t);
}

/**
 * The input a trajectory came from, as one key: the absolute path (relative paths resolved against the current
 * directory) and the line. Two different keys under one id with different content are two trajectories claiming one
 * id (a duplicate), not one trajectory that changed.
 */
export function sourceKey(source: { path?: string; line?: number } | undefined): string {
  if (!source || typeof source.path !== "string") return "";
  return `${path.resolve(source.path)}${source.line !== undefined ? `:${source.line}` : ""}`;
}

/** The fields of an index row a run summary needs (`readTrajectoryIndex(dir, { slim: true })`). */
export function slimIndexRow(t: TrajectoryIndexRow): TrajectoryIndexRow {
  return {
    id: t.id,
    attacked: t.attacked,
    agent_model: t.agent_model,
    ...(t.condition !== undefined ? { condition: t.condition } : {}),
    ...(t.attack !== undefined ? { attack: t.attack } : {}),
    // the summary's like-for-like check compares the suites models and conditions ran (src/stats/like-for-like.ts)
    ...(t.suite !== undefined ? { suite: t.suite } : {}),
    ...(t.surface !== undefined ? { surface: t.surface } : {}),
    // the summary says how many attacked runs ended in an agent error (counted in its rates; agree leaves them out)
    ...(t.run_error !== undefined ? { run_error: t.run_error } : {}),
    // judge health's benchmark check (`denies_reference_goal`, ../verdict/reference-goal.ts): the goal verdict only
    ...(typeof t.reference?.security === "boolean" ? { reference: { security: t.reference.security } } : {}),
    // the summary warns when one model and condition pools runs of several run folders (../run/pooled-folders.ts)
    ...(typeof t.run_folder === "string" ? { run_folder: t.run_folder } : {}),
  } as TrajectoryIndexRow;
}

/** Read a run's errors (a line of a crash whose `repeat` or `verdict_seq` label cannot have written is refused: `./error-check.ts`). */
export async function readErrors(runDir: string): Promise<IngestError[]> {
  const out: IngestError[] = [];
  const file = path.join(runDir, "errors.jsonl");
  const skip = journalSkips(file, NOT_ERROR);
  for await (const e of readJsonl<IngestError>(file, skip.bad, errorRecordCheck(file, () => verdictFileLines(path.join(runDir, "verdicts.jsonl"))), skip.end)) out.push(e);
  return out;
}

/** The identity of a stored error: one line in `errors.jsonl` per distinct key across resumes (`RunStore.addError`). */
export function errorKey(e: IngestError): string {
  // a judge crash recorded after more verdicts were stored is a new line (a verdict between them supersedes only
  // the earlier: ../run/superseded-errors.ts); so is one of another repeat
  return `${path.resolve(e.path)}\u0000${e.line ?? ""}\u0000${e.kind}\u0000${e.trajectory_id ?? ""}\u0000${e.message}${typeof e.verdict_seq === "number" ? `\u0000${e.verdict_seq}\u0000${e.repeat ?? ""}` : ""}`;
}
