/**
 * What `ipi-judge view` keeps in memory about a run: one compact row per trajectory (index fields, each judge's
 * repeat-0 label and status, the committee's label, the benchmark's verdict, human labels, a lowercased search
 * text) and, per verdict, where its line sits in `verdicts.jsonl` so one trajectory's full verdicts are read back
 * on demand without keeping 40,000 verdicts (findings, quotes, raw replies) in memory.
 */
import fs from "node:fs";
import path from "node:path";
import type { Verdict } from "../types.js";
import { isIndexRecord, verdictRecordCheck, NOT_INDEX_ROW, NOT_VERDICT, type TrajectoryIndexRow } from "../store/records.js";
import { journalSkips, takeJournalWarnings } from "../store/skipped-lines.js";
import { noteRemovedLeftOut, removedIds } from "../store/removed-ids.js";
import { contentCode } from "../store/content-code.js";
import { StaleVerdicts } from "../store/stale-verdicts.js";
import type { ReadProgress } from "../store/lean-read.js";
import { ColumnRows, ROW_FIELDS, RowColumns, type RowList, type ViewRow } from "./row-columns.js";
import { checkCommitteeSlots, readCommitteeColumns } from "../committee/file-columns.js";
import { HumanLayers } from "./human-layers.js";
import { ScanHealth } from "./scan-health.js";
import type { JudgeHealth } from "../verdict/health.js";

/** Where one stored verdict's JSON line is in `verdicts.jsonl`: byte offset and length. */
export interface LineRef {
  start: number;
  length: number;
}

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
    // one buffer for the whole file: the unfinished line is moved to its front and the next chunk read after it
    // (a longer line grows it); no Buffer per chunk, which at 4.6 GB left hundreds of MB of freed-but-held memory
    let buf = Buffer.alloc(2 << 20);
    const CHUNK = 1 << 20;
    let carryLen = 0;
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
      if (carryLen + CHUNK > buf.length) {
        const grown = Buffer.alloc(Math.max(buf.length * 2, carryLen + CHUNK));
        buf.copy(grown, 0, 0, carryLen);
        buf = grown;
      }
      const n = fs.readSync(fd, buf, carryLen, CHUNK, pos);
      if (n === 0) break;
      const data = buf.subarray(0, carryLen + n);
      let from = 0;
      for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, from)) {
        handle(data.subarray(from, i), carryStart + from);
        from = i + 1;
      }
      carryStart += from;
      carryLen = data.length - from;
      buf.copy(buf, 0, from, data.length);
      pos += n;
      progress?.(pos, total, file);
    }
    if (carryLen) handle(buf.subarray(0, carryLen), carryStart);
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
  // skipped lines are named by file and line, as every reader of the journals does (store/skipped-lines.ts)
  const tskip = journalSkips(tfile, NOT_INDEX_ROW);
  // the trajectories whose input is gone are left out, as every reader of a run leaves them out (store/removed-ids.ts)
  const gone = removedIds(runDir);
  const rowContent: number[] = []; // per slot: its row's content code (a verdict on other content is left out)
  const health = new ScanHealth(); // the judges' health, counted in this one read (./scan-health.ts)
  const tlines = scanJsonlLines(tfile, (o, ref, line) => {
    if (!isIndexRecord(o)) return tskip.bad(line);
    const r = o as unknown as TrajectoryIndexRow;
    if (gone.has(r.id)) return;
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
    rowContent[s] = contentCode(r.content_sha256);
    health.row(s, r);
  }, tskip.bad, opts.progress);
  tskip.end(tlines);
  const nIndexed = cols.size;
  const warnings: string[] = [];
  const vfile = path.join(runDir, "verdicts.jsonl");
  // The current verdict per (trajectory, judge, repeat) is the last stored (store/run-store.ts readVerdicts): a
  // row with a superseded verdict, and a row without an index line, is recomputed from its current lines after.
  const judges = new Set<string>();
  // the current verdicts made on other content, by trajectory, judge and repeat (a later verdict supersedes one)
  const stale = new Map<string, { judge: string; id: string }>();
  const redo = new Set<number>();
  const vskip = journalSkips(vfile, NOT_VERDICT);
  const vcheck = verdictRecordCheck(vfile);
  const vlines = scanJsonlLines(
    vfile,
    (o, ref, line) => {
      // the store's own record check (a line every other command skips is not shown here either)
      if (!vcheck(o, line)) return vskip.bad(line);
      const v = o as unknown as Verdict;
      if (gone.has(v.trajectory_id)) return;
      judges.add(v.judge_id);
      const known = cols.ids.slotOf(v.trajectory_id);
      const c = contentCode(v.content_sha256);
      // made on another text than the row's now: left out, as every reader leaves it out (store/stale-verdicts.ts)
      const isStale = known !== -1 && known < nIndexed && c !== -1 && rowContent[known] !== -1 && rowContent[known] !== c;
      if (isStale || stale.size) {
        const k = `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`;
        stale.delete(k);
        // it supersedes nothing: a verdict on the text now stays current (A -> B -> A), and nothing is said of it
        if (isStale) {
          const jc = refStore.find(cols.refs[known], refStore.code(v.judge_id), v.repeat);
          if (jc === -1) stale.set(k, { judge: v.judge_id, id: v.trajectory_id });
          return;
        }
      }
      const { slot: s, added } = cols.slot(v.trajectory_id);
      if (added) redo.add(s); // an orphan: verdicts but no index row
      const jc = refStore.code(v.judge_id);
      const prev = refStore.find(cols.refs[s], jc, v.repeat);
      if (prev !== -1) {
        refStore.start[prev] = ref.start;
        refStore.length[prev] = ref.length;
        redo.add(s);
        health.superseded();
      } else {
        cols.refs[s] = refStore.add(cols.refs[s], ref, jc, v.repeat);
        health.add(v, s);
      }
      if (v.repeat === 0 && !redo.has(s)) applyRep0(cols, s, v);
    },
    vskip.bad,
    opts.progress,
  );
  vskip.end(vlines);
  let content = opts.keepContent ? Float64Array.from({ length: nIndexed }, (_, s) => rowContent[s] ?? -1) : undefined;
  rowContent.length = 0; // 8 bytes a row, held by the scan's closure while the view serves otherwise
  noteRemovedLeftOut(runDir, gone);
  const said = new StaleVerdicts();
  const staleByJudge: Record<string, number> = {};
  for (const x of stale.values()) {
    said.add(x.judge, x.id);
    staleByJudge[x.judge] = (staleByJudge[x.judge] ?? 0) + 1;
  }
  said.note(runDir);
  // the page and the command's start-up lines show them (taken here, so the command does not repeat them at exit)
  warnings.push(...takeJournalWarnings());
  for (const s of redo) recompute(cols, s, refStore, vfile, s >= nIndexed);
  // orphans in the order of their first current verdict (as they were added before: storage order)
  const orphans: number[] = [];
  for (let s = nIndexed; s < cols.size; s++) orphans.push(s);
  const first = orphans.map((s) => firstStart(refStore, cols.refs[s]));
  const tail = orphans.map((s, i) => [s, first[i]] as const).sort((x, y) => x[1] - y[1]).map((x) => x[0]);
  if (orphans.length) warnings.push(orphansWarning(orphans.length));
  const rows = new ColumnRows(cols, nIndexed, tail);
  const slotOf = (id: string) => cols.ids.slotOf(id);
  const byId: ViewRun["byId"] = {
    get: (id) => {
      const s = slotOf(id);
      return s === -1 ? undefined : cols.row(s);
    },
    has: (id) => slotOf(id) !== -1,
  };
  const committee = await loadCommittee(runDir, cols, nIndexed, warnings);
  const index = new IndexByOffset(tfile, cols);
  const counted = health.result();
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
    judges: [...judges].sort(),
    ids: cols.ids,
    takeContentCodes: () => {
      const c = content;
      content = undefined;
      return c;
    },
    index,
    stale: staleByJudge,
    health: counted,
    committee,
    warnings,
  };
}

/** The load's warning for `n` trajectories with verdicts but no index row (the main run's and the other run's). */
export function orphansWarning(n: number): string {
  return `${n} trajectories have verdicts but no row in trajectories.jsonl: shown without their model, suite or source`;
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
async function loadCommittee(runDir: string, cols: RowColumns, nIndexed: number, warnings: string[]): Promise<ViewRun["committee"]> {
  const cf = await readCommitteeColumns(runDir, cols);
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
