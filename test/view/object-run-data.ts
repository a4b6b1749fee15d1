/**
 * The object-built loader of `ipi-judge view` as it was before the rows' verdict lines moved into typed columns
 * (src/view/run-data.ts at 396b323, imports adjusted; its line reader is the program's, src/view/jsonl-lines.ts, which
 * test/view/units.test.ts checks on its own): the reference test/view/run-data.test.ts checks the compact loader
 * against. Not used by the program.
 *
 * What `ipi-judge view` keeps in memory about a run: one compact row per trajectory (index fields, each judge's
 * repeat-0 label and status, the committee's label, the benchmark's verdict, human labels, a lowercased search
 * text) and, per verdict, where its line sits in `verdicts.jsonl` so one trajectory's full verdicts are read back
 * on demand without keeping 40,000 verdicts (findings, quotes, raw replies) in memory.
 */
import fs from "node:fs";
import path from "node:path";
import type { Verdict } from "../../src/types.js";
import { isIndexRecord, verdictRecordCheck, NOT_INDEX_ROW, NOT_VERDICT, type TrajectoryIndexRow } from "../../src/store/records.js";
import { journalSkips, takeJournalWarnings } from "../../src/store/skipped-lines.js";
import { Interner, type ReadProgress } from "../../src/store/lean-read.js";
import { checkCommitteeFile, readCommitteeFile } from "../../src/committee/file.js";
import { readHumanLabels } from "../../src/agree/human.js";
import { checkLabelPairing } from "../../src/agree/label-pairing.js";
import { readLine, scanJsonlLines, type LineRef } from "../../src/view/jsonl-lines.js";

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
  /** Judge id -> where its current verdicts are (every repeat, repeat order). */
  refs: Record<string, LineRef[]>;
  /** The rationales of the repeat-0 verdicts (each ` ` + its first 400 characters): the search box looks in
   * {@link searchText}, these with the id, task ids, model, suite, attack and condition, lowercased. */
  search: string;
}

/** A loaded run. */
export interface ViewRun {
  name: string;
  dir: string;
  rows: ViewRow[];
  byId: Map<string, ViewRow>;
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

/** The benchmark's verdict where it means something (DESIGN section 3): attacked runs without a run error. */
export function referenceOf(row: TrajectoryIndexRow): boolean | undefined {
  if (!row.attacked || row.run_error) return undefined;
  return typeof row.reference?.security === "boolean" ? row.reference.security : undefined;
}

function baseRow(r: TrajectoryIndexRow, it: Interner): ViewRow {
  const row: ViewRow = {
    id: r.id,
    attacked: r.attacked === true,
    labels: {},
    status: {},
    downgraded: [],
    unverified_quotes: 0,
    refs: {},
    search: "",
  };
  for (const k of ["agent_model", "suite", "condition", "attack", "surface", "user_task_id", "injection_task_id"] as const) {
    const v = r[k];
    if (typeof v === "string" && v !== "") row[k] = it.s(v);
  }
  const ref = referenceOf(r);
  if (ref !== undefined) row.reference = ref;
  return row;
}

/** A verdict's line and its repeat (which current verdict of a judge it is). */
type RepRef = LineRef & { repeat: number };

/** The index rows of a loaded run, read back by id from `trajectories.jsonl` (the latest row of each id). */
class IndexByOffset {
  constructor(
    private readonly file: string,
    private readonly at: Map<string, number>,
    private readonly starts: number[],
    private readonly lengths: number[],
  ) {}
  /** The full stored row of `id` (source, content hash...), or undefined when the run has none. */
  get(id: string): TrajectoryIndexRow | undefined {
    const i = this.at.get(id);
    return i === undefined ? undefined : readLine<TrajectoryIndexRow>(this.file, { start: this.starts[i], length: this.lengths[i] });
  }
  has(id: string): boolean {
    return this.at.has(id);
  }
  get size(): number {
    return this.at.size;
  }
}

/**
 * The text the search box looks in, lowercased: id, task ids, model, suite, attack, condition and the rationales of
 * the repeat-0 verdicts (the first 400 characters of each). Built when a search runs, not kept per row.
 */
export function searchText(row: ViewRow): string {
  return [row.id, row.agent_model, row.suite, row.condition, row.attack, row.user_task_id, row.injection_task_id, row.search].filter(Boolean).join(" ").toLowerCase();
}

/** Apply one current repeat-0 verdict to its row (label, status, downgraded, unverified quotes, rationale). */
function applyRep0(row: ViewRow, v: Verdict, it: Interner): void {
  row.labels[v.judge_id] = it.s(v.label ?? null);
  row.status[v.judge_id] = it.s(v.status);
  if (v.downgraded) row.downgraded.push(it.s(v.judge_id));
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
  const byId = new Map<string, ViewRow>();
  const at = new Map<string, number>();
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
    byId.set(row.id, row);
  }, tskip.bad, opts.progress);
  tskip.end(tlines);
  const warnings: string[] = [];
  const vfile = path.join(runDir, "verdicts.jsonl");
  // The current verdict per (trajectory, judge, repeat) is the last stored (store/run-store.ts readVerdicts): a
  // row with a superseded verdict, and a row without an index line, is recomputed from its current lines after.
  const judges = new Set<string>();
  const redo = new Set<ViewRow>();
  const orphans: ViewRow[] = [];
  const vskip = journalSkips(vfile, NOT_VERDICT);
  const vcheck = verdictRecordCheck(vfile);
  const vlines = scanJsonlLines(
    vfile,
    (o, ref, line) => {
      // the store's own record check (a line every other command skips is not shown here either)
      if (!vcheck(o, line)) return vskip.bad(line);
      const v = o as unknown as Verdict;
      const j = it.s(v.judge_id);
      judges.add(j);
      let row = byId.get(v.trajectory_id);
      if (!row) {
        row = { id: v.trajectory_id, attacked: false, labels: {}, status: {}, downgraded: [], unverified_quotes: 0, refs: {}, search: "" };
        orphans.push(row);
        byId.set(row.id, row);
        redo.add(row);
      }
      const refs = (row.refs[j] ??= []) as RepRef[];
      const prev = refs.find((r) => r.repeat === v.repeat);
      if (prev) {
        prev.start = ref.start;
        prev.length = ref.length;
        redo.add(row);
      } else refs.push({ start: ref.start, length: ref.length, repeat: v.repeat });
      if (v.repeat === 0 && !redo.has(row)) applyRep0(row, v, it);
    },
    vskip.bad,
    opts.progress,
  );
  vskip.end(vlines);
  // the page and the command's start-up lines show them (taken here, so the command does not repeat them at exit)
  warnings.push(...takeJournalWarnings());
  const orphanSet = new Set(orphans);
  for (const row of redo) recompute(row, vfile, it, orphanSet.has(row));
  // orphans in the order of their first current verdict (as they were added before: storage order)
  const firstRef = (r: ViewRow) => Math.min(...Object.values(r.refs).flatMap((x) => x.map((y) => y.start)));
  rows.push(...orphans.sort((a, b) => firstRef(a) - firstRef(b)));
  if (orphans.length) warnings.push(`${orphans.length} trajectories have verdicts but no row in trajectories.jsonl: shown without their model, suite or source`);
  for (const row of rows) for (const refs of Object.values(row.refs)) refs.sort((a, b) => a.start - b.start);
  const orphanIds = new Set(orphans.map((r) => r.id));
  const committee = await loadCommittee(runDir, byId, rep0Of(rows), { has: (id) => !orphanIds.has(id) }, warnings);
  const index = new IndexByOffset(tfile, at, starts, lengths);
  if (opts.humanFile) addHumanFile(opts.humanFile, byId, index, warnings);
  return { name: opts.name ?? path.basename(runDir), dir: runDir, rows, byId, judges: [...judges].sort(), index, committee, warnings };
}

/**
 * Recompute a row's verdict fields from its current lines, in storage order (a row with a superseded verdict, or
 * an orphan: its `attacked` and model from its first current verdict).
 */
function recompute(row: ViewRow, vfile: string, it: Interner, orphan: boolean): void {
  const cur = Object.values(row.refs)
    .flat()
    .sort((a, b) => a.start - b.start);
  row.labels = {};
  row.status = {};
  row.downgraded = [];
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

async function loadCommittee(runDir: string, byId: Map<string, ViewRow>, verdicts: Verdict[], index: { has(id: string): boolean }, warnings: string[]): Promise<ViewRun["committee"]> {
  const cf = await readCommitteeFile(runDir);
  if (!cf) return { source: null, reason: "the run has no committee.jsonl (ipi-judge committee writes it)" };
  const check = checkCommitteeFile(cf, verdicts, index); // the orphans (no index row) are not looked for
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

function addHumanFile(file: string, byId: Map<string, ViewRow>, index: IndexByOffset, warnings: string[]): void {
  const contentOf = (id: string) => (index.has(id) ? index.get(id)?.content_sha256 : null);
  const h = checkLabelPairing(readHumanLabels(file), path.basename(file), contentOf, warnings, "their labels are not shown").file;
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
