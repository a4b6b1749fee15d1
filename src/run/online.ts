/**
 * The online path of a label run: each (trajectory, judge, repeat) is one `judge.judge(t, ctx)` call, at most
 * `concurrency` per judge at once (p-limit), under the cost cap's reservation; its verdict (or its error) goes into
 * the run store as soon as it exists. The reading loop and the batch path are `./label.ts` and `./batch.ts`.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { Judge } from "../judges/judge.js";
import { trajectoryChars } from "../judges/signature/index.js";
import { JudgeFatalError } from "../errors.js";
import type { Trajectory, Verdict } from "../types.js";
import { contentSha256 } from "./resume.js";
import { StoreWriteError } from "../store/journal.js";
import { holdBack, reservationOf, unknownCostCharge } from "./cost-cap.js";
import { capDecision, onlineReleased, releaseOnline, reserveOnline } from "./online-reserved.js";
import { markLeftByStop, type LabelRunState } from "./label-core.js";

/** The ids a judge's stopped repeats left un-judged (`LabelRunState.stoppedInFlight`), made when first needed. */
function stoppedFor(run: LabelRunState, judgeId: string): Set<string> {
  let ids = run.stoppedInFlight.get(judgeId);
  if (!ids) run.stoppedInFlight.set(judgeId, (ids = new Set()));
  return ids;
}

/**
 * Fewest items in flight before {@link OnlinePath.maxPendingChars} holds the reading loop back (the signature judge's
 * default before issue 26 raised it to 128: what a corpus of large trajectories keeps in flight).
 */
export const MIN_PENDING = 16;

/**
 * Characters of trajectory text ({@link heldChars}) held by the verdicts in flight past which the reading loop waits
 * (with at least {@link OnlinePath.minPendingForChars} in flight; a trajectory counts once per judge and repeat):
 * 32 Mi UTF-16 units, 32-64 MB of strings. The signature judge keeps 128
 * trajectories in flight (`SIGNATURE_CONCURRENCY`), 256 read ahead: ~2.5 M characters of AgentDojo runs, far below
 * this, but 256 trajectories of 2 MB each would hold ~0.5-1 GB. Measured (600 AgentDojo runs with a 2 MB tool
 * result each, 2-core machine): peak RSS 284 MB with 8 in flight, 347 MB with 128 and no bound by characters.
 */
export const MAX_PENDING_CHARS = 32 * 1024 * 1024;

/**
 * The characters of text a trajectory holds, for the read-ahead bound: its messages, tool calls and injected texts
 * (`trajectoryChars`), and the strings and keys of its `tools` and `metadata` (chat JSONL and Inspect inputs keep
 * `metadata` whole: red team 23 M1, 1.8 M characters of it per trajectory went uncounted). Linear in the trajectory.
 */
export function heldChars(t: Trajectory): number {
  return trajectoryChars(t) + jsonChars(t.tools, 0) + jsonChars(t.metadata, 0);
}

/** Characters of the strings and keys in a JSON-like value (numbers and the like count 8), to depth 64. */
function jsonChars(v: unknown, depth: number): number {
  if (typeof v === "string") return v.length;
  if (v === null || typeof v !== "object") return v === undefined ? 0 : 8;
  if (depth >= 64) return 0;
  let n = 0;
  if (Array.isArray(v)) for (const x of v) n += jsonChars(x, depth + 1);
  else for (const k in v as Record<string, unknown>) n += k.length + jsonChars((v as Record<string, unknown>)[k], depth + 1);
  return n;
}

/** The online path of one run: `schedule` an item for a judge; the items in flight are `run.pending`. */
export class OnlinePath {
  private readonly limits: Map<string, LimitFunction>;
  /**
   * Items read ahead of the judges: enough to keep every judge busy, few enough that waiting items do not pile up
   * in the old generation of the heap (memory and GC time grow with them).
   */
  readonly maxPending: number;
  /**
   * Characters of text read ahead of the judges past which the reading loop waits too (once {@link MIN_PENDING} items
   * are in flight): {@link MAX_PENDING_CHARS}. Keeps a corpus of large trajectories from holding `maxPending` of them.
   */
  readonly maxPendingChars = MAX_PENDING_CHARS;
  /**
   * Fewest verdicts in flight before {@link maxPendingChars} holds the reading loop back: {@link MIN_PENDING}, or the
   * concurrency of the run's remote judges (not `local`) together when larger, so an LLM judge always gets its
   * `concurrency` in flight (red team 23 M2: 34 of 64 requests in flight on 1 M-character trajectories).
   */
  readonly minPendingForChars: number;

  /** @param concurrency overrides every judge's own `concurrency`. */
  constructor(
    private readonly run: LabelRunState,
    judges: readonly Judge[],
    concurrency: number | undefined,
  ) {
    this.limits = new Map(judges.map((j) => [j.id, pLimit(Math.max(1, concurrency ?? j.concurrency ?? 1))]));
    const totalConcurrency = [...this.limits.values()].reduce((a, l) => a + l.concurrency, 0);
    this.maxPending = Math.max(8, totalConcurrency * 2);
    const remote = judges.filter((j) => !j.local).reduce((a, j) => a + this.limits.get(j.id)!.concurrency, 0);
    this.minPendingForChars = Math.max(MIN_PENDING, remote);
  }

  /**
   * Whether a conversation about to start is not to be sent: the store failed, its judge was stopped (the item is
   * left un-judged by the stop) or the run was interrupted (read, queued when the stop came: not judged, not stored).
   */
  private skipped(t: Trajectory, judge: Judge): boolean {
    const run = this.run;
    if (run.fatal) return true;
    if (run.stopped[judge.id]) {
      markLeftByStop(run, judge.id, t.id);
      return true;
    }
    if (run.signal?.aborted) {
      stoppedFor(run, judge.id).add(t.id);
      return true;
    }
    return false;
  }

  /**
   * Judge one repeat of a trajectory when the judge's limit lets it: skipped when the judge was stopped, the run
   * aborted or the store failed, or (held back, un-judged) when its reservation would pass the cost cap. A
   * `JudgeFatalError` stops the judge; another throw is a `judge_crash` error of the item; the verdict is stored.
   * @param content the trajectory's `contentSha256`, when the caller has it (its index row's): recorded in the
   *   verdict as `content_sha256`; computed here when not given (a second sha256 over the whole trajectory's JSON).
   */
  schedule(t: Trajectory, judge: Judge, repeat: number, content?: string): void {
    const run = this.run;
    const limit = this.limits.get(judge.id)!;
    const chars = heldChars(t);
    run.queued++;
    const p: Promise<void> = limit(async () => {
      run.queued--;
      if (this.skipped(t, judge)) return;
      // cost cap: reserve this verdict's estimate, or hold it back (un-judged: a run with a higher cap resumes it)
      let reservation = 0;
      let reserved = { usd: 0, turn_usd: 0 };
      if (run.costCap) {
        if (run.costCap.reached) return;
        try {
          // the estimate renders the trajectory as the judge will: a fault there is this item's crash, never the run's
          reserved = reservationOf(t, judge, { budgetChars: run.judgeCtx.budgetChars, minQuoteChars: run.judgeCtx.minQuoteChars });
        } catch (e) {
          recordCrash(run, t, judge.id, repeat, e, true);
          return;
        }
        reservation = reserved.usd;
        // room held by conversations in flight is waited for (settled at their real cost), not given up (new user 43)
        let d = capDecision(run, run.costCap, reservation);
        while (d === "wait") {
          await onlineReleased(run);
          if (this.skipped(t, judge) || run.costCap.reached) return;
          d = capDecision(run, run.costCap, reservation);
        }
        if (d === "hold") {
          holdBack(run.costCap, reservation, run.reserved);
          return;
        }
        reserveOnline(run, reservation);
        const at = (run.costCap.priced_at ??= {});
        at.online = (at.online ?? 0) + 1;
      }
      let v: Verdict;
      const sent = (run.progress.sent_by_judge ??= {});
      sent[judge.id] = (sent[judge.id] ?? 0) + 1;
      run.judging++;
      try {
        v = await judge.judge(t, {
          repeat,
          signal: run.signal,
          abortSignal: run.judgeCtx.abortSignal,
          budgetChars: run.judgeCtx.budgetChars,
          minQuoteChars: run.judgeCtx.minQuoteChars,
          onWarning: run.judgeCtx.onWarning,
        });
      } catch (e) {
        run.judging--;
        if (run.costCap) releaseOnline(run, reservation);
        // A judge stopped for replying only in its reasoning field, or one that crashed, had its requests answered
        // (paid, cost unknown): the cap counts its estimate, as for a verdict without usage. Stops whose requests
        // were refused or never arrived (auth, quota, rate limit, unreachable) paid nothing.
        // A fatal stop in the middle of a conversation carries the record of what it paid (`paid`, issue 23): stored
        // (judged again by the next run) and counted at its cost, or its estimate when unknown.
        const paid = e instanceof JudgeFatalError ? (e as JudgeFatalError & { paid?: Verdict }).paid : undefined;
        if (run.costCap && !run.signal?.aborted) {
          if (paid && typeof paid.cost_usd === "number") run.costCap.spent_usd += paid.cost_usd;
          else if (paid || !(e instanceof JudgeFatalError) || e.kind === "reasoning_only" || e.kind === "empty_replies") {
            run.costCap.spent_usd += unknownCostCharge(reserved, paid?.usage?.responses_without_usage);
            run.costCap.unknown_cost_verdicts++;
          }
        }
        if (e instanceof JudgeFatalError) {
          if (paid) {
            paid.judge_config_sha256 = run.configs.get(judge.id)!.sha;
            try {
              run.store.addVerdict(paid);
            } catch (e2) {
              if (e2 instanceof StoreWriteError) run.fatal ??= e2;
            }
          }
          // the item whose request stopped the judge is left un-judged by the stop (unless what it paid is stored)
          if (!paid) markLeftByStop(run, judge.id, t.id);
          run.stopJudge(judge.id, e.message);
          return;
        }
        if (run.signal?.aborted) return;
        recordCrash(run, t, judge.id, repeat, e);
        return;
      }
      run.judging--;
      if (run.costCap) {
        releaseOnline(run, reservation);
        // a verdict whose cost is unknown (a response without usage) counts its estimate: the cap errs early
        if (typeof v.cost_usd === "number") run.costCap.spent_usd += v.cost_usd;
        else {
          run.costCap.spent_usd += unknownCostCharge(reserved, v.usage?.responses_without_usage);
          run.costCap.unknown_cost_verdicts++;
        }
      }
      // A conversation cut short by Ctrl-C (error kind "aborted") is not a verdict: the same command judges the item
      // again (the store's resumeStatus). It is stored when replies had come back (paid: its usage and cost count,
      // for --max-cost too); one with no reply is not. Every other verdict finished after the first Ctrl-C is kept.
      if (v.status === "judge_error" && v.error?.kind === "aborted" && v.raw_replies.length === 0 && v.usage.prompt_tokens === 0) {
        stoppedFor(run, judge.id).add(t.id);
        return;
      }
      v.judge_config_sha256 = run.configs.get(judge.id)!.sha;
      // the content it judged (issue 27): a later change of the trajectory makes it work still to do
      v.content_sha256 = content ?? contentSha256(t);
      try {
        run.store.addVerdict(v);
      } catch (e) {
        // Only a store that cannot be written stops the run. A verdict that cannot be serialized (a RangeError
        // from JSON.stringify, nothing written) is this item's error: judged again on resume, the run goes on.
        if (e instanceof StoreWriteError) {
          run.fatal ??= e;
          return;
        }
        try {
          run.store.addError({
            ...crashFields(run, t, judge.id, repeat),
            message: `judge ${judge.id} on ${t.id}: the verdict could not be stored: ${String((e as Error)?.message ?? e).slice(0, 500)}`,
          });
        } catch (e2) {
          run.fatal ??= e2;
          return;
        }
        run.progress.judge_crashes++; // not an input error: the item was read (red team L3)
        countCrash(run, judge.id, "not_stored");
        run.report();
        return;
      }
      run.progress.judged++;
      run.track(v);
      run.report();
    }).finally(() => {
      run.pendingChars -= chars;
      run.pending.delete(p);
      const w = run.wake;
      run.wake = undefined;
      w?.();
    });
    run.pending.add(p);
    run.pendingChars += chars;
  }
}

/**
 * Record a judge's crash on one (trajectory, repeat): its `judge_crash` error (the fault's message), counted for the
 * end-of-run warning (`./label-crashes.ts`); the item is judged again by the next run. Used for a throw of the judge
 * and for one while its request is built (the cost estimate, a batch request: red team 42).
 * @param unsent true when the crash came before the item was counted as sent to the judge (its request being built):
 *   counted now, so the share of crashed items (`./label-crashes.ts`) stays a share.
 * @throws StoreWriteError when `errors.jsonl` cannot be written.
 */
export function recordCrash(run: LabelRunState, t: Trajectory, judgeId: string, repeat: number, e: unknown, unsent = false): void {
  const message = String((e as Error)?.message ?? e);
  if (unsent) {
    const sent = (run.progress.sent_by_judge ??= {});
    sent[judgeId] = (sent[judgeId] ?? 0) + 1;
  }
  run.store.addError({ ...crashFields(run, t, judgeId, repeat), message: `judge ${judgeId} failed on ${t.id}: ${withoutRepeatedId(message, t.id)}` });
  run.progress.judge_crashes++; // not an input error: the item was read (red team L3)
  countCrash(run, judgeId, crashKind(message));
  run.report();
}

/**
 * The fields of a `judge_crash` error of (trajectory, judge, repeat) but its message: with the judge, the repeat and
 * how many verdicts the run had stored (`verdict_seq`), so that a verdict of it stored later supersedes it
 * (`./superseded-errors.ts`).
 */
function crashFields(run: LabelRunState, t: Trajectory, judgeId: string, repeat: number) {
  return {
    path: t.source.path,
    line: t.source.line,
    trajectory_id: t.id,
    kind: "judge_crash",
    judge_id: judgeId,
    repeat,
    verdict_seq: run.store.ledger.verdictsStored,
  };
}

/** Count a judge crash of this invocation per judge and kind (`LabelProgress.judge_crashes_by_judge`: the end-of-run warning). */
function countCrash(run: LabelRunState, judgeId: string, kind: string): void {
  const by = ((run.progress.judge_crashes_by_judge ??= {})[judgeId] ??= {});
  by[kind] = (by[kind] ?? 0) + 1;
}

/**
 * The kind of a judge's crash from its error's message: `timed_out` (the signature pool's time limit: "analysis took
 * longer than the N s time limit"), `worker_died` (a signature worker that died judging it alone), else `other`.
 */
export function crashKind(message: string): string {
  if (/analysis took longer than the .* time limit/.test(message)) return "timed_out";
  if (message.includes("the worker judging this trajectory alone died")) return "worker_died";
  return "other";
}

/**
 * A judge's error message without a leading "<what> on <trajectory id>: " (the signature pool's errors name the
 * trajectory; the runner's message names it already): said once.
 */
export function withoutRepeatedId(message: string, trajectoryId: string): string {
  const at = message.indexOf(` on ${trajectoryId}: `);
  if (at < 0 || at > 60 || message.slice(0, at).includes(":")) return message;
  return message.slice(at + ` on ${trajectoryId}: `.length);
}
