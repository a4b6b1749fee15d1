/**
 * Re-judging said before it is paid (issue 22 item 8): the stored verdicts a `label` invocation will judge again
 * (another prompt or rubric, another judge configuration, changed trajectory content, an interrupted conversation,
 * a retried judge error: `RejudgeReason`, `./resume.ts`), counted per judge and reason with what the verdicts they
 * replace cost, before anything is sent. `label --dry-run` reports the same counts with its token estimate.
 */
import type { Judge } from "../judges/judge.js";
import { readTrajectories, readTrajectoriesResuming, type ReadOptions, type UnchangedFile } from "../ingest/index.js";
import type { VerdictLedger } from "../store/ledger.js";
import type { RejudgeReason, RepeatPlan, StoredChatIds } from "./resume.js";
import { contentSha256, indexRow, keepStoredChatId, planRepeats, REJUDGE_REASONS } from "./resume.js";
import { mayCarry } from "./carry-candidates.js";
import { PreparationError, type PreparedTrajectory } from "./prepare.js";
import type { Trajectory } from "../types.js";

/** One judge's re-judged verdicts. */
export interface RejudgeJudge {
  judge: string;
  verdicts: number;
  by_reason: Partial<Record<RejudgeReason, number>>;
  /** USD the replaced verdicts cost when they were made (a measure of what judging them again costs). */
  replaced_cost_usd: number;
  /** Replaced verdicts that sent requests but whose cost is unknown (not in `replaced_cost_usd`). */
  replaced_unknown_cost: number;
  /** Rubric versions of the replaced verdicts made with another prompt (what they were made under). */
  rubric_versions_before: string[];
  /**
   * Of `verdicts`, those whose content now is stored under another id that covers it (`./carry-candidates.ts`):
   * label carries them over from that id (no request) when that id's row moved, so `verdicts` is an upper bound.
   */
  may_carry?: number;
}

/** The stored verdicts an invocation judges again, per judge and in all. */
export interface RejudgeCount {
  verdicts: number;
  by_reason: Partial<Record<RejudgeReason, number>>;
  judges: RejudgeJudge[];
  /** Of `verdicts`, those another stored id of the same content covers (`RejudgeJudge.may_carry`); absent when none. */
  may_carry?: number;
}

/** An empty count. */
export function emptyRejudge(): RejudgeCount {
  return { verdicts: 0, by_reason: {}, judges: [] };
}

/**
 * Add the re-judged repeats of one (trajectory, judge) to a count (`new` repeats add nothing).
 * @param carryable of these repeats, how many another stored id of the same content covers (`./carry-candidates.ts`).
 */
export function addRejudge(count: RejudgeCount, judgeId: string, plans: readonly RepeatPlan[], carryable = 0): void {
  let carry = carryable;
  for (const p of plans) {
    if (p.reason === "new") continue;
    let j = count.judges.find((x) => x.judge === judgeId);
    if (!j) count.judges.push((j = { judge: judgeId, verdicts: 0, by_reason: {}, replaced_cost_usd: 0, replaced_unknown_cost: 0, rubric_versions_before: [] }));
    if (carry > 0) {
      carry--;
      j.may_carry = (j.may_carry ?? 0) + 1;
      count.may_carry = (count.may_carry ?? 0) + 1;
    }
    j.verdicts++;
    j.by_reason[p.reason] = (j.by_reason[p.reason] ?? 0) + 1;
    count.verdicts++;
    count.by_reason[p.reason] = (count.by_reason[p.reason] ?? 0) + 1;
    if (p.stored.cost_usd !== null) j.replaced_cost_usd += p.stored.cost_usd;
    else if (p.stored.attempts > 0) j.replaced_unknown_cost++;
    if (p.reason === "prompt_changed" && p.stored.rubric_version && !j.rubric_versions_before.includes(p.stored.rubric_version))
      j.rubric_versions_before.push(p.stored.rubric_version);
  }
}

/** Words for each reason (text output). */
export const REJUDGE_REASON_TEXT: Record<RejudgeReason, string> = {
  prompt_changed: "prompt or rubric changed",
  config_changed: "judge configuration changed",
  content_changed: "trajectory changed",
  content_unknown: "trajectory changed since a verdict stored without a content hash (older version)",
  interrupted: "conversation interrupted",
  judge_error_retried: "judge error retried (--retry-errors)",
  judge_refused_retried: "judge refusal retried (--retry-refusals)",
  feedback_refused_retried: "decided verdict whose feedback turn the judge refused, retried (--retry-refusals)",
};

/** `reason n; reason n` in the order of {@link REJUDGE_REASONS}. */
export function reasonsText(by: Partial<Record<RejudgeReason, number>>): string {
  return REJUDGE_REASONS.filter((r) => by[r]).map((r) => `${REJUDGE_REASON_TEXT[r]} ${by[r]}`).join("; ");
}

/**
 * One line per judge saying what will be judged again and what the replaced verdicts cost (empty when nothing).
 * @param current rubric version per judge id now (named beside the versions the replaced verdicts were made under).
 */
export function formatRejudge(count: RejudgeCount, current: ReadonlyMap<string, string> = new Map()): string[] {
  const usd = (x: number) => (x < 1 ? `$${x.toPrecision(3)}` : `$${x.toFixed(2)}`);
  return count.judges.map((j) => {
    const rubric = j.rubric_versions_before.length ? ` (rubric ${j.rubric_versions_before.join(", ")} -> ${current.get(j.judge) ?? "?"})` : "";
    const cost =
      j.replaced_cost_usd > 0 || j.replaced_unknown_cost > 0
        ? `; the verdicts they replace cost ${usd(j.replaced_cost_usd)}${j.replaced_unknown_cost ? ` (+ ${j.replaced_unknown_cost} of unknown cost)` : ""}, ${j.may_carry ? "at most" : "about"} what judging them again costs`
        : "";
    const carry = j.may_carry ? `; ${j.may_carry} of them hold content now stored under another id, whose verdicts label carries over instead (no request) where that id's row moved (a row deleted or inserted above it), so fewer may be sent` : "";
    return `judge ${j.judge}: ${j.may_carry ? "up to " : ""}${j.verdicts} stored verdict(s) will be judged again: ${reasonsText(j.by_reason)}${rubric}${carry}${cost}`;
  });
}

/**
 * Read the inputs once, as `label` will (same format, limit and chat-id rule), and count the stored verdicts it
 * will judge again, before anything is sent. Reads nothing when the run holds no verdict of these judges (a new
 * run has nothing to re-judge).
 * @param configs the `judge_config_sha256` of each judge now.
 * @returns the count (empty when nothing is judged again, or the signal stopped the read).
 */
export async function countRejudging(opts: {
  inputs: string[];
  read: ReadOptions;
  limit?: number;
  judges: readonly Judge[];
  repeats: number;
  ledger: VerdictLedger;
  configs: ReadonlyMap<string, { sha: string }>;
  onConfigChange: "refuse" | "rejudge" | "keep";
  retryErrors?: boolean;
  retryRefusals?: boolean;
  oldIds: StoredChatIds;
  signal?: AbortSignal;
  /** Called every 64 items read (the CLI's heap-size GC trigger, `LabelOptions.onHeapCheck`). */
  onHeapCheck?: () => void;
  /**
   * The trajectory `label` judges from one it read (`./prepare.ts`: recovered injected text, decided surfaces):
   * its content hash is the one compared. Default: the trajectory as read.
   */
  prepare?: (raw: Trajectory) => Promise<PreparedTrajectory>;
  /** Whether `label` judges a prepared trajectory at all (`--where`, not a duplicate id); skipped ones count neither for `limit`. */
  keep?: (p: PreparedTrajectory) => boolean;
  /** The resume fast path's check (`./fast-resume.ts`): a file it passes over has nothing to judge again (counts for `limit`). */
  unchanged?: UnchangedFile;
  /** The stored ids other than `id` whose recorded content hash is `sha` (`./carry-candidates.ts`); default none. */
  othersOf?: (id: string, sha: string) => readonly string[];
}): Promise<RejudgeCount> {
  const count = emptyRejudge();
  if (!opts.judges.some((j) => opts.ledger.hasJudge(j.id))) return count;
  let taken = 0;
  const read = { ...opts.read, onWarning: undefined };
  for await (const item of opts.unchanged ? readTrajectoriesResuming(opts.inputs, read, opts.unchanged) : readTrajectories(opts.inputs, read)) {
    if (opts.signal?.aborted) break;
    if (item.kind === "error") continue;
    if (item.kind === "unchanged") {
      if (opts.limit !== undefined && taken >= opts.limit) break;
      taken++;
      continue;
    }
    const raw = item.trajectory;
    if (opts.oldIds.byLine.size > 0) raw.id = keepStoredChatId(raw, opts.oldIds) ?? raw.id;
    // a trajectory that cannot be prepared is not judged (the reading loop records its prepare_failed error)
    const p = opts.prepare ? await opts.prepare(raw).catch(notPrepared) : { trajectory: raw, row: indexRow(raw), surfaceWarnings: [] };
    if (!p) continue;
    if (opts.keep && !opts.keep(p)) continue;
    if (opts.limit !== undefined && taken >= opts.limit) break;
    taken++;
    if (taken % 64 === 0) opts.onHeapCheck?.();
    const t = p.trajectory;
    const sha = p.row.content_sha256;
    for (const j of opts.judges) {
      if (!opts.ledger.hasJudge(j.id)) continue;
      const planOpts = { configSha: opts.configs.get(j.id)!.sha, onConfigChange: opts.onConfigChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals };
      const plans = planRepeats(t, sha, j, opts.repeats, opts.ledger, planOpts);
      const again = plans.filter((x) => x.reason !== "new");
      addRejudge(count, j.id, plans, opts.othersOf && again.length ? mayCarry(opts.othersOf(t.id, sha), sha, j, opts.repeats, opts.ledger, planOpts, again) : 0);
    }
  }
  return count;
}

/** A preparation's fault ({@link PreparationError}) as undefined: the item is passed over; any other error rethrown. */
function notPrepared(e: unknown): undefined {
  if (e instanceof PreparationError) return undefined;
  throw e;
}
