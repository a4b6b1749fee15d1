/**
 * The same trajectory counted under two ids, said by every figure command (red team 39: `label` warned `same_content`
 * but `compare`, `agree`, `estimate`, `report`, `committee`, `sample` and `view` printed the doubled n, gemini 150
 * attacked runs instead of 75, with no warning). `label` finds it at the end of each invocation (`../run/same-content.ts`,
 * over the run's trajectories less those whose input is gone) and records it here, in the run folder's
 * `same-content.json` (deleted when there is none); every reader of a run's stored verdicts or index rows says it once
 * per command, as a run-level note (`./skipped-lines.ts`: on stderr, and among `--json` warnings), through
 * `noteRemovedLeftOut` (`./removed-ids.ts`), which each of them calls. Nothing is left out: which copy to keep is the
 * user's choice (two real runs can be equal); the figures keep exit code 0, loud, not silent.
 *
 * Format: `{ "version": 1, "recorded_at": ISO, "count", "extra", "groups", "pairs": [...], "folders": [...] }`. A file
 * that cannot be read as that is itself said (the figures may then count a trajectory twice, unsaid otherwise).
 */
import fs from "node:fs";
import path from "node:path";
import { noteRunLevel } from "./skipped-lines.js";

/** The file in a run folder that holds the finding. */
export const SAME_CONTENT_FILE = "same-content.json";

/** What `same-content.json` holds (and `sameContentFinding` returns, with its text). */
export interface SameContentRecord {
  /** label's warning, as it said it */
  text?: string;
  /** trajectories that share their content with another of the same cell */
  count: number;
  /** of them, how many are counted more than once (all but one per group) */
  extra: number;
  /** groups of equal content */
  groups: number;
  /** the first pairs, `"id" (file) = "id" (file)` */
  pairs: string[];
  /** where the ids of each pair part (folders or files), a few */
  folders: string[];
  /** of `extra`, how many are epochs of one Inspect sample (real runs, not copies); absent when none */
  epochs?: number;
  /**
   * byte-identical input files under other ids in other cells (../run/copies-across-cells.ts; break50): `count` found
   * among `checked` of `candidates` pairs of equal content in different cells (a lower bound when checked < candidates),
   * the first pairs named. Absent when none (and in records written before it).
   */
  copies?: { count: number; checked: number; candidates: number; pairs: string[] };
}

/**
 * Write (or, for none, delete) a run's `same-content.json`, atomically.
 * @throws the file system's error when it cannot be written (the caller says it).
 */
export function writeSameContent(runDir: string, r: SameContentRecord | undefined): void {
  const file = path.join(runDir, SAME_CONTENT_FILE);
  if (!r || (r.extra === 0 && !r.copies?.count)) return void fs.rmSync(file, { force: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const { count, extra, groups, pairs, folders, copies, epochs } = r;
  fs.writeFileSync(tmp, JSON.stringify({ version: 1, recorded_at: new Date().toISOString(), count, extra, groups, pairs, folders, ...(epochs ? { epochs } : {}), ...(copies ? { copies } : {}) }) + "\n");
  fs.renameSync(tmp, file);
}

/** A run's record, or undefined when there is none; a file that cannot be read is said (`noteRunLevel`) and read as none. */
export function sameContentRecord(runDir: string): SameContentRecord | undefined {
  const file = path.join(runDir, SAME_CONTENT_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as Partial<SameContentRecord>;
    const n = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 0;
    if (!n(v.count) || !n(v.extra) || !n(v.groups)) throw new Error("no counts");
    const strings = (x: unknown) => (Array.isArray(x) ? x.filter((s): s is string => typeof s === "string") : []);
    const c = v.copies as Partial<NonNullable<SameContentRecord["copies"]>> | undefined;
    if (c !== undefined && (typeof c !== "object" || c === null || !n(c.count) || !n(c.checked) || !n(c.candidates))) throw new Error("its copies part has no counts");
    const copies = c && c.count! > 0 ? { count: c.count!, checked: c.checked!, candidates: c.candidates!, pairs: strings(c.pairs) } : undefined;
    const epochs = n(v.epochs) && v.epochs! > 0 ? { epochs: v.epochs! } : {};
    return { count: v.count!, extra: v.extra!, groups: v.groups!, pairs: strings(v.pairs), folders: strings(v.folders), ...epochs, ...(copies ? { copies } : {}) };
  } catch (e) {
    noteRunLevel(
      `same_content_bad\u0000${path.resolve(runDir)}`,
      `${path.resolve(file)} cannot be read (${(e as Error).message}): whether a trajectory of this run is counted twice (the same content under two ids) cannot be told; label the run's inputs again to rewrite it`,
    );
    return undefined;
  }
}

/** The statement every figure command makes of a run's record (`same_content: N trajectories counted more than once ...`). */
export function sameContentText(runDir: string, r: SameContentRecord): string {
  const parts: string[] = [];
  if (r.extra > 0) parts.push(sameCellText(runDir, r));
  const c = r.copies;
  if (c && c.count > 0) {
    const bound = c.checked < c.candidates;
    parts.push(
      `${path.resolve(runDir)}: same_file_other_cell: ${bound ? "at least " : ""}${c.count} input file${c.count === 1 ? " is a byte-identical copy" : "s are byte-identical copies"} of another input file under another id in another cell ` +
        `(agent model, condition, attack, suite or tasks), each counted as a run of its own cell in every figure of this run: e.g. ${c.pairs.join("; ")}; ` +
        `a comparison of those cells compares a run with itself; if a folder was copied by mistake, remove it from the inputs and label them into a new --run (label's summary says more)`,
    );
  }
  return parts.join("; ");
}

/** The statement of trajectories with the content of another of the same cell (the record's `extra`). */
function sameCellText(runDir: string, r: SameContentRecord): string {
  return (
    `${path.resolve(runDir)}: same_content: ${r.extra} trajector${r.extra === 1 ? "y is" : "ies are"} counted more than once in every figure of this run ` +
    `(${r.count} hold the content of another one of the same agent model, condition, attack, suite and tasks under another id, in ${r.groups} group${r.groups === 1 ? "" : "s"}; ` +
    `the copies are in ${r.folders.map((f) => JSON.stringify(f)).join(", ")}): e.g. ${r.pairs.join("; ")}; ` +
    (r.epochs && r.epochs >= r.extra
      ? `all of them epochs of one Inspect sample: real runs, not copies, so keep them (the rates' intervals treat epochs as independent runs)`
      : `${r.epochs ? `${r.epochs} of them epochs of one Inspect sample (real runs: keep those); for the others, ` : ""}if that is one trajectory read twice (a copied folder or file), remove the copy from the inputs and label them into a new --run (label's summary says more)`)
  );
}

/** Say a run's record once for this command (a run-level note), or drop the note when the run has none. */
export function noteSameContent(runDir: string): void {
  const r = sameContentRecord(runDir);
  noteRunLevel(`same_content\u0000${path.resolve(runDir)}`, r ? sameContentText(runDir, r) : undefined);
}
