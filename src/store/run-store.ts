import fs from "node:fs";
import path from "node:path";
import { Low } from "lowdb";
import { JSONFile } from "lowdb/node";
import type { IngestError, Verdict } from "../types.js";
import { acquireRunLock } from "./lock.js";
import { closeJournals, Journal, StoreWriteError, syncJournals } from "./journal.js";
import { readJsonl } from "../io/jsonl.js";
import { removeQuietly } from "../io/remove-quietly.js";
import { journalSkips, noteUnattackedRelabels, noteVerdictsWithoutRow } from "./skipped-lines.js";
import { applyUnattackedRule } from "../rubric/unattacked.js";
import { SourceMoves } from "./source-moved.js";
import { currentVerdictKey, errorKey, errorRecordCheck, isErrorRecord, isIndexRecord, isObj, isVerdictRecord, verdictRecordCheck, jsonCopy, NOT_ERROR, NOT_INDEX_ROW, NOT_VERDICT, referenceKey, slimIndexRow, slimVerdict, sourceKey, type TrajectoryIndexRow } from "./records.js";
import { VerdictLedger } from "./ledger.js";
import { metadataKey } from "./meta-key.js";
import { HashColumn, HashPool, IdSlots, IntColumn, Interner } from "./compact.js";
import { FileNames, splitPath } from "./file-names.js";
import { ResumeKeys, type StoredConfig } from "./resume-keys.js";
import { CurrentVerdicts, deepFreeze } from "./current-verdicts.js";
import { IndexRows } from "./index-rows.js";
import { FileStamps, stampOf, type FileStamp, type StampWarning } from "./file-stamp.js";
import { checkRunName, validSnapshot, type RunSnapshot } from "./run-snapshot.js";
import { storedUsageImplausible } from "./stored-usage.js";
export { checkRunName, RunNameError, type LabelState, type RunSnapshot } from "./run-snapshot.js";
import { abandonPass, closePass, finishPass, startPass, type PassOutcome, type SnapshotBefore } from "./label-pass.js";
export type { StoredConfig } from "./resume-keys.js";

/** Journal lines loaded between two calls of `RunStore.open`'s `onLoadCheck`. */
export const LOAD_CHECK_EVERY = 1024;
/** Most distinct values a store shares (`RunStore.one`, `RunStore.onePart`); past it, values are kept unshared. */
const SHARED_MAX = 10_000;

/** What a run folder or lock that cannot be written says: it failed before anything was read, judged or stored. */
const NOTHING_READ_YET = "Nothing was read, judged or stored by this command (the run is as it was); fix it (or give a --labels-dir that can be written) and run the same command again.";
/** The string fields of a slim verdict that repeat across verdicts (a run has few judges, prompts, statuses, labels). */
const SHARED_VERDICT_FIELDS = ["judge_id", "judge_model", "judge_family", "prompt_sha256", "judge_config_sha256", "status", "label", "label_claimed", "label_basis", "surface", "agent_model"];
/** The findings of a slim verdict without findings (shared, frozen). */
const NO_FINDINGS: Verdict["findings"] = Object.freeze([]) as unknown as Verdict["findings"];

/** What a run's summary is built from (`RunStore.summaryInputs`, or the three readers on a closed run). */
export interface SummaryInputs {
  /** The current verdict per (trajectory, judge, repeat), storage order, slim (`slimVerdict`). */
  verdicts: Verdict[];
  /** Trajectory index rows by id, slim (`slimIndexRow`). */
  index: Map<string, TrajectoryIndexRow>;
  /** Every stored error, in order. */
  errors: IngestError[];
}
export { isJudged, resumeStatus } from "./ledger.js";
// the journal records moved to ./records.ts; re-exported here, where some 60 importers take them from
export {
  errorKey,
  forEachIndexRow,
  looseVerdictKey,
  readErrors,
  readTrajectoryIndex,
  readVerdicts,
  referenceKey,
  slimIndexRow,
  slimVerdict,
  sourceKey,
  verdictKey,
  type TrajectoryIndexRow,
} from "./records.js";

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
  /**
   * What is held per trajectory and per verdict, compactly and exactly (`./compact.ts`, issue 26): one slot per
   * trajectory id (shared with the {@link ledger}); the resume keys (`./resume-keys.ts`); per slot the content hash
   * of the latest index row (a code into the {@link hashPool}), its source (folder + file name) and {@link referenceKey}.
   */
  private readonly ids = new IdSlots();
  private readonly keys = new ResumeKeys(this.ids);
  /** statuses, configuration hashes, models, reference keys and source folders, interned */
  private readonly codes = new Interner();
  private errorKeys = new Set<string>();
  /** content hashes, held once for the store and its {@link ledger} */
  private readonly hashPool = new HashPool();
  readonly hashes = new HashColumn(this.hashPool); // content hashes by id slot (read-only outside: ../run/same-content.ts)
  private trajectoryCount = 0;
  private readonly sourceDir = new IntColumn();
  /** per slot: the rest of the source after its interned folder (`sourceDir`); a one-byte mark for a source `<root>/<id>.json` (`./file-names.ts`) */
  private readonly sourceFile = new FileNames();
  private readonly refs = new IntColumn();
  /** per slot: the latest row's {@link metadataKey} (interned): what names its cell in the figures */
  private readonly metas = new IntColumn();
  /** per slot: 1 when the row's `source.path` was relative: {@link trajectorySourceRelative} */
  private readonly sourceRelative = new IntColumn(0);
  /** the resume fast path's file stamps (`./file-stamp.ts`) by slot, found by each slot's source path */
  private readonly stamps = new FileStamps((slot) => (this.hashes.has(slot) ? this.sourceAt(slot) : undefined));
  /** stored rows read again from another file, the recorded one gone: written again with the new path (`./source-moved.ts`) */
  readonly sourceMoves = new SourceMoves();
  /**
   * What {@link summaryInputs} returns, kept as the journals are loaded and appended to (so the run's summary needs
   * no re-read of the journals): the current verdict per {@link currentVerdictKey} in storage order (compactly:
   * `./current-verdicts.ts`), the index row per trajectory id, every error line in order; verdicts and rows slim
   * ({@link slimVerdict}, {@link slimIndexRow}), their ids the store's one copy.
   */
  private readonly current = new CurrentVerdicts(this.ids);
  /** Keys of current verdicts stored before the unattacked rule that it relabels (few): counted as readers say it. */
  private readonly relabelledKeys = new Set<string>();
  private readonly indexRows = new IndexRows(this.ids);
  private errorList: IngestError[] = [];
  /**
   * One copy of each repeated value the in-memory records hold (a model, a hash, a status), and of each distinct
   * quote-free findings list or error of a slim verdict (frozen: shared by many verdicts), so 40,000 verdicts hold
   * each once. At most {@link SHARED_MAX} entries each; past that, values are kept as they are.
   */
  private sharedStrings = new Map<string, string>();
  private sharedParts = new Map<string, unknown>();
  /** USD of every verdict stored, superseded ones included (they were paid for too); unknown costs add nothing. */
  private paid = 0;
  /** Verdicts stored with requests sent but an unknown cost (no usage, or no price). */
  private paidUnknown = 0;
  /** The latest verdict per (trajectory, judge, repeat) and the content hashes recorded at open (`./ledger.ts`). */
  readonly ledger = new VerdictLedger(this.ids, this.hashPool);
  private snapshotError: unknown = null;
  private db!: Low<RunSnapshot>;
  /** The snapshot fields this invocation changes at open, as they were before it ({@link abandon}). */
  private before?: SnapshotBefore;
  private release: () => void = () => {};
  private dirty = 0;
  private lastWrite = 0;
  /**
   * Verdicts and errors found in the journals when the run was opened; `bad_lines` skipped, `bad_by_file` their
   * numbers per journal file name (as read, before a partial last line is cut).
   */
  resumed = { verdicts: 0, errors: 0, trajectories: 0, bad_lines: 0, bad_by_file: {} as Record<string, number[]> };

  private constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * Open or create a run folder, take its lock and load what is done.
   * @throws RunLockedError when another live process has the run open; StoreWriteError when the folder is not writable.
   */
  static async open(labelsDir: string, run: string, opts: { inputs?: string[]; onLoadCheck?: () => void } = {}): Promise<RunStore> {
    checkRunName(run);
    const dir = path.join(labelsDir, run);
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new StoreWriteError(dir, e as NodeJS.ErrnoException, NOTHING_READ_YET);
    }
    const s = new RunStore(dir);
    try {
      s.release = acquireRunLock(dir);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code) throw new StoreWriteError(path.join(dir, ".lock"), err, NOTHING_READ_YET);
      throw e;
    }
    try {
      await s.load(run, opts.inputs ?? [], opts.onLoadCheck);
    } catch (e) {
      s.release();
      throw e;
    }
    return s;
  }

  /**
   * @param check called every {@link LOAD_CHECK_EVERY} journal lines (the CLI's heap-size GC trigger), and every
   *   1,024 verdicts or index rows the summary reads back ({@link summaryParts}).
   */
  private async load(run: string, inputs: string[], check?: () => void): Promise<void> {
    // the summary's reads of the held verdicts and rows call it too (their rebuilt records are garbage at once)
    this.current.heapCheck = check;
    this.indexRows.heapCheck = check;
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
    // every skipped line is counted here and named by file and line for the command's warning (./skipped-lines.ts)
    const skips = (file: string, what: string) => {
      const s = journalSkips(file, what);
      const mine = (this.resumed.bad_by_file[path.basename(file)] ??= []);
      return { end: s.end, bad: (line: number) => (this.resumed.bad_lines++, mine.push(line), s.bad(line)) };
    };
    const vs = skips(this.file("verdicts.jsonl"), NOT_VERDICT);
    for await (const v of readJsonl<Verdict>(this.file("verdicts.jsonl"), vs.bad, verdictRecordCheck(this.file("verdicts.jsonl")), vs.end)) {
      this.remember(v);
      // the figures of a resumed run read stored verdicts as every reader does (`applyUnattackedRule`), and say so
      const ruled = applyUnattackedRule(v, v.attacked);
      if (ruled.relabelled || this.relabelledKeys.size > 0) this.relabelledKeys[ruled.relabelled ? "add" : "delete"](currentVerdictKey(v));
      this.keepCurrent(slimVerdict(ruled.verdict));
      if (++this.resumed.verdicts % LOAD_CHECK_EVERY === 0) check?.();
    }
    const es = skips(this.file("errors.jsonl"), NOT_ERROR);
    for await (const e of readJsonl<IngestError>(this.file("errors.jsonl"), es.bad, errorRecordCheck(this.file("errors.jsonl"), this.ledger.verdictsStored + (this.resumed.bad_by_file["verdicts.jsonl"]?.length ?? 0)), es.end)) {
      this.errorKeys.add(errorKey(e));
      this.errorList.push(e);
      if (++this.resumed.errors % LOAD_CHECK_EVERY === 0) check?.();
    }
    const ts = skips(this.file("trajectories.jsonl"), NOT_INDEX_ROW);
    for await (const t of readJsonl<TrajectoryIndexRow>(this.file("trajectories.jsonl"), ts.bad, isIndexRecord, ts.end)) {
      this.keepRow(t);
      this.ledger.addRecordedContent(t.id, t.content_sha256);
      const slim = this.compactRow(slimIndexRow(t));
      this.indexRows.set(slim);
      if (++this.resumed.trajectories % LOAD_CHECK_EVERY === 0) check?.();
    }
    noteVerdictsWithoutRow(this.dir, this.current.idsWithout((slot) => this.hashes.has(slot)), () => false);
    noteUnattackedRelabels(this.dir, this.relabelledKeys.size);
    // an index row reaches the disk before the verdicts stored after it; an error (rare: written at once) after both
    this.trajectories = Journal.open(this.file("trajectories.jsonl"));
    this.verdicts = Journal.open(this.file("verdicts.jsonl"), { after: [this.trajectories as Journal<unknown>] });
    this.errors = Journal.open(this.file("errors.jsonl"), { after: [this.verdicts as Journal<unknown>], writeThrough: true });
    this.before = startPass(this.db.data, inputs, { trajectories: this.trajectoryCount, verdicts: this.keys.size, errors: this.errorKeys.size }, now);
    await this.writeSnapshot();
  }

  /**
   * Record how this invocation ended (`store.json` `label_state`); written by {@link close}. A store closed
   * without it records `failed`; a process killed before closing leaves `running` behind (with its lock).
   */
  finish(outcome: PassOutcome): void {
    finishPass(this.db.data, outcome);
  }

  /** Path of a file in the run folder. */
  file(name: string): string {
    return path.join(this.dir, name);
  }

  get snapshot(): RunSnapshot {
    return this.db.data;
  }

  private remember(v: Verdict): void {
    if (typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) && storedUsageImplausible(v) === undefined) this.paid += v.cost_usd;
    else if (v.attempts > 0) this.paidUnknown++;
    this.ledger.addVerdict(v);
    this.keys.add(v);
  }

  /** Hold what resuming needs of an index row (content hash, source, reference) under its id's slot. */
  private keepRow(t: TrajectoryIndexRow): void {
    const slot = this.ids.slot(t.id);
    if (!this.hashes.has(slot)) this.trajectoryCount++;
    this.hashes.set(slot, t.content_sha256);
    const src = sourceKey(t.source);
    const rel = typeof t.source?.path === "string" && !path.isAbsolute(t.source.path);
    if (rel || this.sourceRelative.get(slot) === 1) this.sourceRelative.set(slot, rel ? 1 : 0);
    const [dir, rest] = splitPath(t.id, src, "/");
    this.sourceDir.set(slot, this.codes.code(dir));
    this.sourceFile.set(slot, rest);
    this.refs.set(slot, this.codes.code(referenceKey(t.reference)));
    this.metas.set(slot, this.codes.code(metadataKey(t)));
    this.stamps.set(slot, src, stampOf(t.file_stamp), t.source?.path, t.source?.format === "agentdojo" && isObj(t.metadata) && t.metadata.model_dir !== undefined);
  }

  /** The store's one copy of a string (see {@link sharedStrings}); other values as they are. */
  private one<T>(x: T): T {
    if (typeof x !== "string") return x;
    const got = this.sharedStrings.get(x);
    if (got !== undefined) return got as T;
    if (this.sharedStrings.size < SHARED_MAX) this.sharedStrings.set(x, x);
    return x;
  }

  /** The store's one frozen copy of a JSON value equal to `x` (see {@link sharedParts}). */
  private onePart<T>(tag: string, x: T): T {
    const k = tag + JSON.stringify(x);
    const got = this.sharedParts.get(k);
    if (got !== undefined) return got as T;
    deepFreeze(x);
    if (this.sharedParts.size < SHARED_MAX) this.sharedParts.set(k, x);
    return x;
  }

  /** A new shape of a slim verdict (`./current-verdicts.ts`: all but its id; the only ones held) with its repeated parts shared, in place; same values. */
  private readonly compact = (w: Record<string, unknown>): void => {
    for (const f of SHARED_VERDICT_FIELDS) if (f in w) w[f] = this.one(w[f]);
    const findings = w.findings as Verdict["findings"];
    w.findings = findings.length === 0 ? NO_FINDINGS : this.onePart("f", findings);
    if (w.error) w.error = this.onePart("e", w.error);
  };

  /** A slim index row with its repeated strings shared; same fields and values. */
  private compactRow(r: TrajectoryIndexRow): TrajectoryIndexRow {
    r.id = this.ids.canonical(r.id);
    r.agent_model = this.one(r.agent_model);
    if (r.surface !== undefined) r.surface = this.one(r.surface);
    if (r.attack !== undefined) r.attack = this.one(r.attack);
    if (r.suite !== undefined) r.suite = this.one(r.suite);
    return r;
  }

  /**
   * True when a verdict with this key is stored. With `retryErrors`, a stored `judge_error` does not count.
   * With `loose`, `key` is a {@link looseVerdictKey} and a verdict of any configuration counts.
   */
  has(key: string, retryErrors = false, loose = false): boolean {
    return this.keys.has(key, retryErrors, loose);
  }

  /**
   * The configurations a judge's current verdicts (the latest per trajectory and repeat) were made with, one
   * entry per hash ("" = not recorded); with `promptSha256`, only verdicts made with that prompt.
   */
  storedConfigs(judgeId: string, promptSha256?: string): StoredConfig[] {
    return this.keys.storedConfigs(judgeId, promptSha256);
  }

  /** The errors stored so far, in storage order (the list the store keeps; read-only: not a copy). */
  get storedErrors(): readonly IngestError[] {
    return this.errorList;
  }

  /** The store's exact trajectory id table, to share with the input read (`ReadOptions.ids`): an id held once. */
  get idSlots(): IdSlots {
    return this.ids;
  }

  /**
   * The store's interned strings (the folders of the stored rows' sources among them), to share with the input
   * read (`ReadOptions.folders`): a folder both hold is held once. Append-only: a code's string never changes.
   */
  get internedStrings(): Interner {
    return this.codes;
  }

  /** Where the stored row of a trajectory id was read from (`sourceKey`: absolute path and line), if stored. */
  trajectorySource(id: string): string | undefined {
    const slot = this.ids.find(id);
    return slot === -1 || !this.hashes.has(slot) ? undefined : this.sourceAt(slot);
  }

  /** Whether an id's stored source path was relative: {@link trajectorySource} resolved it from this directory (red team 15). */
  trajectorySourceRelative(id: string): boolean {
    return this.sourceRelative.get(this.ids.find(id)) === 1;
  }

  private readonly idOf = (slot: number): string => this.ids.id(slot);

  private sourceAt(slot: number): string {
    return this.codes.value(this.sourceDir.get(slot)) + this.sourceFile.get(slot, this.idOf);
  }

  /** Resume fast path (`./file-stamp.ts`): the trajectory of one-item `file` (resolved; `named` as read now) stored with this stamp, its id's `slot` in {@link idSlots}. */
  unchangedFile(file: string, stamp: FileStamp, named: string): { id: string; slot: number; content_sha256: string; layout: boolean; warnings: StampWarning[] } | undefined {
    const slot = this.stamps.find(file, stamp);
    return slot === -1 ? undefined : { id: this.ids.id(slot), slot, content_sha256: this.hashes.get(slot), layout: this.stamps.isLayout(slot), warnings: this.stamps.warningsOf(slot, named) };
  }

  /**
   * Whether the run holds a trajectory read from `file` (resolved; a one-trajectory file stored with its stamp, as
   * {@link unchangedFile} finds them): the reader's `heldFile` (`../ingest/same-files.ts` `preferHeld`).
   */
  holdsFile(file: string): boolean {
    return this.stamps.holds(file);
  }

  /** The content hash of the latest stored row of `id`, or undefined when none is stored. */
  storedContent(id: string): string | undefined {
    const slot = this.ids.find(id);
    return slot === -1 || !this.hashes.has(slot) ? undefined : this.hashes.get(slot);
  }

  /** Whether the stored row of `id` has this content hash. */
  sameTrajectory(id: string, contentSha: string): boolean {
    const slot = this.ids.find(id);
    return slot !== -1 && this.hashes.equals(slot, contentSha);
  }

  hasTrajectory(id: string): boolean {
    const slot = this.ids.find(id);
    return slot !== -1 && this.hashes.has(slot);
  }

  /**
   * Record a trajectory's index row: once per id, and again when its content changed since it was stored, or when
   * its benchmark reference (`reference.security`/`utility`) did (finding 5: a flipped verdict in the input must
   * reach `agree`/`compare`, which read the latest row per id). The later row supersedes the earlier one.
   * A row whose content and reference are the same but whose cell-naming fields ({@link metadataKey}) differ is
   * re-written too (break54 #0: the newest wins, nothing is judged again).
   * @returns "new", "same" (stored with this content and reference; re-written when its file's stamp is renewed, `FileStamps.renews`), "changed" (other content)
   *   or "reference_changed" (same content, another reference: the row is re-written; verdicts do not depend on the
   *   reference, so nothing is judged again), or "metadata_changed" (same content and reference, another model,
   *   condition, attack, suite, tasks, attacked or surfaces: the row is re-written).
   */
  addTrajectory(row: TrajectoryIndexRow): "new" | "same" | "changed" | "reference_changed" | "metadata_changed" {
    this.throwIfSnapshotFailed();
    const slot = this.ids.find(row.id);
    const known = slot !== -1 && this.hashes.has(slot);
    const same = known && this.hashes.equals(slot, row.content_sha256);
    const refNow = referenceKey(row.reference);
    const refChanged = same && this.codes.value(this.refs.get(slot)) !== refNow;
    const metaChanged = same && !refChanged && this.codes.value(this.metas.get(slot)) !== metadataKey(row);
    if (same && !refChanged && !metaChanged && !this.stamps.renews(slot, sourceKey(row.source), row.file_stamp) && !this.sourceMoves.moved(this.sourceAt(slot), sourceKey(row.source), this.sourceRelative.get(slot) === 1)) return "same";
    // as `readTrajectoryIndex` will read the line back (a row it would skip is not kept either)
    const slim = isIndexRecord(row) ? this.compactRow(slimIndexRow(jsonCopy(slimIndexRow(row)))) : undefined;
    this.trajectories.append(row);
    if (slim) this.indexRows.set(slim);
    this.keepRow(row);
    this.db.data.counts.trajectories = this.trajectoryCount;
    this.touch();
    return !known ? "new" : refChanged ? "reference_changed" : metaChanged ? "metadata_changed" : same ? "same" : "changed";
  }

  /** The {@link metadataKey} of the latest stored row of `id` (what names its cell); undefined when not stored. */
  storedMetadata(id: string): string | undefined {
    const slot = this.ids.find(id);
    return slot === -1 || !this.hashes.has(slot) ? undefined : this.codes.value(this.metas.get(slot));
  }

  /** The reference (benchmark verdicts) of the latest stored row of `id`, as {@link referenceKey} reads it; undefined when not stored. */
  storedReference(id: string): string | undefined {
    const slot = this.ids.find(id);
    return slot === -1 || !this.hashes.has(slot) ? undefined : this.codes.value(this.refs.get(slot));
  }

  private throwIfSnapshotFailed(): void {
    if (this.snapshotError) throw this.snapshotError;
  }

  /** Append a verdict: written by the end of this event-loop turn (`./journal.ts`). @throws StoreWriteError. */
  addVerdict(v: Verdict): void {
    this.throwIfSnapshotFailed();
    // The slim copy as `readVerdicts(dir, {slim: true})` will read the line back: JSON values (undefined dropped,
    // NaN -> null), no object shared with the caller's verdict. Made before the write: if it throws, nothing is written.
    const back = jsonCopy(slimVerdict(v));
    this.verdicts.append(v);
    if (isVerdictRecord(back)) this.keepCurrent(slimVerdict(back));
    // a verdict made now (under the rule) replaces a relabelled one of the same key: the note's count follows
    if (this.relabelledKeys.size > 0 && this.relabelledKeys.delete(currentVerdictKey(v))) noteUnattackedRelabels(this.dir, this.relabelledKeys.size);
    this.remember(v);
    this.db.data.counts.verdicts = this.keys.size;
    this.touch();
  }

  /** Append an ingest or judge error, once per distinct error across resumes. @returns false when already recorded. */
  addError(e: IngestError): boolean {
    this.throwIfSnapshotFailed();
    const k = errorKey(e);
    if (this.errorKeys.has(k)) return false;
    const back = jsonCopy(e); // as `readErrors` will read the line back
    this.errors.append(e);
    if (isErrorRecord(back)) this.errorList.push(back);
    this.errorKeys.add(k);
    this.db.data.counts.errors = this.errorKeys.size;
    this.touch();
    return true;
  }

  /**
   * What the run has paid (USD): the sum of `cost_usd` over every verdict in `verdicts.jsonl`, superseded ones
   * (re-judged errors, verdicts of an older configuration or prompt) included; a verdict of unknown cost adds nothing.
   */
  get paidUsd(): number {
    return this.paid;
  }

  /** Stored verdicts whose requests were sent but whose cost is unknown (not in {@link paidUsd}). */
  get unknownCostVerdicts(): number {
    return this.paidUnknown;
  }

  /** Latest verdict per (trajectory, judge, repeat) in storage order: a superseded one leaves its place (as `readVerdicts`). */
  private keepCurrent(slim: Verdict): void {
    this.current.add(slim, this.compact);
  }

  /**
   * What the run's summary (`summarizeRun`) is built from, held in memory since the store was opened, so the end
   * of a label run needs no re-read of its journals. Equal (deep, strict) to what
   * `readVerdicts(dir, { slim: true, includeStale: true })`, `readTrajectoryIndex(dir, { slim: true })` and `readErrors(dir)` return
   * from disk after {@link close}: the current verdict per (trajectory, judge, repeat) in storage order, slim; the
   * latest index row per trajectory id (in first-stored order), slim; every stored error in order. Callable after
   * `close`. The containers are the caller's; the records are the store's, read-only (the findings and errors
   * several verdicts share are frozen: changing one throws).
   */
  summaryInputs(): SummaryInputs {
    return { verdicts: [...this.current], index: new Map(this.indexRows), errors: [...this.errorList] };
  }

  /**
   * The verdicts of {@link summaryInputs}, rebuilt one at a time as they are read (nothing held: `summarizeRun` folds
   * them), in the same order with the same values; iterable more than once. Callable after `close`.
   */
  summaryVerdicts(): Iterable<Verdict> {
    return this.current;
  }

  /**
   * What {@link summaryInputs} returns without copying anything: the verdicts as {@link summaryVerdicts}, the store's
   * own index and error list (read-only: the store appends to them while it is open). For a run's summary at scale.
   */
  summaryParts(): { verdicts: Iterable<Verdict>; index: ReadonlyMap<string, TrajectoryIndexRow>; errors: readonly IngestError[] } {
    return { verdicts: this.current, index: this.indexRows, errors: this.errorList };
  }
  /** The run's index rows as held (slim rows, rebuilt one at a time), without the summary's other parts. */
  heldRows(): Iterable<TrajectoryIndexRow> { return this.indexRows.values(); }

  private touch(): void {
    this.dirty++;
    const now = Date.now();
    if (this.dirty >= 1000 || now - this.lastWrite > 5000) {
      // A failed snapshot write (disk full) stops the run at the next record; the journals keep what is stored.
      this.writeSnapshot().catch((e) => (this.snapshotError ??= e));
    }
  }

  /**
   * Write the journals' pending lines (unless `journalsFirst` is false: `close` did), then the lowdb snapshot
   * (atomically: temp file + rename), so it never says more than they hold (e.g. a batch chunk marked processed).
   */
  async writeSnapshot(journalsFirst = true): Promise<void> {
    if (journalsFirst) this.errors?.flush(); // the rows and verdicts, then the errors (`load`)
    this.dirty = 0;
    this.lastWrite = Date.now();
    this.db.data.updated_at = new Date().toISOString();
    try {
      await this.db.write();
    } catch (e) {
      removeQuietly(this.file(".store.json.tmp")); // the temp file lowdb's writer (steno) leaves behind
      throw new StoreWriteError(this.file("store.json"), e as NodeJS.ErrnoException);
    }
  }

  /**
   * This invocation was refused or stopped before it judged or stored anything (e.g. a changed judge configuration
   * under `--on-config-change refuse`, a Ctrl-C while the inputs were counted): put back the snapshot's inputs,
   * stopped judges, `label_state`, judges and last invocation as they were when the store was opened, so a complete
   * run stays complete instead of reading as `failed`. Call before {@link close}.
   */
  abandon(): void {
    if (this.db?.data && this.before) abandonPass(this.db.data, this.before);
  }

  /** Write pending lines, fsync, write the snapshot, release the lock; safe twice. @throws StoreWriteError when pending lines or the snapshot cannot be written (closed and unlocked all the same; red team 20: never silent). */
  async close(): Promise<void> {
    const journals = [this.errors, this.verdicts, this.trajectories] as (Journal<unknown> | undefined)[];
    let lost: unknown = null;
    let snapshot: unknown = null;
    try {
      lost = syncJournals(journals); // errors after the rows and verdicts (`load`)
      closePass(this.db?.data?.label_state, !!lost);
      if (this.db?.data) snapshot = await this.writeSnapshot(false).then(() => null, (e: unknown) => (e instanceof StoreWriteError ? e : null));
    } finally {
      closeJournals(journals);
      this.release();
    }
    if (lost) throw lost;
    if (snapshot) throw snapshot;
  }
}
