/**
 * What `label --dry-run` (`./dry-run.ts`) reads of an existing run folder, read only (no lock, nothing written): the
 * Batch API chunks and configuration key versions in `store.json`, and from `verdicts.jsonl` and `trajectories.jsonl`
 * what label would skip or judge again, the judges' observed turns, and what the run has paid (for `--max-cost`).
 */
import fs from "node:fs";
import path from "node:path";
import { readJsonl } from "../io/jsonl.js";
import { journalSkips } from "../store/skipped-lines.js";
import { isIndexRecord, verdictRecordCheck, NOT_INDEX_ROW, NOT_VERDICT } from "../store/records.js";
import { referenceKey, sourceKey, type TrajectoryIndexRow } from "../store/run-store.js";
import { metadataKey } from "../store/meta-key.js";
import { VerdictLedger } from "../store/ledger.js";
import { storedUsageImplausible } from "../store/stored-usage.js";
import type { Verdict } from "../types.js";
import { batchEntries } from "./config-change.js";
import type { BatchEntry } from "./batch-types.js";

/** The Batch API chunks in a run's store.json (none when it is absent or unreadable: the dry run reads, never fails on it). */
export function storedBatchEntries(runDir: string): BatchEntry[] {
  try {
    return batchEntries((JSON.parse(fs.readFileSync(path.join(runDir, "store.json"), "utf8")) as { extra?: unknown }).extra);
  } catch {
    return [];
  }
}

/** Each judge's configuration key version in a run's store.json (`config_key_version`; none when unreadable), as label reads it. */
export function storedKeyVersions(runDir: string): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  try {
    const judges = (JSON.parse(fs.readFileSync(path.join(runDir, "store.json"), "utf8")) as { judges?: unknown }).judges;
    if (Array.isArray(judges)) for (const j of judges) if (j && typeof j.id === "string") out.set(j.id, typeof j.config_key_version === "number" ? j.config_key_version : undefined);
  } catch {
    // no store.json: a new run
  }
  return out;
}

/** What the dry run reads of a run's stored verdicts and index ({@link readDone}). */
export interface StoredDone {
  ledger: VerdictLedger;
  /** Per judge and prompt hash: the current verdicts each configuration hash made. */
  configs: Map<string, Map<string, number>>;
  observed: Map<string, ObservedTurns>;
  /** The latest index row per id: its content hash, reference key and cell-naming fields' key (`../store/meta-key.ts`). */
  rows: Map<string, { sha: string; ref: string; meta: string }>;
  /**
   * By content hash, the stored ids whose recorded input file is gone, when no stored id of that content still has
   * its file: what label would carry over to a new id of that content instead of judging it (`./moved-content.ts`).
   */
  goneBySha: Map<string, string[]>;
  /** What the run has paid (USD, every stored verdict) and the verdicts with requests whose cost is unknown (`RunStore.paidUsd`). */
  paid: { usd: number; unknown: number };
}

/**
 * What `label` would skip or judge again: the latest stored verdict per (trajectory, judge, repeat) and the content
 * hashes the index recorded (a {@link VerdictLedger}, as `RunStore` keeps one), and per judge and prompt hash how
 * many of the current verdicts each configuration hash made (`RunStore.storedConfigs`).
 */
export async function readDone(runDir: string): Promise<StoredDone> {
  const ledger = new VerdictLedger();
  const rows = new Map<string, { sha: string; ref: string; meta: string }>();
  const observed = new Map<string, ObservedTurns>();
  const latest = new Map<string, { judge: string; prompt: string; sha: string }>();
  const configs = new Map<string, Map<string, number>>();
  const paid = { usd: 0, unknown: 0 };
  const goneBySha = new Map<string, string[]>();
  if (!fs.existsSync(runDir)) return { ledger, configs, observed, rows, paid, goneBySha };
  // the lines label's store would skip, skipped and named here too (./skipped-lines.ts: one warning per file)
  const vs = journalSkips(path.join(runDir, "verdicts.jsonl"), NOT_VERDICT);
  for await (const v of readJsonl<Verdict>(path.join(runDir, "verdicts.jsonl"), vs.bad, verdictRecordCheck(path.join(runDir, "verdicts.jsonl")), vs.end)) {
    ledger.addVerdict(v);
    // what the run has paid, as label's store sums it for --max-cost (`RunStore.paidUsd`)
    if (typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) && storedUsageImplausible(v) === undefined) paid.usd += v.cost_usd;
    else if (v.attempts > 0) paid.unknown++;
    latest.set(`${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`, { judge: v.judge_id, prompt: v.prompt_sha256, sha: v.judge_config_sha256 ?? "" });
    // the judge's observed turns and output per request (verdicts with requests and a full usage record)
    if (typeof v.attempts === "number" && v.attempts > 0 && v.usage && !v.usage.responses_without_usage && typeof v.usage.completion_tokens === "number") {
      let o = observed.get(v.judge_id);
      if (!o) observed.set(v.judge_id, (o = { verdicts: 0, requests: 0, completion_tokens: 0 }));
      o.verdicts++;
      o.requests += v.attempts;
      o.completion_tokens += v.usage.completion_tokens;
    }
  }
  for (const e of latest.values()) {
    const k = `${e.judge}\u0000${e.prompt}`;
    let m = configs.get(k);
    if (!m) configs.set(k, (m = new Map()));
    m.set(e.sha, (m.get(e.sha) ?? 0) + 1);
  }
  const ts = journalSkips(path.join(runDir, "trajectories.jsonl"), NOT_INDEX_ROW);
  const gone = new Map<string, string>();
  for await (const t of readJsonl<TrajectoryIndexRow>(path.join(runDir, "trajectories.jsonl"), ts.bad, isIndexRecord, ts.end)) {
    ledger.addRecordedContent(t.id, t.content_sha256);
    // the latest row per id, as label's store and readTrajectoryIndex read it
    rows.set(t.id, { sha: t.content_sha256, ref: referenceKey(t.reference), meta: metadataKey(t) });
    // the ids whose (latest) recorded file is gone: few, kept; nothing kept per id whose file is there
    const file = sourceKey(t.source).replace(/:\d+$/, "");
    if (file !== "" && !fs.existsSync(file)) gone.set(t.id, t.content_sha256);
    else gone.delete(t.id);
  }
  // a moved input (./moved-content.ts): the content of a stored id whose file is gone, held by no id whose file is there
  for (const [id, sha] of gone) goneBySha.set(sha, [...(goneBySha.get(sha) ?? []), id]);
  if (goneBySha.size > 0) for (const [id, r] of rows) if (goneBySha.has(r.sha) && !gone.has(id)) goneBySha.delete(r.sha);
  return { ledger, configs, observed, rows, paid, goneBySha };
}

/** A judge's stored verdicts as the dry run's observed estimate reads them. */
export interface ObservedTurns {
  verdicts: number;
  /** Requests over those verdicts (`attempts`). */
  requests: number;
  completion_tokens: number;
}
