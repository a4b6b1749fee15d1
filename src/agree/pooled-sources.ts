/**
 * Where the runs a run-wide figure pools were read from: their input format (`source.format`) and source folder (the
 * row's `run_folder`, the folder holding an AgentDojo-layout model folder; else the recorded input of `store.json`
 * whose path holds the file). `agree --run both --reference security` gave one kappa (0.920) over AgentDojo's and
 * AgentDyn's checkers, labelled into one run from two folders, and its pooling line named models and conditions but
 * nothing that told the two benchmarks apart (new user 33). When the runs come from more than one folder or format, a
 * warning names each with its runs and suites, and how to get one figure per input.
 */
import { Codes } from "../store/codes.js";
import path from "node:path";
import { showControls } from "../format/shown.js";

/** Words every pooled-sources warning holds (how tests and outputs find it). */
export const POOLED_SOURCES_MARK = "pool runs read from several";

/** One index row as {@link SourceFold} reads it. */
export interface SourceRow {
  source?: { format?: string; path?: string };
  run_folder?: string;
  suite?: string;
}

const SHOWN = 4;
const cut = (xs: readonly string[]) => (xs.length <= SHOWN ? xs.join(", ") : `${xs.slice(0, SHOWN).join(", ")}, ... ${xs.length - SHOWN} more`);

/** Counts rows per (format, source folder, suite); the key of a row can be kept and counted later (last row per id wins). */
export class SourceFold {
  private readonly counts = new Map<string, number>();
  private readonly inputs: string[];
  /** the distinct keys {@link keyCode} numbered */
  private readonly codes = new Codes<string>();

  /** @param inputs the run's recorded inputs (`store.json` `inputs`), resolved against the current folder. */
  constructor(inputs: readonly string[] = []) {
    this.inputs = inputs.map((p) => path.resolve(p)).sort((a, b) => b.length - a.length); // the deepest input first
  }

  /** The key of a row: format, folder (`(unknown)` when neither `run_folder` nor an input holds it), suite. */
  key(r: SourceRow): string {
    const file = typeof r.source?.path === "string" ? path.resolve(r.source.path) : undefined;
    const input = file === undefined ? undefined : this.inputs.find((i) => file === i || file.startsWith(i + path.sep));
    const folder = typeof r.run_folder === "string" ? r.run_folder : (input ?? "(unknown)");
    return [r.source?.format ?? "(unknown)", folder, r.suite ?? "(none)"].join("\u0000");
  }

  /**
   * The {@link key} of a row as a small integer (the same code for the same key, numbered from 0 in order of first
   * appearance): what a caller keeps per trajectory instead of the key string (issue 26: a ~48-character string per
   * row was ~9 MB at 100k, ~90 MB at a million, of `agree --reference`'s live heap); {@link keyOfCode} gives it back.
   */
  keyCode(r: SourceRow): number {
    return this.codes.code(this.key(r));
  }

  /** The key a {@link keyCode} stands for (throws on a code it never gave). */
  keyOfCode(code: number): string {
    const k = this.codes.values[code];
    if (k === undefined) throw new Error(`no source key has code ${code}`);
    return k;
  }

  /** Count `n` rows of a {@link key}. */
  addKey(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  /** Count one row. */
  add(r: SourceRow): void {
    this.addKey(this.key(r));
  }

  /**
   * The warning when the counted rows come from several formats or source folders, else null.
   * @param what the figures' name ("the figures").
   * @param counted what the counted rows are, named before the per-folder counts (new user 44 item 9b: `runs_base:
   *   322` here beside label's `runs_base 351`, all the runs, read as a contradiction), after their total, e.g. "runs
   *   compared, attacked with a benchmark security verdict and no agent error"; absent: the counts say "runs" only.
   */
  warning(what: string, counted?: string): string | null {
    const folders = new Map<string, { n: number; suites: Set<string>; formats: Set<string> }>();
    const formats = new Map<string, number>();
    for (const [k, n] of this.counts) {
      const [format, folder, suite] = k.split("\u0000");
      const f = folders.get(folder) ?? folders.set(folder, { n: 0, suites: new Set(), formats: new Set() }).get(folder)!;
      f.n += n;
      f.suites.add(suite);
      f.formats.add(format);
      formats.set(format, (formats.get(format) ?? 0) + n);
    }
    if (folders.size < 2 && formats.size < 2) return null;
    const parts: string[] = [];
    if (folders.size > 1) {
      const list = [...folders].sort(([a], [b]) => a.localeCompare(b)).map(([d, f]) => `${d}: ${f.n} runs, ${f.suites.size} suite${f.suites.size === 1 ? "" : "s"} (${cut([...f.suites].sort())})`);
      const total = [...folders.values()].reduce((a, f) => a + f.n, 0);
      parts.push(`${folders.size} source folders (${counted ? `${total} ${counted}; ` : ""}${list.join("; ")})`);
    }
    if (formats.size > 1) parts.push(`${formats.size} input formats (${[...formats].sort(([a], [b]) => a.localeCompare(b)).map(([f, n]) => `${f} ${n}`).join(", ")})`);
    // one figure per folder: by suite when no suite is in two folders (different benchmarks name their suites apart)
    const suiteSets = [...folders.values()].map((f) => f.suites);
    const disjoint = suiteSets.every((s, i) => suiteSets.every((t, j) => i === j || [...s].every((x) => !t.has(x))));
    const [first, f1] = [...folders].sort(([a], [b]) => a.localeCompare(b))[0];
    const narrow =
      folders.size > 1 && disjoint
        ? `--where suite=${[...f1.suites].sort().join(",")} keeps those of ${first} only (one figure per folder: each folder's suites above)`
        : "label each input as a run of its own for one figure per input";
    return showControls(
      `${what} ${POOLED_SOURCES_MARK} inputs: ${parts.join(" and ")}: possibly different benchmarks, whose checkers and tasks differ, and one figure over them mixes them; ${narrow}`,
    );
  }
}
