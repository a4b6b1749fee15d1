/**
 * The resume keys of a run's stored verdicts, compactly (`./compact.ts`, issue 26): {@link verdictKey} (with the
 * configuration hash) -> status, and {@link looseVerdictKey} (any configuration) -> status, configuration hash and
 * model of the latest verdict stored under it. A key is held as the exact pair (trajectory slot, interned rest of
 * the key), so two keys are never confused and no collision can skip work.
 */
import type { Verdict } from "../types.js";
import { IdSlots, IntColumn, Interner, PairTable } from "./compact.js";
import { isJudged, resumeStatus } from "./ledger.js";
import { looseVerdictKey, verdictKey } from "./records.js";

/** A resume key without its first part (the trajectory id, held as a slot): what follows the first NUL. */
export function restOf(key: string): string {
  return key.slice(key.indexOf("\u0000") + 1);
}

/** Stored verdicts of one judge under one configuration hash ("" = not recorded). */
export interface StoredConfig {
  judge_config_sha256: string;
  verdicts: number;
  models: string[];
}

/** The resume keys of stored verdicts (module docstring). */
export class ResumeKeys {
  private readonly done = new PairTable(PairTable.TIGHT);
  private readonly doneRest = new Interner();
  /** (slot, loose-key rest code) -> record number (records numbered in first-stored order) */
  private readonly loose = new PairTable(PairTable.TIGHT);
  private readonly looseRest = new Interner();
  /** per record: its loose-key rest code */
  private readonly looseKey = new IntColumn();
  /** per loose-key rest code: its judge id and prompt hash */
  private readonly looseJudge: string[] = [];
  private readonly loosePrompt: string[] = [];
  private looseRecords = 0;
  private readonly looseStatus = new IntColumn();
  private readonly looseSha = new IntColumn();
  private readonly looseModel = new IntColumn();
  /** statuses, configuration hashes and models, interned */
  private readonly codes = new Interner();

  /** @param ids the trajectory slots (shared with the store). */
  constructor(private readonly ids: IdSlots) {}

  /** Distinct {@link verdictKey}s stored. */
  get size(): number {
    return this.done.size;
  }

  /** Record a stored verdict (storage order: a later one under the same key supersedes). */
  add(v: Verdict): void {
    const st = this.codes.code(resumeStatus(v));
    const slot = this.ids.slot(v.trajectory_id);
    this.done.set(slot, this.doneRest.code(restOf(verdictKey(v))), st);
    const lc = this.looseRest.code(restOf(looseVerdictKey(v)));
    if (lc === this.looseJudge.length) {
      this.looseJudge.push(v.judge_id);
      this.loosePrompt.push(v.prompt_sha256);
    }
    let r = this.loose.get(slot, lc);
    if (r === -1) {
      this.loose.set(slot, lc, (r = this.looseRecords++));
      this.looseKey.set(r, lc);
    }
    this.looseStatus.set(r, st);
    this.looseSha.set(r, this.codes.code(typeof v.judge_config_sha256 === "string" ? v.judge_config_sha256 : ""));
    this.looseModel.set(r, this.codes.code(typeof v.judge_model === "string" ? v.judge_model : ""));
  }

  /**
   * True when a verdict with this key is stored. With `retryErrors`, a stored `judge_error` does not count.
   * With `loose`, `key` is a {@link looseVerdictKey} and a verdict of any configuration counts.
   */
  has(key: string, retryErrors = false, loose = false): boolean {
    const cut = key.indexOf("\u0000");
    if (cut < 0) return false;
    const slot = this.ids.find(key.slice(0, cut));
    const rest = (loose ? this.looseRest : this.doneRest).find(key.slice(cut + 1));
    if (slot === -1 || rest === -1) return false;
    let st: number;
    if (loose) {
      const r = this.loose.get(slot, rest);
      st = r === -1 ? -1 : this.looseStatus.get(r);
    } else st = this.done.get(slot, rest);
    return isJudged(st === -1 ? undefined : this.codes.value(st), retryErrors);
  }

  /**
   * The configurations a judge's current verdicts (the latest per trajectory and repeat) were made with, one
   * entry per hash ("" = not recorded); with `promptSha256`, only verdicts made with that prompt. Ordered by the first
   * (trajectory, repeat) stored whose latest verdict has the hash.
   */
  storedConfigs(judgeId: string, promptSha256?: string): StoredConfig[] {
    const by = new Map<string, { verdicts: number; models: Set<string> }>();
    // records in first-stored order (issue 26: the loose table was a load-1/2 hash table read in its own slot order,
    // 25 MB at a million verdicts): a configuration comes where the first key whose latest verdict has it was stored
    for (let r = 0; r < this.looseRecords; r++) {
      const lc = this.looseKey.get(r);
      if (this.looseJudge[lc] !== judgeId || (promptSha256 !== undefined && this.loosePrompt[lc] !== promptSha256)) continue;
      const sha = this.codes.value(this.looseSha.get(r));
      let c = by.get(sha);
      if (!c) by.set(sha, (c = { verdicts: 0, models: new Set() }));
      c.verdicts++;
      const model = this.codes.value(this.looseModel.get(r));
      if (model) c.models.add(model);
    }
    return [...by.entries()].map(([h, c]) => ({ judge_config_sha256: h, verdicts: c.verdicts, models: [...c.models].sort() }));
  }
}
