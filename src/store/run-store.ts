import fs from "node:fs";
import path from "node:path";
import { Low } from "lowdb";
import { JSONFile } from "lowdb/node";
import type { IngestError, Trajectory, Verdict } from "../types.js";
import { acquireRunLock } from "./lock.js";
import { Journal, StoreWriteError, readJsonl } from "./journal.js";

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
  > {
  attacked: boolean;
  n_messages: number;
  /** sha256 of the trajectory's messages and injections, for deduplication by content. */
  content_sha256: string;
}

/** The lowdb snapshot `store.json`: run metadata and batched counters. The journals are the source of truth. */
export interface RunSnapshot {
  version: 1;
  run: string;
  created_at: string;
  updated_at: string;
  inputs: string[];
  judges: Array<{ id: string; model: string; family: string; prompt_sha256: string; rubric_version: string }>;
  counts: { trajectories: number; verdicts: number; errors: number };
  /** Judges stopped by a fatal error (bad key, no quota), with the message. */
  stopped_judges: Record<string, string>;
  /** What the last `label` invocation asked for. */
  last_invocation?: { at: string; inputs: string[]; judges: string[]; options: Record<string, unknown> };
  /** Free space for later stages (batch ids, committee settings, ...). */
  extra: Record<string, unknown>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isVerdictRecord = (v: unknown) =>
  isObj(v) &&
  typeof v.trajectory_id === "string" &&
  typeof v.judge_id === "string" &&
  Number.isInteger(v.repeat) &&
  typeof v.prompt_sha256 === "string" &&
  typeof v.status === "string";
const isErrorRecord = (v: unknown) => isObj(v) && typeof v.path === "string" && typeof v.kind === "string" && typeof v.message === "string";
const isIndexRecord = (v: unknown) => isObj(v) && typeof v.id === "string" && typeof v.content_sha256 === "string";

function validSnapshot(d: unknown): d is RunSnapshot {
  return (
    isObj(d) &&
    Array.isArray(d.inputs) &&
    Array.isArray(d.judges) &&
    isObj(d.counts) &&
    isObj(d.stopped_judges) &&
    isObj(d.extra) &&
    typeof d.created_at === "string"
  );
}

/** A run name that cannot be a folder name under the labels folder. */
export class RunNameError extends Error {
  constructor(run: string) {
    super(`invalid run name "${run}": use letters, digits, '.', '_' and '-' (it names a folder under the labels folder)`);
    this.name = "RunNameError";
  }
}

/** @throws RunNameError unless `run` is a plain folder name (no separators, not `.` or `..`). */
export function checkRunName(run: string): void {
  if (!/^[A-Za-z0-9._-]+$/.test(run) || run === "." || run === "..") throw new RunNameError(run);
}

/** The resume key of a verdict: trajectory, judge, repeat, prompt hash. */
export function verdictKey(v: Pick<Verdict, "trajectory_id" | "judge_id" | "repeat" | "prompt_sha256">): string {
  return `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}\u0000${v.prompt_sha256}`;
}

function errorKey(e: IngestError): string {
  return `${path.resolve(e.path)}\u0000${e.line ?? ""}\u0000${e.kind}\u0000${e.trajectory_id ?? ""}\u0000${e.message}`;
}

/**
 * The store of one run under `<labelsDir>/<run>/`: `verdicts.jsonl`, `errors.jsonl` and `trajectories.jsonl`
 * (append-only journals, one record per line) and `store.json` (a lowdb snapshot of run metadata, written in
 * batches, never once per verdict). Opening takes the run's lock and reads the journals to know what is done.
 */
export class RunStore {
  readonly dir: string;
  private verdicts!: Journal<Verdict>;
  private errors!: Journal<IngestError>;
  private trajectories!: Journal<TrajectoryIndexRow>;
  private doneKeys = new Map<string, Verdict["status"]>();
  private errorKeys = new Set<string>();
  /** trajectory id -> content hash of its latest index row */
  private trajectoryHashes = new Map<string, string>();
  private snapshotError: unknown = null;
  private db!: Low<RunSnapshot>;
  private release: () => void = () => {};
  private dirty = 0;
  private lastWrite = 0;
  /** Verdicts and errors found in the journals when the run was opened. */
  resumed = { verdicts: 0, errors: 0, trajectories: 0, bad_lines: 0 };

  private constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * Open or create a run folder, take its lock and load what is done.
   * @throws RunLockedError when another live process has the run open; StoreWriteError when the folder is not writable.
   */
  static async open(labelsDir: string, run: string, opts: { inputs?: string[] } = {}): Promise<RunStore> {
    checkRunName(run);
    const dir = path.join(labelsDir, run);
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new StoreWriteError(dir, e as NodeJS.ErrnoException);
    }
    const s = new RunStore(dir);
    try {
      s.release = acquireRunLock(dir);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code) throw new StoreWriteError(path.join(dir, ".lock"), err);
      throw e;
    }
    try {
      await s.load(run, opts.inputs ?? []);
    } catch (e) {
      s.release();
      throw e;
    }
    return s;
  }

  private async load(run: string, inputs: string[]): Promise<void> {
    const now = new Date().toISOString();
    const fresh: RunSnapshot = {
      version: 1,
      run,
      created_at: now,
      updated_at: now,
      inputs,
      judges: [],
      counts: { trajectories: 0, verdicts: 0, errors: 0 },
      stopped_judges: {},
      extra: {},
    };
    this.db = new Low<RunSnapshot>(new JSONFile<RunSnapshot>(path.join(this.dir, "store.json")), structuredClone(fresh));
    try {
      await this.db.read();
    } catch {
      /* unparseable: rebuilt from the journals below */
    }
    if (!validSnapshot(this.db.data)) {
      const bad = this.file("store.json");
      if (fs.existsSync(bad)) fs.copyFileSync(bad, `${bad}.corrupt-${Date.now()}`);
      const extra = isObj((this.db.data as unknown as Record<string, unknown> | null)?.extra) ? (this.db.data as RunSnapshot).extra : {};
      this.db.data = { ...fresh, extra };
    }
    const bad = () => {
      this.resumed.bad_lines++;
    };
    for await (const v of readJsonl<Verdict>(this.file("verdicts.jsonl"), bad, isVerdictRecord)) {
      this.doneKeys.set(verdictKey(v), v.status);
      this.resumed.verdicts++;
    }
    for await (const e of readJsonl<IngestError>(this.file("errors.jsonl"), bad, isErrorRecord)) {
      this.errorKeys.add(errorKey(e));
      this.resumed.errors++;
    }
    for await (const t of readJsonl<TrajectoryIndexRow>(this.file("trajectories.jsonl"), bad, isIndexRecord)) {
      this.trajectoryHashes.set(t.id, t.content_sha256);
      this.resumed.trajectories++;
    }
    this.verdicts = Journal.open(this.file("verdicts.jsonl"));
    this.errors = Journal.open(this.file("errors.jsonl"));
    this.trajectories = Journal.open(this.file("trajectories.jsonl"));
    if (inputs.length) this.db.data.inputs = [...new Set([...this.db.data.inputs, ...inputs])];
    this.db.data.counts = {
      trajectories: this.trajectoryHashes.size,
      verdicts: this.doneKeys.size,
      errors: this.errorKeys.size,
    };
    this.db.data.stopped_judges = {};
    await this.writeSnapshot();
  }

  /** Path of a file in the run folder. */
  file(name: string): string {
    return path.join(this.dir, name);
  }

  get snapshot(): RunSnapshot {
    return this.db.data;
  }

  /** True when a verdict with this key is stored. With `retryErrors`, a stored `judge_error` does not count. */
  has(key: string, retryErrors = false): boolean {
    const st = this.doneKeys.get(key);
    if (st === undefined) return false;
    return !(retryErrors && st === "judge_error");
  }

  hasTrajectory(id: string): boolean {
    return this.trajectoryHashes.has(id);
  }

  /**
   * Record a trajectory's index row: once per id, and again when its content changed since it was stored
   * (the later row supersedes the earlier one).
   * @returns "new", "same" (already stored with this content) or "changed" (stored with other content).
   */
  addTrajectory(row: TrajectoryIndexRow): "new" | "same" | "changed" {
    this.throwIfSnapshotFailed();
    const prev = this.trajectoryHashes.get(row.id);
    if (prev === row.content_sha256) return "same";
    this.trajectories.append(row);
    this.trajectoryHashes.set(row.id, row.content_sha256);
    this.db.data.counts.trajectories = this.trajectoryHashes.size;
    this.touch();
    return prev === undefined ? "new" : "changed";
  }

  private throwIfSnapshotFailed(): void {
    if (this.snapshotError) throw this.snapshotError;
  }

  /** Append a verdict (durable once this returns). @throws StoreWriteError. */
  addVerdict(v: Verdict): void {
    this.throwIfSnapshotFailed();
    this.verdicts.append(v);
    this.doneKeys.set(verdictKey(v), v.status);
    this.db.data.counts.verdicts = this.doneKeys.size;
    this.touch();
  }

  /** Append an ingest or judge error, once per distinct error across resumes. @returns false when already recorded. */
  addError(e: IngestError): boolean {
    this.throwIfSnapshotFailed();
    const k = errorKey(e);
    if (this.errorKeys.has(k)) return false;
    this.errors.append(e);
    this.errorKeys.add(k);
    this.db.data.counts.errors = this.errorKeys.size;
    this.touch();
    return true;
  }

  private touch(): void {
    this.dirty++;
    const now = Date.now();
    if (this.dirty >= 1000 || now - this.lastWrite > 5000) {
      // A failed snapshot write (disk full) stops the run at the next record; the journals keep what is stored.
      this.writeSnapshot().catch((e) => (this.snapshotError ??= e));
    }
  }

  /** Write the lowdb snapshot now (lowdb writes atomically: temp file + rename). */
  async writeSnapshot(): Promise<void> {
    this.dirty = 0;
    this.lastWrite = Date.now();
    this.db.data.updated_at = new Date().toISOString();
    try {
      await this.db.write();
    } catch (e) {
      throw new StoreWriteError(this.file("store.json"), e as NodeJS.ErrnoException);
    }
  }

  /** Flush journals to disk, write the snapshot and release the lock. Safe to call twice. */
  async close(): Promise<void> {
    try {
      this.verdicts?.sync();
      this.errors?.sync();
      this.trajectories?.sync();
      await this.writeSnapshot().catch(() => undefined);
    } finally {
      this.verdicts?.close();
      this.errors?.close();
      this.trajectories?.close();
      this.release();
    }
  }
}

/**
 * Read a run's current verdicts: the last one stored per (trajectory, judge, repeat). A re-judged error
 * supersedes the error, and a verdict made with a newer prompt supersedes one made with an older prompt (both
 * stay in `verdicts.jsonl` for audit; `{ allPrompts: true }` returns every prompt's verdicts).
 * @param runDir the run folder (`<labelsDir>/<run>`).
 */
export async function readVerdicts(runDir: string, opts: { allPrompts?: boolean; slim?: boolean } = {}): Promise<Verdict[]> {
  const byKey = new Map<string, Verdict>();
  for await (const v of readJsonl<Verdict>(path.join(runDir, "verdicts.jsonl"), undefined, isVerdictRecord)) {
    const k = opts.allPrompts ? verdictKey(v) : `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`;
    byKey.delete(k); // keep file order = storage order
    byKey.set(k, opts.slim ? slimVerdict(v) : v);
  }
  return [...byKey.values()];
}

/** The fields a run summary needs; `slim` readers keep only these so a 40,000-verdict run fits in little memory. */
function slimVerdict(v: Verdict): Verdict {
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
    attacked: v.attacked,
    ...(v.error ? { error: { kind: v.error.kind, message: "" } } : {}),
  } as Verdict;
}

/** Read a run's trajectory index rows, by id. */
export async function readTrajectoryIndex(runDir: string, opts: { slim?: boolean } = {}): Promise<Map<string, TrajectoryIndexRow>> {
  const m = new Map<string, TrajectoryIndexRow>();
  for await (const t of readJsonl<TrajectoryIndexRow>(path.join(runDir, "trajectories.jsonl"), undefined, isIndexRecord))
    m.set(t.id, opts.slim ? ({ id: t.id, attacked: t.attacked, agent_model: t.agent_model } as TrajectoryIndexRow) : t);
  return m;
}

/** Read a run's errors. */
export async function readErrors(runDir: string): Promise<IngestError[]> {
  const out: IngestError[] = [];
  for await (const e of readJsonl<IngestError>(path.join(runDir, "errors.jsonl"), undefined, isErrorRecord)) out.push(e);
  return out;
}
