/**
 * What `ipi-judge view` keeps in memory about a run: one compact row per trajectory (index fields, each judge's
 * repeat-0 label and status, the committee's label, the benchmark's verdict, human labels, a lowercased search
 * text) and, per verdict, where its line sits in `verdicts.jsonl` so one trajectory's full verdicts are read back
 * on demand without keeping 40,000 verdicts (findings, quotes, raw replies) in memory.
 */
import fs from "node:fs";
import path from "node:path";
import type { Verdict } from "../types.js";
import { readTrajectoryIndex, type TrajectoryIndexRow } from "../store/run-store.js";
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
  /** Judge id -> where its current verdicts are (every repeat, repeat order). */
  refs: Record<string, LineRef[]>;
  /** Lowercased text the search box looks in: id, task ids, model, suite, attack, condition, rationales. */
  search: string;
}

/** A loaded run. */
export interface ViewRun {
  name: string;
  dir: string;
  rows: ViewRow[];
  byId: Map<string, ViewRow>;
  judges: string[];
  /** The index rows (source path, content hash) by id: the only way the view finds a trajectory's file. */
  index: Map<string, TrajectoryIndexRow>;
  /** Whether the committee column comes from a current `committee.jsonl`; why not otherwise. */
  committee: { source: "file"; judges: string[] } | { source: null; reason: string };
  warnings: string[];
}

const RATIONALE_SEARCH_CHARS = 400;

/**
 * Read `file` line by line with the byte offset of each line (UTF-8), calling `onLine` for each non-empty line.
 * Lines that are not JSON objects are passed to `onBad` with their 1-based number.
 */
export function scanJsonlLines(
  file: string,
  onLine: (value: Record<string, unknown>, ref: LineRef) => void,
  onBad?: (line: number) => void,
): void {
  if (!fs.existsSync(file)) return;
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
        if (typeof v === "object" && v !== null && !Array.isArray(v)) onLine(v, { start, length: buf.length });
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
    }
    if (carry.length) handle(carry, carryStart);
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

function baseRow(r: TrajectoryIndexRow): ViewRow {
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
    if (typeof v === "string" && v !== "") row[k] = v;
  }
  const ref = referenceOf(r);
  if (ref !== undefined) row.reference = ref;
  return row;
}

/**
 * Load a run folder for the view.
 * @param runDir `<labels-dir>/<run>` (must hold `verdicts.jsonl`).
 * @param opts.humanFile a human-label file (`import-annotations` output or any `agree --human` file).
 * @returns the rows in the index's order (trajectories with verdicts but no index row are added after, with
 *   a warning), the judges, the committee (only from a `committee.jsonl` that is current for these verdicts).
 * @throws HumanLabelsError for an unreadable human-label file.
 */
export function loadViewRun(runDir: string, opts: { name?: string; humanFile?: string } = {}): Promise<ViewRun> {
  return readTrajectoryIndex(runDir).then(async (index) => {
    const rows: ViewRow[] = [];
    const byId = new Map<string, ViewRow>();
    for (const r of index.values()) {
      const row = baseRow(r);
      rows.push(row);
      byId.set(row.id, row);
    }
    const warnings: string[] = [];
    const vfile = path.join(runDir, "verdicts.jsonl");
    // The current verdict per (trajectory, judge, repeat) is the last stored (store/run-store.ts readVerdicts).
    const current = new Map<string, { v: Verdict; ref: LineRef }>();
    let bad = 0;
    scanJsonlLines(
      vfile,
      (o, ref) => {
        if (typeof o.trajectory_id !== "string" || typeof o.judge_id !== "string" || !Number.isInteger(o.repeat)) return void bad++;
        const key = `${o.trajectory_id}\u0000${o.judge_id}\u0000${o.repeat}`;
        current.delete(key);
        current.set(key, { v: lean(o as unknown as Verdict), ref });
      },
      () => bad++,
    );
    if (bad) warnings.push(`${bad} line(s) of ${vfile} are not verdicts and were skipped`);
    const judges = new Set<string>();
    let orphans = 0;
    const slimForCheck: Verdict[] = [];
    for (const { v, ref } of current.values()) {
      judges.add(v.judge_id);
      let row = byId.get(v.trajectory_id);
      if (!row) {
        orphans++;
        row = { id: v.trajectory_id, attacked: v.attacked === true, labels: {}, status: {}, downgraded: [], unverified_quotes: 0, refs: {}, search: "" };
        if (v.agent_model) row.agent_model = v.agent_model;
        rows.push(row);
        byId.set(row.id, row);
      }
      (row.refs[v.judge_id] ??= []).push(ref);
      if (v.repeat !== 0) continue;
      slimForCheck.push(v);
      row.labels[v.judge_id] = v.label ?? null;
      row.status[v.judge_id] = v.status;
      if (v.downgraded) row.downgraded.push(v.judge_id);
      row.unverified_quotes += (v.findings ?? []).reduce((s, f) => s + (f.evidence ?? []).filter((q) => !q.verified).length, 0);
      if (v.rationale) row.search += ` ${String(v.rationale).slice(0, RATIONALE_SEARCH_CHARS)}`;
    }
    if (orphans) warnings.push(`${orphans} trajectories have verdicts but no row in trajectories.jsonl: shown without their model, suite or source`);
    for (const row of rows) {
      for (const refs of Object.values(row.refs)) refs.sort((a, b) => a.start - b.start);
      row.search = [row.id, row.agent_model, row.suite, row.condition, row.attack, row.user_task_id, row.injection_task_id, row.search]
        .filter(Boolean)
        .join(" ")
        .toLowerCase();
    }
    const committee = await loadCommittee(runDir, byId, slimForCheck, warnings);
    if (opts.humanFile) addHumanFile(opts.humanFile, byId, warnings);
    return { name: opts.name ?? path.basename(runDir), dir: runDir, rows, byId, judges: [...judges].sort(), index, committee, warnings };
  });
}

/** A verdict reduced to what the list needs (findings keep only bucket, holds and each quote's `verified`). */
function lean(v: Verdict): Verdict {
  return {
    trajectory_id: v.trajectory_id,
    judge_id: v.judge_id,
    repeat: v.repeat,
    status: v.status,
    label: v.label,
    downgraded: v.downgraded,
    attacked: v.attacked,
    agent_model: v.agent_model,
    rationale: typeof v.rationale === "string" ? v.rationale.slice(0, RATIONALE_SEARCH_CHARS) : "",
    findings: (Array.isArray(v.findings) ? v.findings : []).map((f) => ({
      bucket: f.bucket,
      holds: f.holds,
      evidence: (Array.isArray(f.evidence) ? f.evidence : []).map((q) => ({ verified: q?.verified === true })),
    })),
  } as unknown as Verdict;
}

async function loadCommittee(runDir: string, byId: Map<string, ViewRow>, verdicts: Verdict[], warnings: string[]): Promise<ViewRun["committee"]> {
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

function addHumanFile(file: string, byId: Map<string, ViewRow>, warnings: string[]): void {
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
