/**
 * The judges' health counted while `loadViewRun` reads `verdicts.jsonl` (./run-data.ts), so the view's first page that
 * shows it (`/api/meta`, `/api/item`) does not read every verdict a second time (recover42: at 1M trajectories the
 * second read, 4.8 GB of verdicts, took 164 s on the first trajectory opened).
 *
 * Nothing is computed a second way: each verdict the load keeps as current is counted with `addVerdict` and the
 * figures are finished with `withFlags`, as `judgeHealth` does (../verdict/health.ts), with its trajectory's index row
 * as `rowOf` gives it (only the fields `addVerdict` reads: `attacked`, `attack`, `run_error`, `reference.security`).
 * The verdicts are counted in the file's order (as `committee` and `compare` count them), so the first items a note
 * names are the first in the file.
 *
 * A verdict counted is final only while no later line replaces it: when a later verdict of the same trajectory, judge
 * and repeat supersedes one ({@link ScanHealth.superseded}), the tally is dropped and the view counts its current
 * verdicts again after the load (./judge-health.ts), in the same order: the file order of the current lines, a
 * replaced verdict where its replacing line stands (as `report` and `committee` read them, ../store/columns.ts).
 */
import type { JudgeHealth } from "../verdict/health.js";
import { addVerdict, emptyHealth, withFlags } from "../verdict/health.js";
import type { ReferenceRow } from "../verdict/reference-goal.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { Verdict } from "../types.js";

/** The judge health of a run, tallied during its load (module docstring). */
export class ScanHealth {
  private by: Map<string, JudgeHealth> | null = new Map();
  /** Per row slot: a code into `shapes` (the few distinct reference rows), -1: no index row (4 bytes a slot). */
  private rowCode = new Int32Array(1024).fill(-1);
  private readonly shapes: ReferenceRow[] = [];
  private readonly codeOf = new Map<string, number>();

  /** Note the index row of `slot` (a later row of the same id replaces the earlier). */
  row(slot: number, r: TrajectoryIndexRow): void {
    const security = (r.reference as { security?: unknown } | undefined)?.security;
    const shape: ReferenceRow = {
      attacked: r.attacked,
      attack: typeof r.attack === "string" ? r.attack : undefined,
      run_error: r.run_error ? true : undefined,
      reference: typeof security === "boolean" ? { security } : undefined,
    };
    const key = JSON.stringify([shape.attacked ?? null, shape.attack ?? null, shape.run_error ?? null, typeof security === "boolean" ? security : null]);
    let c = this.codeOf.get(key);
    if (c === undefined) {
      c = this.shapes.push(shape) - 1;
      this.codeOf.set(key, c);
    }
    if (slot >= this.rowCode.length) {
      const grown = new Int32Array(Math.max(slot + 1, this.rowCode.length * 2)).fill(-1);
      grown.set(this.rowCode);
      this.rowCode = grown;
    }
    this.rowCode[slot] = c;
  }

  /** Count a verdict the load keeps as current; `slot` is its row's (-1 or a slot without an index row: no row). */
  add(v: Verdict, slot: number): void {
    if (!this.by) return;
    let h = this.by.get(v.judge_id);
    if (!h) this.by.set(v.judge_id, (h = emptyHealth(v.judge_id, v.judge_model)));
    const c = slot >= 0 && slot < this.rowCode.length ? this.rowCode[slot] : -1;
    const row = c < 0 ? undefined : this.shapes[c];
    addVerdict(h, v, v.attacked !== undefined ? undefined : row?.attacked, row);
  }

  /** A counted verdict was replaced by a later line: the tally no longer holds (module docstring). */
  superseded(): void {
    this.by = null;
  }

  /**
   * The figures in judge id order, flags set; undefined when the tally was dropped. The tally is then over: the
   * per-row codes are let go (4 bytes a row; the view's loaders keep their scan's closures alive while they serve).
   */
  result(): JudgeHealth[] | undefined {
    this.rowCode = new Int32Array(0);
    if (!this.by) return undefined;
    return [...this.by.values()].sort((a, b) => a.judge_id.localeCompare(b.judge_id)).map((h) => withFlags(h));
  }
}
