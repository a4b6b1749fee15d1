/**
 * What `ipi-judge view` keeps in memory about a run: one compact row per trajectory (index fields, each judge's
 * repeat-0 label and status, the committee's label, the benchmark's verdict, human labels, a lowercased search
 * text) and, per verdict, where its line sits in `verdicts.jsonl` so one trajectory's full verdicts are read back
 * on demand without keeping 40,000 verdicts (findings, quotes, raw replies) in memory.
 */
import path from "node:path";
import type { Verdict } from "../types.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { ReadProgress } from "../store/lean-read.js";
import { ColumnRows, ROW_FIELDS, RowColumns, type RowList, type ViewRow } from "./row-columns.js";
import { checkCommitteeSlots, readCommitteeColumns } from "../committee/file-columns.js";
import { HumanLayers } from "./human-layers.js";
import type { JudgeHealth } from "../verdict/health.js";
import { readLine, type LineRef } from "./jsonl-lines.js";
import { scanRun, type RunScanSink } from "./run-scan.js";

export { readLine, scanJsonlLines, type LineRef } from "./jsonl-lines.js";
export type { ViewRow } from "./row-columns.js";

/** A loaded run. */
export interface ViewRun {
  name: string;
  dir: string;
  /** The rows in list order, each built when read (./row-columns.ts); an array of rows fits too. */
  rows: RowList;
  /** The row of an id, built when read (changing it changes nothing: {@link ViewRun.addHumans} does). */
  byId: Pick<ReadonlyMap<string, ViewRow>, "get" | "has">;
  /** Merge annotator labels into a row's human labels (unknown ids are ignored). */
  addHumans?: (id: string, labels: Record<string, string>) => void;
  /** Replace the sample's annotator labels of every row (by trajectory id): the annotator files read again. */
  setSampleHumans?: (byTrajectory: ReadonlyMap<string, Record<string, string>>) => void;
  /** Read the `--human` file again if it changed since its last read (./human-layers.ts); true when it was. */
  refreshHumanFile?: () => boolean;
  /** The verdict lines of every row (see {@link ViewRow.refs}). */
  refStore: RefStore;
  judges: string[];
  /**
   * The index rows (source path, content hash) by id: the only way the view finds a trajectory's file. A loaded
   * run reads each back from disk by offset (not held in memory).
   */
  index: Pick<ReadonlyMap<string, TrajectoryIndexRow>, "get" | "has">;
  /** Per judge, its verdicts left out as made on an older text of their trajectory (../store/stale-verdicts.ts). */
  stale?: Record<string, number>;
  /**
   * The judges' health over the current verdicts, counted while the load read them (./scan-health.ts); absent when a
   * verdict was superseded during the read (./judge-health.ts counts them again then).
   */
  health?: JudgeHealth[];
  /** The rows' id table (a loaded run's): the other run of `view --other` shares its slots (./other-run.ts). */
  ids?: { slotOf(id: string): number; readonly size: number };
  /**
   * With `loadViewRun`'s `keepContent`: the index rows' content codes per slot (`../store/content-code.ts`, -1: none),
   * given once and then let go (8 bytes a row): `view --other` compares the other run's texts with them.
   */
  takeContentCodes?: () => Float64Array | undefined;
  /** Whether the committee column comes from a current `committee.jsonl`; why not otherwise. */
  committee: { source: "file"; judges: string[] } | { source: null; reason: string };
  warnings: string[];
}

const RATIONALE_SEARCH_CHARS = 400;

/**
 * The line of every current verdict of a loaded run, as typed columns: byte start (Float64: files past 4 GB),
 * length, judge (code into `judges`), repeat, and the next entry of the same row (a chain per row, -1 ends it).
 * ~22 bytes a verdict instead of an object and its share of two arrays and a record per row.
 */
export class RefStore {
  start = new Float64Array(1024);
  length = new Uint32Array(1024);
  judge = new Uint16Array(1024);
  repeat = new Int32Array(1024);
  next = new Int32Array(1024);
  n = 0;
  /** Judge ids by code. */
  readonly judges: string[] = [];
  private readonly judgeCode = new Map<string, number>();
  /** The code of a judge id (added on first sight). @throws RangeError past 65,535 judges. */
  code(judgeId: string): number {
    let c = this.judgeCode.get(judgeId);
    if (c === undefined) {
      c = this.judges.length;
      if (c > 0xffff) throw new RangeError("more than 65,535 judges in one run");
      this.judges.push(judgeId);
      this.judgeCode.set(judgeId, c);
    }
    return c;
  }
  /** Add a line at the front of a chain whose head is `head`; returns the new head. */
  add(head: number, ref: LineRef, judge: number, repeat: number): number {
    if (this.n === this.start.length) this.grow();
    const i = this.n++;
    this.start[i] = ref.start;
    this.length[i] = ref.length;
    this.judge[i] = judge;
    this.repeat[i] = repeat;
    this.next[i] = head;
    return i;
  }
  /** The entry of the chain from `head` with this judge and repeat, or -1. */
  find(head: number, judge: number, repeat: number): number {
    for (let i = head; i !== -1; i = this.next[i]) if (this.judge[i] === judge && this.repeat[i] === repeat) return i;
    return -1;
  }
  private grow(): void {
    const cap = this.start.length * 2;
    const g = <T extends Float64Array | Uint32Array | Uint16Array | Int32Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(cap);
      b.set(a);
      return b;
    };
    this.start = g(this.start, Float64Array);
    this.length = g(this.length, Uint32Array);
    this.judge = g(this.judge, Uint16Array);
    this.repeat = g(this.repeat, Int32Array);
    this.next = g(this.next, Int32Array);
  }
}

/**
 * A row's current verdict lines by judge id (keys in first-stored order), each judge's in storage (byte) order:
 * what the per-row `refs` record held before the lines moved into the {@link RefStore}.
 */
export function refsOf(run: Pick<ViewRun, "refStore">, row: ViewRow): Record<string, LineRef[]> {
  const st = run.refStore;
  const idx: number[] = [];
  for (let i = row.refs; i !== -1; i = st.next[i]) idx.push(i);
  idx.sort((a, b) => st.start[a] - st.start[b]);
  const out: Record<string, LineRef[]> = {};
  for (const i of idx) (out[st.judges[st.judge[i]]] ??= []).push({ start: st.start[i], length: st.length[i] });
  return out;
}

/** The byte start of the first line of a chain (Infinity: none). */
function firstStart(st: RefStore, head: number): number {
  let m = Infinity;
  for (let i = head; i !== -1; i = st.next[i]) if (st.start[i] < m) m = st.start[i];
  return m;
}

/** The benchmark's verdict where it means something (DESIGN section 3): attacked runs without a run error. */
export function referenceOf(row: TrajectoryIndexRow): boolean | undefined {
  if (!row.attacked || row.run_error) return undefined;
  return typeof row.reference?.security === "boolean" ? row.reference.security : undefined;
}

/** The index rows of a loaded run, read back by id from `trajectories.jsonl` (the latest row of each id). */
class IndexByOffset {
  constructor(
    private readonly file: string,
    private readonly cols: RowColumns,
  ) {}
  private slot(id: string): number {
    const s = this.cols.ids.slotOf(id);
    return s !== -1 && this.cols.lineStart[s] >= 0 ? s : -1;
  }
  /** The full stored row of `id` (source, content hash...), or undefined when the run has none. */
  get(id: string): TrajectoryIndexRow | undefined {
    const s = this.slot(id);
    return s === -1 ? undefined : readLine<TrajectoryIndexRow>(this.file, { start: this.cols.lineStart[s], length: this.cols.lineLength[s] });
  }
  has(id: string): boolean {
    return this.slot(id) !== -1;
  }
}

/**
 * The text the search box looks in, lowercased: id, task ids, model, suite, attack, condition and the rationales of
 * the repeat-0 verdicts (the first 400 characters of each). Built when a search runs, not kept per row.
 */
export function searchText(row: ViewRow): string {
  return [row.id, row.agent_model, row.suite, row.condition, row.attack, row.user_task_id, row.injection_task_id, row.search].filter(Boolean).join(" ").toLowerCase();
}

/**
 * Apply one current repeat-0 verdict to its row's columns (label, status, downgraded, unverified quotes,
 * rationale). The `labels`, `status` and `downgraded` values are shared between rows (coded, never written into).
 */
function applyRep0(c: RowColumns, s: number, v: Verdict): void {
  c.labels[s] = c.objects.code({ ...c.obj<Record<string, string | null>>(c.labels[s]), [v.judge_id]: v.label ?? null });
  c.status[s] = c.objects.code({ ...c.obj<Record<string, string>>(c.status[s]), [v.judge_id]: v.status });
  if (v.downgraded) c.downgraded[s] = c.objects.code([...c.obj<string[]>(c.downgraded[s]), v.judge_id]);
  c.unverified[s] += (Array.isArray(v.findings) ? v.findings : []).reduce((n, f) => n + (Array.isArray(f?.evidence) ? f.evidence : []).filter((q) => q?.verified !== true).length, 0);
  if (v.rationale) c.search[s] = c.strings.code(`${c.strings.values[c.search[s]]} ${String(v.rationale).slice(0, RATIONALE_SEARCH_CHARS)}`);
}

/**
 * What `loadViewRun` keeps of a run as the scan reads it (./run-scan.ts): an index row's fields into the row
 * columns, a current verdict's line into the {@link RefStore} chain of its row and, while its row has no replaced
 * verdict, its repeat-0 label into the row's columns; `redo` gets the rows recomputed after the read.
 */
function viewRunSink(cols: RowColumns, refStore: RefStore, redo: Set<number>): RunScanSink {
  return {
    indexRow: (r, ref) => {
      // a later row of an id supersedes the earlier one, in the earlier one's place (readTrajectoryIndex)
      const { slot: s, added } = cols.slot(r.id);
      if (!added) cols.clear(s);
      cols.attacked[s] = r.attacked === true ? 1 : 0;
      for (const k of ROW_FIELDS) {
        const v = r[k];
        if (typeof v === "string" && v !== "") cols.setField(s, k, v);
      }
      const rf = referenceOf(r);
      if (rf !== undefined) cols.reference[s] = rf ? 1 : 0;
      cols.lineStart[s] = ref.start;
      cols.lineLength[s] = ref.length;
      return s;
    },
    slotOf: (id) => cols.ids.slotOf(id),
    has: (s, judge, repeat) => refStore.find(cols.refs[s], refStore.code(judge), repeat) !== -1,
    verdictSlot: (id) => {
      const { slot, added } = cols.slot(id);
      if (added) redo.add(slot); // an orphan: verdicts but no index row
      return { slot, orphan: added };
    },
    keep: (s, v, ref) => {
      const jc = refStore.code(v.judge_id);
      const prev = refStore.find(cols.refs[s], jc, v.repeat);
      if (prev !== -1) {
        refStore.start[prev] = ref.start;
        refStore.length[prev] = ref.length;
        redo.add(s);
      } else cols.refs[s] = refStore.add(cols.refs[s], ref, jc, v.repeat);
      if (v.repeat === 0 && !redo.has(s)) applyRep0(cols, s, v);
      return prev !== -1;
    },
  };
}

/**
 * Load a run folder for the view, streamed and as columns (./row-columns.ts): per trajectory codes and numbers in
 * typed arrays, the id once in an id table; per verdict only where its line is (a {@link RefStore} chain); the
 * index rows stay on disk (`index.get(id)` reads one back by offset); a row object is built when a request reads
 * it; the search text is built when a search runs ({@link searchText}).
 * @param runDir `<labels-dir>/<run>` (must hold `verdicts.jsonl`).
 * @param opts.humanFile a human-label file (`import-annotations` output or any `agree --human` file).
 * @param opts.keepContent keep the index rows' content codes for one `takeContentCodes()` (`view --other`).
 * @returns the rows in the index's order (trajectories with verdicts but no index row are added after, with
 *   a warning), the judges, the committee (only from a `committee.jsonl` that is current for these verdicts).
 * @throws HumanLabelsError for an unreadable human-label file.
 */
export async function loadViewRun(
  runDir: string,
  opts: { name?: string; humanFile?: string; progress?: ReadProgress; keepContent?: boolean } = {},
): Promise<ViewRun> {
  const cols = new RowColumns();
  const refStore = new RefStore();
  const tfile = path.join(runDir, "trajectories.jsonl");
  const vfile = path.join(runDir, "verdicts.jsonl");
  // the rows with a replaced verdict, and the orphans (verdicts but no index row): recomputed from their current
  // lines after the read (the current verdict per trajectory, judge and repeat is the last stored)
  const redo = new Set<number>();
  // read in one function the other run's loader shares (./run-scan.ts): which lines count is said there once
  const scan = scanRun(runDir, viewRunSink(cols, refStore, redo), opts.progress, opts.keepContent === true);
  const nIndexed = cols.size - scan.orphans;
  let content = scan.content;
  scan.content = undefined;
  const warnings = scan.warnings;
  for (const s of redo) recompute(cols, s, refStore, vfile, s >= nIndexed);
  // orphans in the order of their first current verdict (as they were added before: storage order)
  const orphans: number[] = [];
  for (let s = nIndexed; s < cols.size; s++) orphans.push(s);
  const first = orphans.map((s) => firstStart(refStore, cols.refs[s]));
  const tail = orphans.map((s, i) => [s, first[i]] as const).sort((x, y) => x[1] - y[1]).map((x) => x[0]);
  const rows = new ColumnRows(cols, nIndexed, tail);
  const slotOf = (id: string) => cols.ids.slotOf(id);
  const byId: ViewRun["byId"] = {
    get: (id) => {
      const s = slotOf(id);
      return s === -1 ? undefined : cols.row(s);
    },
    has: (id) => slotOf(id) !== -1,
  };
  const committee = await loadCommittee(runDir, cols, nIndexed, warnings, opts.progress);
  const index = new IndexByOffset(tfile, cols);
  // the --human file's labels and the sample's, each read again when its file changes (./human-layers.ts)
  const humans = new HumanLayers(cols, index, warnings, opts.humanFile);
  return {
    name: opts.name ?? path.basename(runDir),
    dir: runDir,
    rows,
    byId,
    refStore,
    addHumans: (id, labels) => humans.addSample(id, labels),
    setSampleHumans: (by) => humans.setSample(by),
    refreshHumanFile: () => humans.refreshFile(),
    judges: scan.judges,
    ids: cols.ids,
    takeContentCodes: () => {
      const c = content;
      content = undefined;
      return c;
    },
    index,
    stale: scan.stale,
    health: scan.health,
    committee,
    warnings,
  };
}

/** Why a run's committee column is not shown: its file's staleness problems (`checkCommitteeSlots`). */
export function staleCommitteeReason(stale: readonly string[]): string {
  return `committee.jsonl is stale, not shown: ${stale.join("; ")} (run ipi-judge committee again)`;
}

/**
 * Recompute a row's verdict columns from its current lines, in storage order (a row with a superseded verdict, or
 * an orphan: its `attacked` and model from its first current verdict).
 */
function recompute(c: RowColumns, s: number, st: RefStore, vfile: string, orphan: boolean): void {
  const cur = Object.values(refsOf({ refStore: st }, { refs: c.refs[s] } as ViewRow))
    .flat()
    .sort((a, b) => a.start - b.start);
  c.labels[s] = c.objects.code({});
  c.status[s] = c.labels[s];
  c.downgraded[s] = c.objects.code([]);
  c.unverified[s] = 0;
  c.search[s] = c.strings.code("");
  cur.forEach((ref, i) => {
    const v = readLine<Verdict>(vfile, ref);
    if (orphan && i === 0) {
      c.attacked[s] = v.attacked === true ? 1 : 0;
      if (v.agent_model) c.setField(s, "agent_model", v.agent_model);
    }
    if (v.repeat === 0) applyRep0(c, s, v);
  });
}

/**
 * The run's committee file, read as columns against the rows' id table and checked against the rows' repeat-0
 * votes (`checkCommitteeFile`'s rules and messages, `checkCommitteeSlots`), without an object per line or per vote.
 */
async function loadCommittee(runDir: string, cols: RowColumns, nIndexed: number, warnings: string[], progress?: ReadProgress): Promise<ViewRun["committee"]> {
  const cf = await readCommitteeColumns(runDir, cols, progress);
  if (!cf) return { source: null, reason: "the run has no committee.jsonl (ipi-judge committee writes it)" };
  // the rows' repeat-0 votes: a row's status and labels are shared records (one per combination), read in place
  const statusOf = (s: number) => cols.obj<Record<string, string>>(cols.status[s]);
  const judges = new Set<string>();
  const seen = new Set<number>();
  for (let s = 0; s < cols.size; s++) {
    if (seen.has(cols.status[s])) continue;
    seen.add(cols.status[s]);
    for (const j of Object.keys(statusOf(s))) judges.add(j);
  }
  const check = checkCommitteeSlots(cf, cols.size, [...judges], {
    rows: nIndexed, // the orphans after them have no index row: committee writes no line of theirs
    has: (j, s) => Object.hasOwn(statusOf(s), j),
    vote: (j, s) => {
      if (s < 0 || !Object.hasOwn(statusOf(s), j)) return null;
      const label = cols.obj<Record<string, string | null>>(cols.labels[s])[j] ?? null;
      return statusOf(s)[j] === "ok" && label ? label : null;
    },
  });
  if (check.stale.length) {
    const reason = staleCommitteeReason(check.stale);
    warnings.push(reason);
    return { source: null, reason };
  }
  for (let i = 0; i < cf.n; i++) {
    const s = cf.slot[i];
    const c = cf.rows[cf.code[i]];
    if (s !== -1) cols.committee[s] = cols.objects.code({ label: c.label ?? null, status: c.status });
  }
  return { source: "file", judges: cf.judges };
}
