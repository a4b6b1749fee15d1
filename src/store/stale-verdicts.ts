/**
 * Verdicts made on another text than their trajectory's now (docs/label.md: "A verdict belongs to the content it judged:
 * one made on other content ... is judged again"). When a trajectory changes, `label` re-judges the verdicts of the
 * judges it runs; another judge's verdicts keep the old `content_sha256` while the index row holds the new one.
 * Every reader of a run's figures (`./columns.ts`, `./lean-read.ts`) leaves such a verdict out, as if missing (not
 * judged on the current content), and notes here, per run folder, each judge, its count and first items, said once
 * per command with the other run-level notes (`./skipped-lines.ts`). A verdict or a row that records no hash
 * (older versions) cannot be told stale and is kept.
 */
import path from "node:path";
import { markRunLevelSaid, noteRunLevel, runLevelNote } from "./skipped-lines.js";

/** How many trajectory ids the note names per judge. */
const SHOWN = 3;

/** The stale verdicts one read found, by judge (count and first ids), noted with {@link StaleVerdicts.note}. */
export class StaleVerdicts {
  private readonly byJudge = new Map<string, { count: number; ids: string[] }>();

  /** Count one stale verdict of `judge` on trajectory `id`. */
  add(judge: string, id: string): void {
    let e = this.byJudge.get(judge);
    if (!e) this.byJudge.set(judge, (e = { count: 0, ids: [] }));
    e.count++;
    if (e.ids.length < SHOWN && !e.ids.includes(id)) e.ids.push(id);
  }

  /** How many stale verdicts were counted. */
  get size(): number {
    let n = 0;
    for (const e of this.byJudge.values()) n += e.count;
    return n;
  }

  /** Record (or, with none counted, drop) the run's note: the one warning of the command (module docstring). */
  note(runDir: string): void {
    noteRunLevel(staleKey(runDir), this.size ? staleText(runDir, this.byJudge) : undefined);
  }
}

const staleKey = (runDir: string) => `stale-content\u0000${path.resolve(runDir)}`;

/**
 * The run's note as recorded by the last read (undefined when none), taken as said: for an output that carries it
 * among its own warnings (label's summary and `summary.json`), so the command does not say it twice at exit.
 */
export function takeStaleNote(runDir: string): string | undefined {
  const text = runLevelNote(staleKey(runDir));
  if (text !== undefined) markRunLevelSaid(staleKey(runDir), text);
  return text;
}

/** The warning: each judge with its count and first items, and the fix (label again with that judge). */
function staleText(runDir: string, byJudge: ReadonlyMap<string, { count: number; ids: string[] }>): string {
  const judges = [...byJudge].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const n = judges.reduce((s, [, e]) => s + e.count, 0);
  const each = judges
    .map(([j, e]) => `judge ${JSON.stringify(j)}: ${e.count} (${e.ids.map((i) => JSON.stringify(i)).join(", ")}${e.count > e.ids.length ? ", ..." : ""})`)
    .join("; ");
  return (
    `${path.join(path.resolve(runDir), "verdicts.jsonl")}: ${n} verdict${n === 1 ? " was" : "s were"} made on an older text of ${n === 1 ? "its trajectory" : "their trajectories"} ` +
    `(the verdict's content_sha256 is not the index row's now): left out of every figure, as not judged on the current content; ${each}. ` +
    `To count them, label again with ${judges.length === 1 ? "that judge" : "those judges"} (--judges naming ${judges.length === 1 ? "it" : "them"}): ${n === 1 ? "it is" : "they are"} judged again`
  );
}
