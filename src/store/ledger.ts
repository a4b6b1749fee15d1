/**
 * What a run's stored verdicts say about the work still to do: the latest verdict per (trajectory, judge, repeat)
 * with what it was made on (prompt, rubric version, judge configuration, trajectory content) and how it ended, and
 * the content hash the run's index recorded for each trajectory when the run was opened. `RunStore` keeps one as it
 * loads and appends; `label --dry-run` builds one from the journals. `planRepeats` (`../run/resume.ts`) decides from
 * it, for `label` and `--dry-run` alike, which stored verdicts are judged again and why.
 */
import type { Verdict } from "../types.js";

/**
 * What a stored verdict is for resuming. A conversation the run's stop cut short after some of its replies came
 * back (judge_error kind "aborted", replies kept) is stored as the record of what was paid, but it is not done:
 * the same command judges the item again (`interrupted`); so is one its judge's fatal stop cut short (judge_error kind
 * "judge_stopped", its paid turns kept). Every other verdict is done; a judge_error only without
 * `--retry-errors`.
 */
export function resumeStatus(v: Pick<Verdict, "status" | "error">): Verdict["status"] | "interrupted" {
  // a conversation cut by Ctrl-C (`aborted`) or by its judge's fatal stop (`judge_stopped`: paid turns kept) is judged again
  return v.status === "judge_error" && (v.error?.kind === "aborted" || v.error?.kind === "judge_stopped") ? "interrupted" : v.status;
}

/** Whether a key's {@link resumeStatus} counts as judged (so a resume skips it). */
export function isJudged(st: string | undefined, retryErrors: boolean): boolean {
  return st !== undefined && st !== "interrupted" && !(retryErrors && st === "judge_error");
}

/** The latest stored verdict of one (trajectory, judge, repeat), as far as resuming needs it. */
export interface StoredVerdictInfo {
  prompt_sha256: string;
  rubric_version: string;
  /** "" when the verdict was stored before `judge_config_sha256` existed. */
  judge_config_sha256: string;
  /** sha256 of the content the verdict judged (`contentSha256`); "" when stored before verdicts recorded it. */
  content_sha256: string;
  status: ReturnType<typeof resumeStatus>;
  /** USD the verdict cost; null when unknown (no usage or no price) or when it sent nothing (`attempts` 0). */
  cost_usd: number | null;
  attempts: number;
}

/** The latest verdict per (trajectory, judge, repeat) and the content hashes the run's index recorded. */
export class VerdictLedger {
  private latest = new Map<string, StoredVerdictInfo>();
  /** trajectory id -> the one content hash its index rows recorded, or null when they recorded several. */
  private recorded = new Map<string, string | null>();
  private judges = new Set<string>();
  /** One copy of each repeated string (prompt, rubric, configuration hashes), up to a bound. */
  private shared = new Map<string, string>();

  private one(s: string): string {
    const got = this.shared.get(s);
    if (got !== undefined) return got;
    if (this.shared.size < 10_000) this.shared.set(s, s);
    return s;
  }

  /** Record a stored verdict (in storage order: a later one for the same key supersedes). */
  addVerdict(v: Verdict): void {
    this.judges.add(v.judge_id);
    this.latest.set(`${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`, {
      prompt_sha256: this.one(v.prompt_sha256),
      rubric_version: this.one(typeof v.rubric_version === "string" ? v.rubric_version : ""),
      judge_config_sha256: this.one(typeof v.judge_config_sha256 === "string" ? v.judge_config_sha256 : ""),
      content_sha256: typeof v.content_sha256 === "string" ? v.content_sha256 : "",
      status: resumeStatus(v),
      cost_usd: typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) ? v.cost_usd : null,
      attempts: typeof v.attempts === "number" ? v.attempts : 0,
    });
  }

  /**
   * Record an index row's content hash as the run had it when it was opened. Only rows read from the journal
   * count: a row this invocation appends describes content no verdict stored without a hash can have judged.
   */
  addRecordedContent(id: string, contentSha256: string): void {
    const prev = this.recorded.get(id);
    if (prev === undefined) this.recorded.set(id, contentSha256);
    else if (prev !== null && prev !== contentSha256) this.recorded.set(id, null);
  }

  /** The latest stored verdict of a (trajectory, judge, repeat), or undefined. */
  latestOf(trajectoryId: string, judgeId: string, repeat: number): StoredVerdictInfo | undefined {
    return this.latest.get(`${trajectoryId}\u0000${judgeId}\u0000${repeat}`);
  }

  /**
   * The content a stored verdict judged: its own `content_sha256`; for a verdict stored without one (older
   * versions), the one content hash the run's index recorded for the trajectory (the index row is written before
   * any verdict of it, so that is what was judged); null when the index recorded several (unknown which).
   */
  contentOf(info: StoredVerdictInfo, trajectoryId: string): string | null {
    if (info.content_sha256) return info.content_sha256;
    return this.recorded.get(trajectoryId) ?? null;
  }

  /** Whether the run holds any verdict of this judge. */
  hasJudge(judgeId: string): boolean {
    return this.judges.has(judgeId);
  }
}
