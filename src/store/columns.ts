/**
 * A closed run's index and current verdicts read as columns, for the commands after `label` on runs of a million
 * trajectories: what `readLeanRun` (`./lean-read.ts`) returns, the same rows and verdicts in the same order with
 * the same supersede rules, but without an object per row or per verdict.
 *
 * - ids: once each, in an {@link IdTable} (one byte buffer and an offset table); a trajectory is a slot number.
 *   Slots `0 .. nRows-1` are the index rows in the index's order (first appearance, latest row's values); a
 *   verdict whose trajectory has no row gets a slot after them.
 * - rows: per row slot a code (`rowCode`, `Uint32Array`) into `rows`, one shared object per distinct combination
 *   of the fields the command asked for (`rowFields`: suite, condition, attacked, reference...).
 * - verdicts: per current verdict its trajectory slot (`vSlot`) and a code (`vCode`) into `verdicts`, one shared
 *   slim verdict (`slimVerdict` of `./records.ts`) per distinct combination, without `trajectory_id` and without
 *   the fields unique to each verdict that the statistics never read (`usage`, `cost_usd` by default).
 *
 * The shared objects must not be mutated. What a command shows of a few trajectories (rationales, quotes, source)
 * is read back by id (`readFullVerdicts`, `readIndexRows` of `./lean-read.ts`).
 */
import { Codes } from "./codes.js";
import path from "node:path";
import type { Verdict } from "../types.js";
import { IdTable } from "./id-table.js";
import type { RunIds } from "./id-subset.js";
import { lines, parseLine, type ReadProgress } from "./lean-read.js";
import { isIndexRecord, verdictRecordCheck, NOT_INDEX_ROW, NOT_VERDICT, slimVerdict, type TrajectoryIndexRow } from "./records.js";
import { noteUnattackedRelabels, noteVerdictsWithoutRow } from "./skipped-lines.js";
import { OlderRules } from "./old-rules.js";
import { verifiedUnderOlderRules } from "../rubric/verify-rules.js";
import { IntColumn } from "./int-column.js";
import { applyUnattackedRule } from "../rubric/unattacked.js";
import { noteRemovedLeftOut, removedIds } from "./removed-ids.js";
import { StaleVerdicts } from "./stale-verdicts.js";
import { contentCode } from "./content-code.js";
import { rowProjector } from "./row-projection.js";

/** A run as columns (module docstring). */
export interface ColumnRun {
  /** an {@link IdTable}, or (`restrictColumns` with `view`) some of another run's slots seen as one (`./id-subset.ts`) */
  ids: RunIds;
  /** slots 0 .. nRows-1 have an index row */
  nRows: number;
  /** per row slot: its index in `rows` */
  rowCode: Uint32Array;
  /** the distinct row projections (the asked fields only) */
  rows: Array<Partial<TrajectoryIndexRow>>;
  /** current verdicts, in storage order of the last */
  nVerdicts: number;
  /** per verdict: its trajectory's slot */
  vSlot: Uint32Array;
  /** per verdict: its index in `verdicts` */
  vCode: Uint32Array;
  /** the distinct slim verdicts, without `trajectory_id` and the omitted fields */
  verdicts: Verdict[];
  /**
   * per verdict: its `content_sha256` (the text it judged) as {@link contentCode}, -1 when the verdict records none
   * (older versions): test-retest leaves out repeats judged on different texts (../committee/retest-columns.ts).
   * Absent in runs built by hand without it. A reader done with it may let it go ({@link letGoContentCodes}): reading
   * it after that throws (never taken for "not recorded").
   */
  vContent?: Float64Array;
}

/**
 * Let go of a column run's content codes (`vContent`, 8 bytes per verdict: ~15 MB at a million trajectories with two
 * judges) once no figure still to be made reads them (test-retest, ../committee/retest-columns.ts, is their one
 * reader). Reading `run.vContent` afterwards throws an Error naming `why`, so a figure made later cannot take the
 * missing codes for verdicts that record no hash (-1: repeats on different texts would be paired in silence). The
 * property is no longer enumerable: a spread copy of the run has none (as a run built without them).
 * @param why what let them go, named in the error (`report, after its committee figures`).
 */
export function letGoContentCodes(run: ColumnRun, why: string): void {
  const d = Object.getOwnPropertyDescriptor(run, "vContent");
  if (!d?.enumerable || d.value === undefined) return; // none, or let go already
  Object.defineProperty(run, "vContent", {
    configurable: true,
    enumerable: false,
    get: () => {
      throw new Error(`the run's content codes were let go (${why}): a figure read them after that (a bug)`);
    },
  });
}

export { contentCode };

/** A growable Float64Array. */
class F64 {
  a = new Float64Array(1024);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
  set(i: number, x: number): void {
    while (i >= this.n) this.push(-1);
    this.a[i] = x;
  }
}

/** Options of {@link readColumnRun}. */
export interface ColumnRunOptions {
  /** the index fields the command reads (every other field of a row is dropped); a dotted path (`metadata.KEY`) keeps the one value it reaches (`./row-projection.ts`) */
  rowFields: readonly string[];
  /** slim verdict fields dropped (default `usage`, `cost_usd`: unique per verdict for an LLM judge) */
  verdictOmit?: readonly string[];
  progress?: ReadProgress;
  /**
   * Called with each index row that parses (whole, before its projection) and its slot, in file order: a later
   * row of the same id comes again with the same slot (the latest wins, as in the columns).
   */
  onRow?: (slot: number, row: TrajectoryIndexRow) => void;
}

/** A growable Uint32Array. */
class U32 {
  a = new Uint32Array(1024);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
  set(i: number, x: number): void {
    if (i >= this.a.length) {
      const b = new Uint32Array(Math.max(this.a.length * 2, i + 1));
      b.set(this.a);
      this.a = b;
    }
    this.a[i] = x;
    if (i >= this.n) this.n = i + 1;
  }
}

const DEAD = 0xffffffff;
/** A (judge, repeat, trajectory) whose verdicts were all made on another text than the row's now (none current). */
const STALE_ONLY = -1;

/** Read the index rows into `ids` and row codes (the latest row of each id, in order of first appearance). */
async function readRows(
  runDir: string,
  ids: IdTable,
  fields: readonly string[],
  progress?: ReadProgress,
  onRow?: ColumnRunOptions["onRow"],
  content?: F64,
): Promise<{ rowCode: Uint32Array; rows: Array<Partial<TrajectoryIndexRow>> }> {
  const codes = new Codes<Partial<TrajectoryIndexRow>>();
  const project = rowProjector(fields);
  const rowCode = new U32();
  const gone = removedIds(runDir);
  for await (const line of lines(path.join(runDir, "trajectories.jsonl"), progress, NOT_INDEX_ROW)) {
    const t = parseLine<TrajectoryIndexRow>(line.text, isIndexRecord);
    if (!t) {
      if (line.text.trim()) line.skip();
      continue;
    }
    if (gone.has(t.id)) continue; // its input is gone (./removed-ids.ts)
    const slot = ids.add(t.id);
    rowCode.set(slot, codes.code(project(t)));
    content?.set(slot, contentCode(t.content_sha256));
    onRow?.(slot, t);
  }
  noteRemovedLeftOut(runDir, gone);
  return { rowCode: rowCode.a.slice(0, rowCode.n), rows: codes.values };
}

/**
 * Read a run's index and current verdicts as columns (module docstring): the rows and verdicts `readLeanRun`
 * returns (the latest row per id; the last verdict per trajectory, judge and repeat, in storage order of the
 * last), lines that do not parse skipped and counted as there, the same note for verdicts without a row, and the
 * same unattacked rule (`applyUnattackedRule`: `attacked` from the verdict, else from its row; `attacked` is always read),
 * and without the trajectories whose input is gone (`./removed-ids.ts`: neither row nor verdict, said once), nor the
 * verdicts made on another text than their row's now (`./stale-verdicts.ts`): the current verdict per trajectory,
 * judge and repeat is the last one made on the row's text now (or recording no hash); when there is none, none (left
 * out as missing, said once), and a newer one on another text supersedes nothing (a text changed A -> B -> A keeps
 * the verdict made on A).
 * @param runDir the run folder (`<labelsDir>/<run>`).
 */
export async function readColumnRun(runDir: string, o: ColumnRunOptions): Promise<ColumnRun> {
  const ids = new IdTable();
  // `attacked` is always read: the unattacked rule needs it for verdicts that do not carry it (the object readers'
  // answer, whatever fields the command asked for)
  const rowFields = o.rowFields.includes("attacked") ? o.rowFields : [...o.rowFields, "attacked"];
  const rowContent = new F64(); // per row slot: its content code (a verdict on other content is stale: ./stale-verdicts.ts)
  const { rowCode, rows } = await readRows(runDir, ids, rowFields, o.progress, o.onRow, rowContent);
  const nRows = ids.size;
  const omit = o.verdictOmit ?? ["usage", "cost_usd"];
  const codes = new Codes<Verdict>();
  const vSlot = new U32();
  const vCode = new U32();
  const vContent = new F64();
  const bySlot = new Map<string, Int32Array>(); // (judge, repeat) -> trajectory slot -> position + 1
  let superseded = 0;
  const relabelled: number[] = []; // positions of verdicts the unattacked rule relabelled
  // per verdict position: 1 when verified under older rules (./old-rules.ts), counted over the current ones once read: a
  // byte per verdict, not a position and a judge in two JS arrays (issue 26: a run labelled before a rules version
  // holds every verdict there, 32 MB of old-generation arrays at a million trajectories with two judges)
  const older = new IntColumn(0);
  const gone = removedIds(runDir);
  const check = verdictRecordCheck(path.join(runDir, "verdicts.jsonl"));
  for await (const line of lines(path.join(runDir, "verdicts.jsonl"), o.progress, NOT_VERDICT)) {
    const v = parseLine<Verdict>(line.text, (x) => check(x, line.at));
    if (!v) {
      if (line.text.trim()) line.skip();
      continue;
    }
    if (gone.has(v.trajectory_id)) continue; // its input is gone (./removed-ids.ts)
    const slot = ids.add(v.trajectory_id);
    const key = `${v.judge_id}\u0000${v.repeat}`;
    let at = bySlot.get(key);
    if (!at || slot >= at.length) {
      const grown = new Int32Array(Math.max(1024, ids.size * 2, at ? at.length * 2 : 0));
      if (at) grown.set(at);
      bySlot.set(key, (at = grown));
    }
    const c = contentCode(v.content_sha256);
    // made on another text than the row's now (two fixed-width codes compared; -1, no hash recorded, cannot be told
    // stale): not current, and it supersedes nothing; the key is marked stale only while no verdict on the text now
    // is seen (A -> B -> A: the older verdict on A stays current, ./stale-verdicts.ts)
    if (c !== -1 && slot < nRows && rowContent.a[slot] !== -1 && rowContent.a[slot] !== c) {
      if (at[slot] === 0) at[slot] = STALE_ONLY;
      continue;
    }
    if (at[slot] > 0) {
      vCode.a[at[slot] - 1] = DEAD; // keep file order = storage order of the last
      superseded++;
    }
    at[slot] = vSlot.n + 1;
    const r = applyUnattackedRule(v, v.attacked ?? (slot < nRows ? rows[rowCode[slot]].attacked : undefined));
    if (r.relabelled) relabelled.push(vSlot.n);
    if (verifiedUnderOlderRules(v)) older.set(vSlot.n, 1);
    const { trajectory_id: _id, ...rest } = slimVerdict(r.verdict) as unknown as Record<string, unknown>;
    for (const k of omit) delete rest[k];
    vSlot.push(slot);
    vCode.push(codes.code(rest as unknown as Verdict));
    vContent.push(c);
  }
  const stale = new StaleVerdicts();
  for (const [key, at] of bySlot) {
    const judge = key.slice(0, key.indexOf("\u0000"));
    for (let s = 0; s < at.length; s++) if (at[s] === STALE_ONLY) stale.add(judge, ids.id(s));
  }
  bySlot.clear();
  stale.note(runDir);
  noteUnattackedRelabels(runDir, relabelled.filter((i) => vCode.a[i] !== DEAD).length);
  const olderRules = new OlderRules(); // current verdicts verified under older rules (./old-rules.ts)
  for (let i = 0; i < vSlot.n; i++) if (vCode.a[i] !== DEAD && older.get(i) === 1) olderRules.count(codes.values[vCode.a[i]].judge_id);
  olderRules.note(runDir);
  let n = vSlot.n;
  if (superseded) {
    let j = 0;
    for (let i = 0; i < vSlot.n; i++) {
      if (vCode.a[i] === DEAD) continue;
      vSlot.a[j] = vSlot.a[i];
      vContent.a[j] = vContent.a[i];
      vCode.a[j++] = vCode.a[i];
    }
    n = j;
  }
  const run: ColumnRun = { ids, nRows, rowCode, rows, nVerdicts: n, vSlot: vSlot.a.slice(0, n), vCode: vCode.a.slice(0, n), verdicts: codes.values, vContent: vContent.a.slice(0, n) };
  noteVerdictsWithoutRow(runDir, orphans(run), () => false);
  return run;
}

/**
 * Only the index of a run as columns (no verdict read): the `ids`, `nRows`, `rowCode` and `rows` of
 * {@link readColumnRun}, for a command that reads no verdict (sample without a committee file).
 */
export async function readColumnIndex(runDir: string, o: Omit<ColumnRunOptions, "verdictOmit">): Promise<Pick<ColumnRun, "ids" | "nRows" | "rowCode" | "rows">> {
  const ids = new IdTable();
  const { rowCode, rows } = await readRows(runDir, ids, o.rowFields, o.progress, o.onRow);
  return { ids, nRows: ids.size, rowCode, rows };
}

/** The verdicts whose trajectory has no index row, in order, as `{ trajectory_id }` (for the journal note). */
function* orphans(run: ColumnRun): Generator<{ trajectory_id: string }> {
  for (let i = 0; i < run.nVerdicts; i++) if (run.vSlot[i] >= run.nRows) yield { trajectory_id: run.ids.id(run.vSlot[i]) };
}

/** The shared verdict records in order (no `trajectory_id`): what judge health and code-established figures read. */
export function verdictRecords(run: ColumnRun, keep?: (i: number, v: Verdict) => boolean): Verdict[] {
  return [...eachVerdictRecord(run, keep)];
}

/**
 * {@link verdictRecords} one at a time (no array of two million references for a one-pass reader), as an iterator
 * that hands back one result object updated at each step (what `for...of` and spread read at once and never keep):
 * not a generator's new `{ value, done }` per verdict, whose garbage reached the old generation at 1M (issue 26).
 */
export function eachVerdictRecord(run: ColumnRun, keep?: (i: number, v: Verdict) => boolean): IterableIterator<Verdict> {
  let i = 0;
  const step: { done: boolean; value: Verdict | undefined } = { done: false, value: undefined };
  const it: IterableIterator<Verdict> = {
    next(): IteratorResult<Verdict> {
      while (i < run.nVerdicts) {
        const k = i++;
        const v = run.verdicts[run.vCode[k]];
        if (!keep || keep(k, v)) {
          step.value = v;
          return step as IteratorResult<Verdict>;
        }
      }
      step.done = true;
      step.value = undefined;
      return step as IteratorResult<Verdict>;
    },
    [Symbol.iterator]: () => it,
  };
  return it;
}

/** The row projection of a trajectory slot (undefined for a slot without an index row). */
export function rowOf(run: ColumnRun, slot: number): Partial<TrajectoryIndexRow> | undefined {
  return slot < run.nRows ? run.rows[run.rowCode[slot]] : undefined;
}
