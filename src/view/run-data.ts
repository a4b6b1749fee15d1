/**
 * What `ipi-judge view` keeps in memory about a run: one compact row per trajectory (index fields, each judge's
 * repeat-0 label and status, the committee's label, the benchmark's verdict, human labels, a lowercased search
 * text) and, per verdict, where its line sits in `verdicts.jsonl` so one trajectory's full verdicts are read back
 * on demand without keeping 40,000 verdicts (findings, quotes, raw replies) in memory.
 */
import fs from "node:fs";
import path from "node:path";
import type { Verdict } from "../types.js";
import { isIndexRecord, isVerdictRecord, NOT_INDEX_ROW, NOT_VERDICT, type TrajectoryIndexRow } from "../store/records.js";
import { journalSkips, takeJournalWarnings } from "../store/skipped-lines.js";
import { Interner, type ReadProgress } from "../store/lean-read.js";
import { checkCommitteeFile, readCommitteeFile } from "../committee/file.js";
import { readHumanLabels } from "../agree/human.js";

/** Where one stored verdict's JSON line is in `verdicts.jsonl`: byte offset and length. */
export interface LineRef {
  start: number;
  length: number;
}

/** One trajectory of a run, as the list shows and filters it. */
export interface ViewRow {
  id: string;
  agent_model?: string;
  suite?: string;
  condition?: string;
  attack?: string;
  surface?: string;
  user_task_id?: string;
  injection_task_id?: string;
  attacked: boolean;
  /** The benchmark's `security` where it means something (attacked, no run error); undefined elsewhere. */
  reference?: boolean;
  /** Judge id -> repeat-0 label (null: no label, see `status`). A judge without a verdict is absent. */
  labels: Record<string, string | null>;
  /** Judge id -> repeat-0 status. */
  status: Record<string, string>;
  /** Judges whose repeat-0 verdict was downgraded. */
  downgraded: string[];
  /** Quotes of the repeat-0 verdicts that did not verify. */
  unverified_quotes: number;
  committee?: { label: string | null; status: string };
  /** Annotator -> label (from `--human` and the sample's annotation files). */
  humans?: Record<string, string>;
  /** Where this row's current verdicts are: the first entry of its chain in the run's {@link RefStore} (-1: none);
   * {@link refsOf} reads them back per judge. A number, not per-row arrays of objects (~200 B a row at 1M). */
  refs: number;
  /** The rationales of the repeat-0 verdicts (each ` ` + its first 400 characters): the search box looks in
   * {@link searchText}, these with the id, task ids, model, suite, attack and condition, lowercased. */
  search: string;
}

/** A loaded run. */
export interface ViewRun {
  name: string;
  dir: string;
  rows: ViewRow[];
  byId: Pick<ReadonlyMap<string, ViewRow>, "get" | "has">;
  /** The verdict lines of every row (see {@link ViewRow.refs}). */
  refStore: RefStore;
  judges: string[];
  /**
   * The index rows (source path, content hash) by id: the only way the view finds a trajectory's file. A loaded
   * run reads each back from disk by offset (not held in memory).
   */
  index: Pick<ReadonlyMap<string, TrajectoryIndexRow>, "get" | "has">;
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

/** The byte start of a row's first current verdict line (Infinity: none). */
function firstStart(st: RefStore, row: ViewRow): number {
  let m = Infinity;
  for (let i = row.refs; i !== -1; i = st.next[i]) if (st.start[i] < m) m = st.start[i];
  return m;
}

/**
 * Read `file` line by line with the byte offset of each line (UTF-8), calling `onLine` for each non-empty line
 * (with its 1-based number). Lines that are not JSON objects are passed to `onBad` with their 1-based number.
 * @returns the number of lines read (0 when the file does not exist).
 */
export function scanJsonlLines(
  file: string,
  onLine: (value: Record<string, unknown>, ref: LineRef, line: number) => void,
  onBad?: (line: number) => void,
  progress?: ReadProgress,
): number {
  if (!fs.existsSync(file)) return 0;
  const total = progress ? fs.statSync(file).size : 0;
  const fd = fs.openSync(file, "r");
  try {
    const chunk = Buffer.alloc(1 << 20);
    let carry = Buffer.alloc(0);
    let carryStart = 0;
    let pos = 0;
    let lineNo = 0;
    const handle = (buf: Buffer, start: number) => {
      lineNo++;
      const text = buf.toString("utf8").replace(/\r$/, "");
      if (!text.trim()) return;
      try {
        const v = JSON.parse(text);
        if (typeof v === "object" && v !== null && !Array.isArray(v)) onLine(v, { start, length: buf.length }, lineNo);
        else onBad?.(lineNo);
      } catch {
        onBad?.(lineNo);
      }
    };
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : Buffer.from(chunk.subarray(0, n));
      let from = 0;
      for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, from)) {
        handle(data.subarray(from, i), carryStart + from);
        from = i + 1;
      }
      carryStart += from;
      carry = Buffer.from(data.subarray(from));
      pos += n;
      progress?.(pos, total, file);
    }
    if (carry.length) handle(carry, carryStart);
    return lineNo;
  } finally {
    fs.closeSync(fd);
  }
}

/** Read one stored line back (a {@link LineRef} from {@link scanJsonlLines}). */
export function readLine<T>(file: string, ref: LineRef): T {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(ref.length);
    fs.readSync(fd, buf, 0, ref.length, ref.start);
    return JSON.parse(buf.toString("utf8")) as T;
  } finally {
    fs.closeSync(fd);
  }
}

/** The benchmark's verdict where it means something (DESIGN section 3): attacked runs without a run error. */
export function referenceOf(row: TrajectoryIndexRow): boolean | undefined {
  if (!row.attacked || row.run_error) return undefined;
  return typeof row.reference?.security === "boolean" ? row.reference.security : undefined;
}

/**
 * A new row with every field declared up front, in the order the page's JSON has them (the fields a row lacks are
 * `undefined`, which JSON leaves out): one object shape for every row, its fields inside the object (no separate
 * property store per row, ~40 B a row at 1M).
 */
function newRow(id: string, attacked: boolean, it: Interner): ViewRow {
  return {
    id,
    attacked,
    labels: it.o({}),
    status: it.o({}),
    downgraded: it.o([]),
    unverified_quotes: 0,
    refs: -1,
    search: "",
    agent_model: undefined,
    suite: undefined,
    condition: undefined,
    attack: undefined,
    surface: undefined,
    user_task_id: undefined,
    injection_task_id: undefined,
    reference: undefined,
    committee: undefined,
    humans: undefined,
  };
}

function baseRow(r: TrajectoryIndexRow, it: Interner): ViewRow {
  const row = newRow(r.id, r.attacked === true, it);
  for (const k of ["agent_model", "suite", "condition", "attack", "surface", "user_task_id", "injection_task_id"] as const) {
    const v = r[k];
    if (typeof v === "string" && v !== "") row[k] = it.s(v);
  }
  const ref = referenceOf(r);
  if (ref !== undefined) row.reference = ref;
  return row;
}

/** The index rows of a loaded run, read back by id from `trajectories.jsonl` (the latest row of each id). */
class IndexByOffset {
  constructor(
    private readonly file: string,
    private readonly at: Map<string, number>,
    /** Positions at or past this are rows without an index line (orphans). */
    private readonly nIndexed: number,
    private readonly starts: number[],
    private readonly lengths: number[],
  ) {}
  /** The full stored row of `id` (source, content hash...), or undefined when the run has none. */
  get(id: string): TrajectoryIndexRow | undefined {
    const i = this.at.get(id);
    return i === undefined || i >= this.nIndexed ? undefined : readLine<TrajectoryIndexRow>(this.file, { start: this.starts[i], length: this.lengths[i] });
  }
  has(id: string): boolean {
    const i = this.at.get(id);
    return i !== undefined && i < this.nIndexed;
  }
  get size(): number {
    return this.nIndexed;
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
 * Apply one current repeat-0 verdict to its row (label, status, downgraded, unverified quotes, rationale). The
 * `labels`, `status` and `downgraded` values are shared between rows (interned, replaced, never written into).
 */
function applyRep0(row: ViewRow, v: Verdict, it: Interner): void {
  row.labels = it.o({ ...row.labels, [v.judge_id]: it.s(v.label ?? null) });
  row.status = it.o({ ...row.status, [v.judge_id]: it.s(v.status) });
  if (v.downgraded) row.downgraded = it.o([...row.downgraded, it.s(v.judge_id)]);
  row.unverified_quotes += (Array.isArray(v.findings) ? v.findings : []).reduce((s, f) => s + (Array.isArray(f?.evidence) ? f.evidence : []).filter((q) => q?.verified !== true).length, 0);
  if (v.rationale) row.search = it.s(`${row.search} ${String(v.rationale).slice(0, RATIONALE_SEARCH_CHARS)}`);
}

/**
 * Load a run folder for the view, streamed and compact: one row per trajectory with shared strings; per verdict
 * only where its line is; the index rows stay on disk (`index.get(id)` reads one back by offset); the search text
 * is built when a search runs ({@link searchText}).
 * @param runDir `<labels-dir>/<run>` (must hold `verdicts.jsonl`).
 * @param opts.humanFile a human-label file (`import-annotations` output or any `agree --human` file).
 * @returns the rows in the index's order (trajectories with verdicts but no index row are added after, with
 *   a warning), the judges, the committee (only from a `committee.jsonl` that is current for these verdicts).
 * @throws HumanLabelsError for an unreadable human-label file.
 */
export async function loadViewRun(runDir: string, opts: { name?: string; humanFile?: string; progress?: ReadProgress } = {}): Promise<ViewRun> {
  const it = new Interner();
  const rows: ViewRow[] = [];
  // id -> position in `rows` (index rows first, orphans after): the one map by id (byId reads through it)
  const at = new Map<string, number>();
  const refStore = new RefStore();
  const starts: number[] = [];
  const lengths: number[] = [];
  const tfile = path.join(runDir, "trajectories.jsonl");
  // skipped lines are named by file and line, as every reader of the journals does (store/skipped-lines.ts)
  const tskip = journalSkips(tfile, NOT_INDEX_ROW);
  const tlines = scanJsonlLines(tfile, (o, ref, line) => {
    if (!isIndexRecord(o)) return tskip.bad(line);
    const row = baseRow(o as unknown as TrajectoryIndexRow, it);
    const i = at.get(row.id);
    if (i === undefined) {
      at.set(row.id, rows.length);
      rows.push(row);
      starts.push(ref.start);
      lengths.push(ref.length);
    } else {
      // a later row of an id supersedes the earlier one, in the earlier one's place (readTrajectoryIndex)
      rows[i] = row;
      starts[i] = ref.start;
      lengths[i] = ref.length;
    }
  }, tskip.bad, opts.progress);
  const nIndexed = rows.length;
  const orphanById = new Map<string, ViewRow>();
  tskip.end(tlines);
  const warnings: string[] = [];
  const vfile = path.join(runDir, "verdicts.jsonl");
  // The current verdict per (trajectory, judge, repeat) is the last stored (store/run-store.ts readVerdicts): a
  // row with a superseded verdict, and a row without an index line, is recomputed from its current lines after.
  const judges = new Set<string>();
  const redo = new Set<ViewRow>();
  const orphans: ViewRow[] = [];
  const vskip = journalSkips(vfile, NOT_VERDICT);
  const vlines = scanJsonlLines(
    vfile,
    (o, ref, line) => {
      // the store's own record check (a line every other command skips is not shown here either)
      if (!isVerdictRecord(o)) return vskip.bad(line);
      const v = o as unknown as Verdict;
      const j = it.s(v.judge_id);
      judges.add(j);
      const p = at.get(v.trajectory_id);
      let row = p === undefined ? orphanById.get(v.trajectory_id) : rows[p];
      if (!row) {
        row = newRow(v.trajectory_id, false, it);
        orphans.push(row);
        orphanById.set(row.id, row);
        redo.add(row);
      }
      const jc = refStore.code(j);
      const prev = refStore.find(row.refs, jc, v.repeat);
      if (prev !== -1) {
        refStore.start[prev] = ref.start;
        refStore.length[prev] = ref.length;
        redo.add(row);
      } else row.refs = refStore.add(row.refs, ref, jc, v.repeat);
      if (v.repeat === 0 && !redo.has(row)) applyRep0(row, v, it);
    },
    vskip.bad,
    opts.progress,
  );
  vskip.end(vlines);
  // the page and the command's start-up lines show them (taken here, so the command does not repeat them at exit)
  warnings.push(...takeJournalWarnings());
  const orphanSet = new Set(orphans);
  for (const row of redo) recompute(row, refStore, vfile, it, orphanSet.has(row));
  // orphans in the order of their first current verdict (as they were added before: storage order)
  for (const row of orphans.sort((a, b) => firstStart(refStore, a) - firstStart(refStore, b))) {
    at.set(row.id, rows.length);
    rows.push(row);
  }
  orphanById.clear();
  if (orphans.length) warnings.push(`${orphans.length} trajectories have verdicts but no row in trajectories.jsonl: shown without their model, suite or source`);
  const byId: ViewRun["byId"] = {
    get: (id) => {
      const i = at.get(id);
      return i === undefined ? undefined : rows[i];
    },
    has: (id) => at.has(id),
  };
  const committee = await loadCommittee(runDir, byId, rep0Of(rows), warnings);
  if (opts.humanFile) addHumanFile(opts.humanFile, byId, warnings);
  const index = new IndexByOffset(tfile, at, nIndexed, starts, lengths);
  return { name: opts.name ?? path.basename(runDir), dir: runDir, rows, byId, refStore, judges: [...judges].sort(), index, committee, warnings };
}

/**
 * Recompute a row's verdict fields from its current lines, in storage order (a row with a superseded verdict, or
 * an orphan: its `attacked` and model from its first current verdict).
 */
function recompute(row: ViewRow, st: RefStore, vfile: string, it: Interner, orphan: boolean): void {
  const cur = Object.values(refsOf({ refStore: st }, row))
    .flat()
    .sort((a, b) => a.start - b.start);
  row.labels = it.o({});
  row.status = it.o({});
  row.downgraded = it.o([]);
  row.unverified_quotes = 0;
  row.search = "";
  cur.forEach((ref, i) => {
    const v = readLine<Verdict>(vfile, ref);
    if (orphan && i === 0) {
      row.attacked = v.attacked === true;
      if (v.agent_model) row.agent_model = it.s(v.agent_model);
    }
    if (v.repeat === 0) applyRep0(row, v, it);
  });
}

/** The repeat-0 votes of the rows as the committee file check reads them (trajectory, judge, status, label). */
function rep0Of(rows: readonly ViewRow[]): Verdict[] {
  const out: Verdict[] = [];
  for (const row of rows)
    for (const j of Object.keys(row.status)) out.push({ trajectory_id: row.id, judge_id: j, repeat: 0, status: row.status[j], label: row.labels[j] ?? null } as unknown as Verdict);
  return out;
}

async function loadCommittee(runDir: string, byId: ViewRun["byId"], verdicts: Verdict[], warnings: string[]): Promise<ViewRun["committee"]> {
  const cf = await readCommitteeFile(runDir);
  if (!cf) return { source: null, reason: "the run has no committee.jsonl (ipi-judge committee writes it)" };
  const check = checkCommitteeFile(cf, verdicts);
  if (check.stale.length) {
    const reason = `committee.jsonl is stale, not shown: ${check.stale.join("; ")} (run ipi-judge committee again)`;
    warnings.push(reason);
    return { source: null, reason };
  }
  for (const c of cf.verdicts) {
    const row = byId.get(c.trajectory_id);
    if (row) row.committee = { label: c.label ?? null, status: c.status };
  }
  return { source: "file", judges: cf.judges };
}

function addHumanFile(file: string, byId: ViewRun["byId"], warnings: string[]): void {
  const h = readHumanLabels(file);
  let unknown = 0;
  for (const r of h.rows) {
    const row = byId.get(r.trajectory_id);
    if (!row) {
      unknown++;
      continue;
    }
    (row.humans ??= {})[r.annotator] = r.label;
  }
  if (h.bad_rows.length) warnings.push(`${path.basename(file)}: ${h.bad_rows.length} row(s) could not be read (first: line ${h.bad_rows[0].line}: ${h.bad_rows[0].message})`);
  if (unknown) warnings.push(`${path.basename(file)}: ${unknown} human label(s) name trajectories that are not in this run`);
}
