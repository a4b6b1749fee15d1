/**
 * The one read of a run's journals behind both of the view's loaders: the run shown (`loadViewRun`, ./run-data.ts)
 * and the other run of `view --other` (`loadOtherRun`, ./other-run.ts). The rules of which lines count live here
 * once, so the two loaders cannot drift apart: each gives a {@link RunScanSink} that keeps what it holds of a row
 * and of a verdict, and the scan decides which index rows and verdicts are current.
 *
 * The rules, in this order (those of `readVerdicts`, ../store/records.ts, with the same words):
 * - lines that are not index rows or verdict records are skipped and named by file and line
 *   (../store/skipped-lines.ts; the verdicts' record check is the store's own `verdictRecordCheck`);
 * - trajectories whose input is gone are left out (../store/removed-ids.ts);
 * - a later index row of an id replaces the earlier (the loader keeps it in the earlier one's place);
 * - a verdict made on another text than its trajectory's index row now (content hashes differ) is left out and,
 *   when its trajectory, judge and repeat has no current verdict, counted per judge as stale
 *   (../store/stale-verdicts.ts); it replaces nothing (a verdict on the text now stays current: A -> B -> A);
 * - otherwise a verdict is current, replacing an earlier current verdict of the same trajectory, judge and repeat;
 * - a trajectory with verdicts but no index row is an orphan (the loaders' warning, `orphansWarning`);
 * - the judges' health is counted over the current verdicts as they come (./scan-health.ts), in file order; a
 *   replaced verdict drops the tally (`health` undefined: the loaders count it again, ./judge-health.ts).
 */
import path from "node:path";
import type { Verdict } from "../types.js";
import { isIndexRecord, verdictRecordCheck, NOT_INDEX_ROW, NOT_VERDICT, type TrajectoryIndexRow } from "../store/records.js";
import { journalSkips, takeJournalWarnings } from "../store/skipped-lines.js";
import { noteRemovedLeftOut, removedIds } from "../store/removed-ids.js";
import { contentCode } from "../store/content-code.js";
import { StaleVerdicts } from "../store/stale-verdicts.js";
import type { ReadProgress } from "../store/lean-read.js";
import type { JudgeHealth } from "../verdict/health.js";
import { ScanHealth } from "./scan-health.js";
import { scanJsonlLines, type LineRef } from "./jsonl-lines.js";

/** What a loader keeps of a run while {@link scanRun} reads it; the slots are the loader's own numbers. */
export interface RunScanSink {
  /** Keep a current index row (a later row of the same id replaces the earlier one): its slot. */
  indexRow(r: TrajectoryIndexRow, ref: LineRef): number;
  /** The slot of an id, -1 when none (a slot an id has no row of in this run may be given: its content is unknown). */
  slotOf(id: string): number;
  /** Whether slot `s` holds a current verdict of `judge` at `repeat` (asked of a stale verdict's trajectory). */
  has(s: number, judge: string, repeat: number): boolean;
  /** The slot of a current verdict's trajectory (made when new); `orphan` when first seen without an index row. */
  verdictSlot(id: string): { slot: number; orphan: boolean };
  /** Keep a current verdict at slot `s`; true when it replaced one of the same judge and repeat there. */
  keep(s: number, v: Verdict, ref: LineRef): boolean;
}

/** What the scan says of a run besides what its sink kept. */
export interface RunScan {
  /** Every judge with a verdict read (a stale one too), sorted. */
  judges: string[];
  /** The skipped lines' warnings (taken from the journal notes, so the command does not repeat them at exit), then the orphans'. */
  warnings: string[];
  /** Per judge, its verdicts left out as made on an older text of their trajectory. */
  stale: Record<string, number>;
  /** The judges' health over the current verdicts in file order; undefined when a verdict was replaced. */
  health: JudgeHealth[] | undefined;
  /** How many trajectories have verdicts but no index row. */
  orphans: number;
  /** With `keepContent`: per slot up to the last index row's, its index row's content code (-1: none). */
  content?: Float64Array;
}

/** Per slot: its index row's content code, -1 when none (grown as slots come). */
class ContentCodes {
  private codes = new Float64Array(1024).fill(-1);
  set(s: number, code: number): void {
    if (s >= this.codes.length) {
      const grown = new Float64Array(Math.max(s + 1, this.codes.length * 2)).fill(-1);
      grown.set(this.codes);
      this.codes = grown;
    }
    this.codes[s] = code;
  }
  get(s: number): number {
    return s >= 0 && s < this.codes.length ? this.codes[s] : -1;
  }
  /** The codes of slots 0..n-1 (-1: none), a copy of their own. */
  first(n: number): Float64Array {
    const out = new Float64Array(n).fill(-1);
    out.set(this.codes.subarray(0, Math.min(n, this.codes.length)));
    return out;
  }
}

/**
 * Read a run's `trajectories.jsonl`, then its `verdicts.jsonl`, with the rules of the module docstring, into `sink`.
 * The per-row state of the read (content codes, health codes: 12 bytes a row) is let go when it returns.
 * @param runDir `<labels-dir>/<run>`; a missing journal reads as empty. @param progress the reads' progress lines.
 * @param keepContent also return the index rows' content codes per slot (`view --other` compares texts with them).
 * @returns judges, warnings, stale counts, health and the orphans' count ({@link RunScan}).
 * @throws what reading the files throws (unreadable, not a file).
 */
export function scanRun(runDir: string, sink: RunScanSink, progress?: ReadProgress, keepContent = false): RunScan {
  const tfile = path.join(runDir, "trajectories.jsonl");
  const tskip = journalSkips(tfile, NOT_INDEX_ROW);
  const gone = removedIds(runDir);
  const content = new ContentCodes();
  let rowSlots = 0; // one past the last index row's slot
  const health = new ScanHealth();
  const tlines = scanJsonlLines(tfile, (o, ref, line) => {
    if (!isIndexRecord(o)) return tskip.bad(line);
    const r = o as unknown as TrajectoryIndexRow;
    if (gone.has(r.id)) return;
    const s = sink.indexRow(r, ref);
    content.set(s, contentCode(r.content_sha256));
    if (s >= rowSlots) rowSlots = s + 1;
    health.row(s, r);
  }, tskip.bad, progress);
  tskip.end(tlines);
  const vfile = path.join(runDir, "verdicts.jsonl");
  const judges = new Set<string>();
  // the stale verdicts' keys (trajectory, judge, repeat) with no current verdict: a later current one removes its key
  const stale = new Map<string, { judge: string; id: string }>();
  let orphans = 0;
  const vskip = journalSkips(vfile, NOT_VERDICT);
  const vcheck = verdictRecordCheck(vfile);
  const vlines = scanJsonlLines(
    vfile,
    (o, ref, line) => {
      if (!vcheck(o, line)) return vskip.bad(line);
      const v = o as unknown as Verdict;
      if (gone.has(v.trajectory_id)) return;
      judges.add(v.judge_id);
      const known = sink.slotOf(v.trajectory_id);
      const now = known === -1 ? -1 : content.get(known);
      const c = contentCode(v.content_sha256);
      const isStale = c !== -1 && now !== -1 && now !== c;
      if (isStale || stale.size) {
        const k = `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`;
        stale.delete(k);
        if (isStale) {
          if (!sink.has(known, v.judge_id, v.repeat)) stale.set(k, { judge: v.judge_id, id: v.trajectory_id });
          return;
        }
      }
      const { slot: s, orphan } = sink.verdictSlot(v.trajectory_id);
      if (orphan) orphans++;
      if (sink.keep(s, v, ref)) health.superseded();
      else health.add(v, s);
    },
    vskip.bad,
    progress,
  );
  vskip.end(vlines);
  noteRemovedLeftOut(runDir, gone);
  const said = new StaleVerdicts();
  const staleByJudge: Record<string, number> = {};
  for (const x of stale.values()) {
    said.add(x.judge, x.id);
    staleByJudge[x.judge] = (staleByJudge[x.judge] ?? 0) + 1;
  }
  said.note(runDir);
  const warnings = takeJournalWarnings();
  if (orphans) warnings.push(orphansWarning(orphans));
  return { judges: [...judges].sort(), warnings, stale: staleByJudge, health: health.result(), orphans, ...(keepContent ? { content: content.first(rowSlots) } : {}) };
}

/** The load's warning for `n` trajectories with verdicts but no row in trajectories.jsonl (both loaders'). */
export function orphansWarning(n: number): string {
  return `${n} trajectories have verdicts but no row in trajectories.jsonl: shown without their model, suite or source`;
}
