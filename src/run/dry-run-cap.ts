/**
 * `label --dry-run --max-cost` (before: refused, "no effect with --dry-run"): what the cap would let through, without
 * sending anything. The dry run goes through the conversations label would start, in the order label reserves them
 * (each trajectory read, each judge, each repeat), and reserves each as label does (`reserveCostUsd`: the worst case of
 * its whole conversation, at the batch price for a Batch API judge under `--batch`) beside what the run has paid (every
 * stored verdict, as `RunStore.paidUsd`) and the worst case of the Batch API chunks an earlier invocation left in
 * flight (`./batch-worst-case.ts`); the first conversation that would pass the cap closes it, as in label, and every
 * later one is held back.
 *
 * `let_through` is a floor: it assumes every conversation costs its worst case and none comes back before the next is
 * reserved; label releases a conversation's reservation for its real cost as its verdict is stored, so online (and
 * on a rerun with the same cap) it judges at least as many. Built-in judges (no price, no requests) are not counted.
 */
import type { Judge } from "../judges/judge.js";
import type { Trajectory } from "../types.js";
import type { LabelOptions } from "./label-options.js";
import { isBatchJudge } from "./batch-judges.js";
import { overCap, reserveCostUsd, type BatchInFlightReserved } from "./cost-cap.js";
import { inFlightReservedText, inFlightWorstCase, sumInFlight, type InFlightWorstCase } from "./batch-worst-case.js";
import type { BatchEntry } from "./batch-types.js";
import { requirePricesForCap } from "./label-steps.js";

/** What a dry run says of `--max-cost` (`DryRunResult.cost_cap`). */
export interface DryRunCostCap {
  cap_usd: number;
  /** What the run has paid (USD): every stored verdict, superseded ones included (label's `spent_before_usd`). */
  spent_usd: number;
  /** Stored verdicts with requests whose cost is unknown: not in `spent_usd` (the cap cannot bound them). */
  unknown_cost_before: number;
  /** Under `--batch`: what is reserved for chunks an earlier invocation left in flight (label's `cost_cap.batch_in_flight`). */
  batch_in_flight?: BatchInFlightReserved;
  /** Conversations (trajectory x judge x repeat) label would start: the judges' `requests`. */
  conversations: number;
  /** Of them, those the cap lets through when each costs its worst case (module docstring: a floor). */
  let_through: number;
  /** Of them, those held back (un-judged; a higher cap, or the same one on a rerun, judges more). */
  held_back: number;
  /** Trajectories with conversations to start, and of them those whose every conversation is let through. */
  trajectories: number;
  trajectories_let_through: number;
  /** The worst case reserved for the conversations let through (USD). */
  reserved_usd: number;
}

/** The dry run's cost-cap tally (module docstring). */
export class DryRunCap {
  private readonly r: DryRunCostCap;
  private closed = false;
  private reservedInFlight = 0;
  private current: { id: string; through: boolean } | undefined;
  private readonly ctx: { budgetChars?: number; minQuoteChars?: number };
  private readonly viaBatch: (j: Judge) => boolean;

  private constructor(opts: LabelOptions, paid: { usd: number; unknown: number }) {
    this.r = { cap_usd: opts.maxCostUsd!, spent_usd: paid.usd, unknown_cost_before: paid.unknown, conversations: 0, let_through: 0, held_back: 0, trajectories: 0, trajectories_let_through: 0, reserved_usd: 0 };
    this.ctx = { budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars };
    this.viaBatch = (j) => opts.batch !== undefined && isBatchJudge(j);
  }

  /**
   * The tally of a dry run given `maxCostUsd`, with the worst case of the chunks in flight reserved; undefined without
   * a cap. @throws UsageError for an LLM judge without a price (as label).
   * @param runDir the run folder; @param batches its chunks; @param paid what it has paid (`readDone`).
   */
  static async open(opts: LabelOptions, runDir: string, batches: readonly BatchEntry[], paid: { usd: number; unknown: number }): Promise<DryRunCap | undefined> {
    if (opts.maxCostUsd === undefined) return undefined;
    requirePricesForCap(opts);
    const cap = new DryRunCap(opts, paid);
    if (opts.batch !== undefined) {
      const per: InFlightWorstCase[] = [];
      for (const j of opts.judges.filter(isBatchJudge)) {
        const w = await inFlightWorstCase(runDir, batches, j, cap.ctx);
        if (w) per.push(w);
      }
      const s = sumInFlight(per);
      if (s) {
        cap.r.batch_in_flight = s;
        cap.reservedInFlight = s.reserved_usd;
      }
    }
    return cap;
  }

  /** Reserve `n` conversations (repeats) of trajectory `t` for LLM judge `judge`, in label's order. */
  add(t: Trajectory, judge: Judge, n: number): void {
    if (n === 0) return;
    if (this.current?.id !== t.id) {
      this.endTrajectory();
      this.current = { id: t.id, through: true };
      this.r.trajectories++;
    }
    this.r.conversations += n;
    const usd = this.closed ? 0 : reserveCostUsd(t, judge, this.ctx, this.viaBatch(judge));
    for (let i = 0; i < n; i++) {
      if (!this.closed && overCap(this.r.spent_usd + this.reservedInFlight + this.r.reserved_usd + usd, this.r)) this.closed = true;
      if (this.closed) {
        this.r.held_back++;
        this.current.through = false;
        continue;
      }
      this.r.reserved_usd += usd;
      this.r.let_through++;
    }
  }

  /** The statement, once every trajectory was added. */
  result(): DryRunCostCap {
    this.endTrajectory();
    return this.r;
  }

  private endTrajectory(): void {
    if (this.current?.through) this.r.trajectories_let_through++;
    this.current = undefined;
  }
}

/** The dry run's cost-cap lines (text). */
export function dryRunCapText(c: DryRunCostCap): string[] {
  const lines = [
    `cost cap (--max-cost $${c.cap_usd}): the run has paid $${c.spent_usd.toFixed(4)}` +
      (c.unknown_cost_before ? ` (and ${c.unknown_cost_before} stored verdict(s) of unknown cost the cap cannot bound)` : "") +
      (c.batch_in_flight ? `; ${inFlightReservedText(c.batch_in_flight)}` : ""),
    `  at their worst case (every feedback turn, no cache), the cap lets through ${c.let_through} of the ${c.conversations} conversation(s) label would start ` +
      `($${c.reserved_usd.toFixed(4)} reserved; ${c.trajectories_let_through} of ${c.trajectories} trajectories whole)` +
      (c.held_back ? `; ${c.held_back} would be held back (a floor: label releases each reservation for its real cost as its verdict is stored, so it judges at least this many)` : ""),
  ];
  return lines;
}
