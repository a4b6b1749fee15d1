/**
 * What a run's stored verdicts say about the work still to do: the latest verdict per (trajectory, judge, repeat)
 * with what it was made on (prompt, rubric version, judge configuration, trajectory content) and how it ended, and
 * the content hash the run's index recorded for each trajectory when the run was opened. `RunStore` keeps one as it
 * loads and appends; `label --dry-run` builds one from the journals. `planRepeats` (`../run/resume.ts`) decides from
 * it, for `label` and `--dry-run` alike, which stored verdicts are judged again and why.
 */
import type { Verdict } from "../types.js";
import { FloatColumn, HashColumn, HashPool, IdSlots, IntColumn, Interner, PairTable } from "./compact.js";
import { verifiedUnderOlderRules } from "../rubric/verify-rules.js";

/**
 * What a stored verdict is for resuming. A conversation the run's stop cut short after some of its replies came
 * back (judge_error kind "aborted", replies kept) is stored as the record of what was paid, but it is not done:
 * the same command judges the item again (`interrupted`); so is one its judge's fatal stop cut short (judge_error kind
 * "judge_stopped", its paid turns kept). Every other verdict is done; a judge_error only without
 * `--retry-errors`, a judge_refused only without `--retry-refusals`.
 */
export function resumeStatus(v: Pick<Verdict, "status" | "error">): Verdict["status"] | "interrupted" | typeof FEEDBACK_REFUSED {
  // a conversation cut by Ctrl-C (`aborted`) or by its judge's fatal stop (`judge_stopped`: paid turns kept) is judged again
  if (v.status === "judge_error" && (v.error?.kind === "aborted" || v.error?.kind === "judge_stopped")) return "interrupted";
  // a decided verdict whose feedback turn the judge refused: done, but --retry-refusals takes it (runs55 #4)
  return v.status === "ok" && v.error?.kind === RETRY_REFUSED ? FEEDBACK_REFUSED : v.status;
}

/** The error kind of an `ok` verdict whose feedback turn the judge refused: its label is the decision before that turn (../judges/conversation.ts `fallBack`). */
export const RETRY_REFUSED = "retry_refused";

/**
 * The {@link resumeStatus} of an `ok` verdict whose feedback turn the judge refused ({@link RETRY_REFUSED}): done, as
 * `ok`, except under `--retry-refusals`, which judges it again (runs55 #4: a user asking to retry refusals got these
 * kept, each with a label the refused turn was to check, often downgraded).
 */
export const FEEDBACK_REFUSED = "feedback_refused";

/**
 * Whether a key's {@link resumeStatus} counts as judged (so a resume skips it): not a `judge_error` under
 * `--retry-errors`, not a `judge_refused` nor a {@link FEEDBACK_REFUSED} under `--retry-refusals`.
 */
export function isJudged(st: string | undefined, retryErrors: boolean, retryRefusals = false): boolean {
  return st !== undefined && st !== "interrupted" && !(retryErrors && st === "judge_error") && !(retryRefusals && (st === "judge_refused" || st === FEEDBACK_REFUSED));
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

/**
 * The latest verdict per (trajectory, judge, repeat) and the content hashes the run's index recorded, held compactly
 * (`./compact.ts`: a slot per trajectory id, interned strings, typed-array columns, content hashes as codes into a
 * pool shared with the store: some 30-60 bytes a verdict instead of a string key and an object). Exact: lookups
 * compare whole ids and interned values, never fingerprints.
 */
export class VerdictLedger {
  /** (trajectory slot, judge + repeat code) -> record number */
  private readonly latest = new PairTable(PairTable.TIGHT);
  private readonly keyCodes = new Interner();
  /** prompt, rubric, configuration hashes and statuses, interned */
  private readonly strings = new Interner();
  private readonly prompt = new IntColumn();
  private readonly rubric = new IntColumn();
  private readonly config = new IntColumn();
  private readonly status = new IntColumn();
  private readonly cost = new FloatColumn();
  private readonly attempts = new IntColumn(0);
  /** record -> 1 when the verdict held was verified under older rules (`verifiedUnderOlderRules`) */
  private readonly olderRules = new IntColumn(0);
  /** latest verdicts verified under older rules (records whose {@link olderRules} is 1) */
  private olderCount = 0;
  private readonly content: HashColumn;
  private records = 0;
  /** record -> the storage ordinal of the verdict held ({@link stored} when it was added) */
  private readonly seq = new IntColumn();
  /** verdicts added so far, in storage order (every line of `verdicts.jsonl` read or appended) */
  private stored = 0;
  /** trajectory slot -> the one content hash its index rows recorded; {@link several} when they recorded more than one. */
  private readonly recorded: HashColumn;
  private readonly several = new IntColumn(0);
  private readonly judges = new Set<string>();
  /** judge -> prompt hash -> how many latest verdicts (per trajectory and repeat) were made with it, and their rubric. */
  private readonly prompts = new Map<string, Map<string, { verdicts: number; rubric: string }>>();

  /**
   * @param ids the trajectory slots (shared with the run store, so an id is held once).
   * @param hashes where content hashes are held (shared with the run store's column: a value held once).
   */
  constructor(
    readonly ids: IdSlots = new IdSlots(),
    hashes: HashPool = new HashPool(),
  ) {
    this.content = new HashColumn(hashes);
    this.recorded = new HashColumn(hashes);
  }

  /** Record a stored verdict (in storage order: a later one for the same key supersedes). */
  addVerdict(v: Verdict): void {
    this.judges.add(v.judge_id);
    const slot = this.ids.slot(v.trajectory_id);
    const key = this.keyCodes.code(`${v.judge_id}\u0000${v.repeat}`);
    let r = this.latest.get(slot, key);
    if (r === -1) this.latest.set(slot, key, (r = this.records++));
    else this.countPrompt(v.judge_id, this.strings.value(this.prompt.get(r)), "", -1);
    this.countPrompt(v.judge_id, v.prompt_sha256, typeof v.rubric_version === "string" ? v.rubric_version : "", 1);
    this.prompt.set(r, this.strings.code(v.prompt_sha256));
    this.rubric.set(r, this.strings.code(typeof v.rubric_version === "string" ? v.rubric_version : ""));
    this.config.set(r, this.strings.code(typeof v.judge_config_sha256 === "string" ? v.judge_config_sha256 : ""));
    this.status.set(r, this.strings.code(resumeStatus(v)));
    this.cost.set(r, typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) ? v.cost_usd : NaN);
    this.attempts.set(r, typeof v.attempts === "number" ? v.attempts : 0);
    this.seq.set(r, this.stored++);
    // a field comparison per line (issue 26: nothing more at a million verdicts); counted over the latest per key
    const older = verifiedUnderOlderRules(v) ? 1 : 0;
    const was = this.olderCount === 0 ? 0 : this.olderRules.get(r);
    // the column is written only where a verdict is (or was) older: an up-to-date run keeps it empty
    if (older !== was) {
      this.olderCount += older - was;
      this.olderRules.set(r, older);
    }
    if (typeof v.content_sha256 === "string" && v.content_sha256 !== "") this.content.set(r, v.content_sha256);
    else this.content.clear(r);
  }

  /**
   * Record an index row's content hash as the run had it when it was opened. Only rows read from the journal
   * count: a row this invocation appends describes content no verdict stored without a hash can have judged.
   */
  addRecordedContent(id: string, contentSha256: string): void {
    const slot = this.ids.slot(id);
    if (!this.recorded.has(slot)) this.recorded.set(slot, contentSha256);
    else if (!this.recorded.equals(slot, contentSha256)) this.several.set(slot, 1);
  }

  /** Whether the run's index rows recorded more than one content hash for the trajectory when the run was opened. */
  recordedSeveral(trajectoryId: string): boolean {
    const slot = this.ids.find(trajectoryId);
    return slot !== -1 && this.several.get(slot) === 1;
  }

  /** The latest stored verdict of a (trajectory, judge, repeat), or undefined. */
  /**
   * Whether the latest stored verdict of (trajectory, judge, repeat) records a content hash other than `sha` (made on
   * an older text: ./stale-verdicts.ts); false without such a verdict, or for one that records none.
   */
  judgedOther(trajectoryId: string, judgeId: string, repeat: number, sha: string): boolean {
    const slot = this.ids.find(trajectoryId);
    const key = this.keyCodes.find(`${judgeId}\u0000${repeat}`);
    if (slot === -1 || key === -1) return false;
    const r = this.latest.get(slot, key);
    return r !== -1 && this.content.has(r) && !this.content.equals(r, sha);
  }

  latestOf(trajectoryId: string, judgeId: string, repeat: number): StoredVerdictInfo | undefined {
    const slot = this.ids.find(trajectoryId);
    const key = this.keyCodes.find(`${judgeId}\u0000${repeat}`);
    if (slot === -1 || key === -1) return undefined;
    const r = this.latest.get(slot, key);
    if (r === -1) return undefined;
    const cost = this.cost.get(r);
    return {
      prompt_sha256: this.strings.value(this.prompt.get(r)),
      rubric_version: this.strings.value(this.rubric.get(r)),
      judge_config_sha256: this.strings.value(this.config.get(r)),
      content_sha256: this.content.get(r),
      status: this.strings.value(this.status.get(r)) as StoredVerdictInfo["status"],
      cost_usd: Number.isNaN(cost) ? null : cost,
      attempts: this.attempts.get(r),
    };
  }

  /**
   * The content a stored verdict judged: its own `content_sha256`; for a verdict stored without one (older
   * versions), the one content hash the run's index recorded for the trajectory (the index row is written before
   * any verdict of it, so that is what was judged); null when the index recorded several (unknown which).
   */
  contentOf(info: Pick<StoredVerdictInfo, "content_sha256">, trajectoryId: string): string | null {
    if (info.content_sha256) return info.content_sha256;
    const slot = this.ids.find(trajectoryId);
    if (slot === -1 || !this.recorded.has(slot) || this.several.get(slot) === 1) return null;
    return this.recorded.get(slot);
  }

  /**
   * Whether every latest stored verdict of a trajectory (each judge and repeat that has one) judged `contentSha256`
   * ({@link contentOf}); false when the trajectory has no verdict or one judged other or unknown content. What makes
   * a `content_changed` note superseded: the trajectory was judged again on its content now.
   */
  allOnContent(trajectoryId: string, contentSha256: string): boolean {
    const slot = this.ids.find(trajectoryId);
    if (slot === -1) return false;
    let any = false;
    for (let k = 0; k < this.keyCodes.size; k++) {
      if (this.latest.get(slot, k) === -1) continue;
      const [judgeId, repeat] = this.keyCodes.value(k).split("\u0000");
      const info = this.latestOf(trajectoryId, judgeId, Number(repeat))!;
      if (this.contentOf(info, trajectoryId) !== contentSha256) return false;
      any = true;
    }
    return any;
  }

  /**
   * How many verdicts the run has stored so far (its `verdicts.jsonl` lines read and appended, in storage order):
   * recorded in a `judge_crash` error as `verdict_seq`, so that a verdict stored later is known to be later
   * ({@link judgedSince}) without a clock.
   */
  get verdictsStored(): number {
    return this.stored;
  }

  /**
   * Whether the latest stored verdict of (trajectory, judge, repeat) was stored at or after storage ordinal `seq`
   * ({@link verdictsStored} when a judge crash was recorded) and is a judgment (not a conversation cut short,
   * `resumeStatus` "interrupted"): what supersedes that `judge_crash` error.
   */
  judgedSince(trajectoryId: string, judgeId: string, repeat: number, seq: number): boolean {
    const slot = this.ids.find(trajectoryId);
    const key = this.keyCodes.find(`${judgeId}\u0000${repeat}`);
    if (slot === -1 || key === -1) return false;
    const r = this.latest.get(slot, key);
    return r !== -1 && this.seq.get(r) >= seq && this.strings.value(this.status.get(r)) !== "interrupted";
  }

  /**
   * The storage ordinal ({@link verdictsStored} when it was added) of the latest stored verdict of (trajectory, judge,
   * repeat), or -1 when none is stored. The Batch API path checks its "stored" marks with it (`src/run/batch-marks.ts`):
   * a mark names the ordinal its verdict was to get, so a verdict lost by a kill before it reached the journal is told
   * from one stored, without a clock.
   */
  seqOf(trajectoryId: string, judgeId: string, repeat: number): number {
    const slot = this.ids.find(trajectoryId);
    const key = this.keyCodes.find(`${judgeId}\u0000${repeat}`);
    if (slot === -1 || key === -1) return -1;
    const r = this.latest.get(slot, key);
    return r === -1 ? -1 : this.seq.get(r);
  }

  private countPrompt(judgeId: string, prompt: string, rubric: string, d: number): void {
    let m = this.prompts.get(judgeId);
    if (!m) this.prompts.set(judgeId, (m = new Map()));
    const c = m.get(prompt) ?? { verdicts: 0, rubric };
    c.verdicts += d;
    if (rubric) c.rubric = rubric;
    if (c.verdicts > 0) m.set(prompt, c);
    else m.delete(prompt);
  }

  /**
   * The judge's current verdicts (the latest per trajectory and repeat) made with another prompt than `promptSha256`:
   * how many, and the rubric versions and prompt hashes they name (empty lists and 0 when none).
   */
  otherPrompts(judgeId: string, promptSha256: string): { verdicts: number; prompts: string[]; rubrics: string[] } {
    const out = { verdicts: 0, prompts: [] as string[], rubrics: [] as string[] };
    for (const [p, c] of this.prompts.get(judgeId) ?? []) {
      if (p === promptSha256) continue;
      out.verdicts += c.verdicts;
      out.prompts.push(p);
      if (c.rubric && !out.rubrics.includes(c.rubric)) out.rubrics.push(c.rubric);
    }
    return out;
  }

  /** How many latest verdicts (per trajectory, judge and repeat) were verified under older rules (`../rubric/verify-rules.ts`). */
  get verifiedUnderOlderRules(): number {
    return this.olderCount;
  }

  /** Whether the latest stored verdict of (trajectory, judge, repeat) was verified under older rules; false without one. */
  olderRulesOf(trajectoryId: string, judgeId: string, repeat: number): boolean {
    if (this.olderCount === 0) return false;
    const slot = this.ids.find(trajectoryId);
    const key = this.keyCodes.find(`${judgeId}\u0000${repeat}`);
    if (slot === -1 || key === -1) return false;
    const r = this.latest.get(slot, key);
    return r !== -1 && this.olderRules.get(r) === 1;
  }

  /** Whether the run holds any verdict of this judge. */
  hasJudge(judgeId: string): boolean {
    return this.judges.has(judgeId);
  }
}
