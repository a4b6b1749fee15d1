import type { Trajectory, Verdict } from "../types.js";

/** Context handed to a judge for one trajectory. */
export interface JudgeContext {
  repeat: number;
  /** Stops the judge: no new request starts (waits for a slot, pacing and backoff end), the verdict is `aborted`. */
  signal?: AbortSignal;
  /**
   * Aborts the requests already sent, too (default: `signal` does). The CLI's first Ctrl-C stops new requests but
   * lets the ones in flight finish (they are paid for), so their verdicts are stored; only a second Ctrl-C quits.
   */
  abortSignal?: AbortSignal;
  /** Character budget of the serialized trajectory (over it, the middle of long parts is elided). */
  budgetChars?: number;
  /** Minimum normalized quote length (DESIGN section 2); default 12. */
  minQuoteChars?: number;
  /** Where a judge says a warning about itself during the run (an endpoint that stopped answering); `label` prints it at once. */
  onWarning?: (message: string) => void;
}

/**
 * A judge: turns one trajectory into one verdict (DESIGN section 3). It never throws for a bad reply or a
 * transport fault; those become `status: "judge_error" | "judge_refused"` verdicts. It throws only for
 * faults that must stop this judge (bad credentials, exhausted quota): a `JudgeFatalError`.
 */
export interface Judge {
  id: string;
  model: string;
  family: string;
  /** sha256 of the prompt files (or of the signature judge's rule set); part of the resume key. */
  promptSha256: string;
  rubricVersion: string;
  /** How many trajectories this judge may work on at once. */
  concurrency: number;
  /**
   * True for a judge whose work runs on this machine (the signature judge): its `concurrency` is mostly a queue to
   * its workers, so `label` bounds what it holds for it by characters too (`../run/online.ts` `MAX_PENDING_CHARS`);
   * a remote judge (an LLM) always gets its `concurrency` in flight.
   */
  local?: boolean;
  /**
   * Everything about this judge that can change its verdicts, as plain JSON (`./verdict-config.ts`): hashed into
   * the resume key (`judge_config_sha256`) with the run's settings. Undefined counts as `{}`.
   */
  verdictConfig?: Record<string, unknown>;
  judge(t: Trajectory, ctx: JudgeContext): Promise<Verdict>;
  /**
   * Free what the judge holds between trajectories (the signature judge: its worker threads, each an isolate with
   * its own heap), once no trajectory is in flight. A later `judge` call starts again. Optional; resolves when done.
   */
  release?(): Promise<void>;
}
