/**
 * One `label` invocation's record in the run's snapshot (`store.json`): `label_state` set to `running` when the store
 * is opened ({@link startPass}), its outcome when the invocation ends ({@link finishPass}), `failed` when the store is
 * closed without one ({@link closePass}), and the snapshot's fields put back as they were when the invocation is
 * abandoned before it did anything ({@link abandonPass}). The store (`./run-store.ts`) holds the snapshot; this file
 * decides what the invocation writes into it.
 */
import os from "node:os";
import { carriedPasses, recordPasses } from "./partial-passes.js";
import type { LabelState, RunSnapshot } from "./run-snapshot.js";

/** The snapshot fields an invocation changes at open, as they were before it ({@link abandonPass}). */
export type SnapshotBefore = Pick<RunSnapshot, "inputs" | "stopped_judges" | "label_state" | "judges" | "last_invocation">;

/** How an invocation ended, as `label` tells the store (`RunStore.finish`). */
export interface PassOutcome {
  interrupted: boolean;
  stoppedJudges?: string[];
  limit?: number;
  costCap?: { cap_usd: number; spent_usd: number };
  /** what is recorded now of trajectories whose input is gone (`./removed-ids.ts`); null: none; absent: as it was */
  inputsRemoved?: { count: number; examples: string[] } | null;
  /** --where's text, the read trajectories it left out (./partial-passes.ts) */
  where?: { text: string; left_out: number };
  /** this invocation's inputs, as given (resolved from the current directory): what its pass read (./partial-passes.ts) */
  inputs: readonly string[];
  /** whether its removal check told every stored trajectory it did not meet (`RemovedInputs.settled`; ./partial-passes.ts) */
  settled?: boolean;
}

/**
 * Start an invocation at open: the snapshot's fields as they were (returned, for {@link abandonPass}), the inputs
 * added, the counts and stopped judges reset, and `label_state` set to `running` with what carries over.
 * @param d the snapshot (changed in place); @param inputs this invocation's inputs, as given;
 * @param counts the run's counts from its journals; @param now ISO time.
 */
export function startPass(d: RunSnapshot, inputs: string[], counts: RunSnapshot["counts"], now: string): SnapshotBefore {
  const before: SnapshotBefore = { inputs: d.inputs, stopped_judges: d.stopped_judges, label_state: d.label_state, judges: d.judges, last_invocation: d.last_invocation };
  if (inputs.length) d.inputs = [...new Set([...d.inputs, ...inputs])];
  d.counts = counts;
  d.stopped_judges = {};
  // what an earlier complete read found of removed input files stands until a later complete read says again (a
  // --limit, interrupted or killed resume cannot tell: red team 14, the warning had vanished)
  const removed = d.label_state?.inputs_removed;
  const record = carriedPasses(d.label_state, counts.trajectories, before); // inputs read only in part (./partial-passes.ts)
  const killed = killedBefore(d.label_state);
  d.label_state = { state: "running", started_at: now, pid: process.pid, host: os.hostname(), ...(removed ? { inputs_removed: removed } : {}), ...record, ...(killed ? { killed_before: killed } : {}) };
  return before;
}

/**
 * Record how the invocation ended in the snapshot's `label_state` (nothing without one): its state, stopped judges,
 * cost cap, limit, removed inputs, and the inputs read only in part (`./partial-passes.ts`, over `d.inputs`).
 */
export function finishPass(d: RunSnapshot, outcome: PassOutcome): void {
  const st = d.label_state;
  if (!st) return;
  const stopped = outcome.stoppedJudges ?? [];
  st.state = outcome.interrupted ? "interrupted" : stopped.length ? "stopped_judges" : outcome.costCap ? "cost_cap" : "complete";
  if (stopped.length) st.stopped_judges = stopped;
  if (outcome.costCap) st.cost_cap = { cap_usd: outcome.costCap.cap_usd, spent_usd: outcome.costCap.spent_usd };
  if (outcome.limit !== undefined) st.limit = outcome.limit;
  if (outcome.inputsRemoved) st.inputs_removed = { count: outcome.inputsRemoved.count, examples: outcome.inputsRemoved.examples.slice(0, 3) };
  else if (outcome.inputsRemoved === null) delete st.inputs_removed;
  recordPasses(st, outcome.limit, outcome.where, outcome.inputs, d.inputs, outcome.settled);
}

/** At close: this process's unfinished invocation (no outcome recorded, or journal lines lost) is `failed`, and ends now. */
export function closePass(st: LabelState | undefined, lost: boolean): void {
  if (!st || st.pid !== process.pid || st.finished_at) return;
  if (st.state === "running" || lost) st.state = "failed";
  st.finished_at = new Date().toISOString();
}

/** Put the snapshot's fields back as {@link startPass} found them (an invocation refused or stopped before any work). */
export function abandonPass(d: RunSnapshot, before: SnapshotBefore): void {
  d.judges = before.judges;
  if (before.last_invocation === undefined) delete d.last_invocation;
  else d.last_invocation = before.last_invocation;
  d.inputs = before.inputs;
  d.stopped_judges = before.stopped_judges;
  if (before.label_state === undefined) delete d.label_state;
  else d.label_state = before.label_state;
}

/**
 * The killed invocations a new pass carries ({@link LabelState.killed_before}): the last one's, plus one when the last
 * invocation was left `running` (its process killed: the store's lock was taken over); undefined when none.
 */
export function killedBefore(last: LabelState | undefined): LabelState["killed_before"] {
  if (!last) return undefined;
  if (last.state === "running") return { count: (last.killed_before?.count ?? 0) + 1, last_started_at: last.started_at };
  return last.killed_before;
}
