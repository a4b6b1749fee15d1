/**
 * ipi-judge's own output met while walking an input folder (`./walk.ts`): not trajectories, so never read as input.
 * `cd corpus && ipi-judge label . --run r` puts the default `labels/` folder inside the input; the walk then read the
 * run's own journals (`errors.jsonl`, `trajectories.jsonl`, `verdicts.jsonl`, `store.json`) as input files, each an
 * input error, and on a resume every other run and annotation sample under `labels/` too: a misleading error count,
 * and a user's file beside them could have been read as trajectories of the wrong run.
 *
 * A walked folder is passed over, whole, when it is
 * - `labels`: this invocation's `--labels-dir` folder (`ReadOptions.labelsRoot`, compared by real path);
 * - `run`: a label run folder: it holds `store.json` and `verdicts.jsonl`, and `store.json` opens as a run store's
 *   snapshot does (`{"version": N, "run": ...`, `../store/run-store.ts`);
 * - `sample`: an annotation sample folder (`sample`'s export, `../sample/export.ts`): it holds `design.json` and a
 *   `manifest.jsonl` whose first line is an ipi-judge manifest header (`{"ipi_judge_manifest":1,...`).
 * Each folder passed over is said once, in a note of kind {@link OWN_OUTPUT} (one per folder: what and why); an input
 * path that is itself such a folder is refused by `label` before anything is read ({@link ownFolderOf}).
 */
import { closeSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import type { IngestWarning } from "./warnings.js";

/** Kind of the note naming a folder of ipi-judge's own output passed over (a note: nothing of the input is lost). */
export const OWN_OUTPUT = "own_output";

/** What an own folder is: this invocation's `--labels-dir` folder, a label run, an annotation sample. */
export type OwnKind = "labels" | "run" | "sample";

/** The bytes read from the head of `store.json` or `manifest.jsonl` to tell it is ipi-judge's. */
const HEAD_BYTES = 256;
const RUN_HEAD = /^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"run"\s*:/;
const SAMPLE_HEAD = /^\s*\{\s*"ipi_judge_manifest"\s*:\s*1\s*[,}]/;

/** Whether a listed file name may make its folder an own folder (a cheap test on every file the walk lists). */
export function ownMarkerName(name: string): boolean {
  return name === "store.json" || name === "manifest.jsonl";
}

/**
 * What the folder `dir` is, from the names of the plain files it holds (`files`; its listing) and a peek at
 * `store.json` or `manifest.jsonl` (the first {@link HEAD_BYTES} bytes): `run`, `sample`, or undefined (an input
 * folder). A file that cannot be read makes no own folder (the walk then reads it and reports it).
 */
export function ownKindOf(dir: string, files: ReadonlySet<string>): "run" | "sample" | undefined {
  if (files.has("store.json") && files.has("verdicts.jsonl") && RUN_HEAD.test(head(path.join(dir, "store.json")))) return "run";
  if (files.has("manifest.jsonl") && files.has("design.json") && SAMPLE_HEAD.test(head(path.join(dir, "manifest.jsonl")))) return "sample";
  return undefined;
}

/**
 * What an input path is, when it is a folder of ipi-judge's own output (`label` refuses it): the `--labels-dir` folder
 * (`labelsReal`: its real path, {@link realOrResolved}), a label run, an annotation sample; undefined otherwise (a
 * file, a folder of input, a path that cannot be read: the read reports it).
 */
export function ownFolderOf(dir: string, labelsReal?: string): OwnKind | undefined {
  if (labelsReal !== undefined && realOrResolved(dir) === labelsReal) return "labels";
  return ownKindOf(dir, markerFiles(dir));
}

/** The names an own folder is told by (`ownKindOf`). */
const MARKERS = ["store.json", "verdicts.jsonl", "manifest.jsonl", "design.json"];

/**
 * Which of {@link MARKERS} `dir` holds as plain files (not links, as the walk's listing tells them): four `lstat`s, not
 * a listing of the folder (break47: `label d/*.jsonl` over 20,000 files listed d/, 20,000 entries, once per path:
 * about 27 CPU s per 1,000 paths before anything was read). Empty when `dir` is no folder or cannot be read.
 */
function markerFiles(dir: string): Set<string> {
  const out = new Set<string>();
  for (const name of MARKERS) {
    try {
      if (lstatSync(path.join(dir, name)).isFile()) out.add(name);
    } catch {
      // not there (or dir is no folder): not a marker
    }
  }
  return out;
}

/**
 * The nearest folder above an input path (a file or a folder inside it, e.g. `RUN/verdicts.jsonl` or a folder made
 * inside a run) that is a label run or an annotation sample (`label` refuses such a path as it refuses the folder
 * itself), with what it is; undefined when none is. The `--labels-dir` folder above a path is not one: inputs may
 * lie under it.
 * @param seen what each folder was found to be, kept across the calls of one command (many paths share their
 *   folders: each is looked at once).
 */
export function ownFolderAbove(p: string, seen?: Map<string, OwnKind | undefined>): { dir: string; kind: "run" | "sample" } | undefined {
  let dir = path.dirname(realOrResolved(p));
  for (;;) {
    let kind = seen?.get(dir);
    if (kind === undefined && !seen?.has(dir)) {
      kind = ownFolderOf(dir);
      seen?.set(dir, kind);
    }
    if (kind === "run" || kind === "sample") return { dir, kind };
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The real path of `p`, or its resolved path when it has none (not created yet). */
export function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** What an own folder is, in words (notes and the refusal). */
export function ownKindText(kind: OwnKind): string {
  return kind === "labels"
    ? "this invocation's --labels-dir folder, where ipi-judge writes its runs"
    : kind === "run"
      ? "an ipi-judge label run (store.json and verdicts.jsonl: its own journals)"
      : "an ipi-judge annotation sample (manifest.jsonl and design.json, written by `ipi-judge sample`)";
}

/** The first bytes of a file as text, or "" when it cannot be read. */
function head(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.toString("utf8", 0, n);
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The own folders one read passed over, in the order met: one note each ({@link OWN_OUTPUT}). */
export class OwnFolders {
  private readonly met: Array<{ root: string; folder: string; kind: OwnKind }> = [];

  add(root: string, folder: string, kind: OwnKind): void {
    this.met.push({ root, folder, kind });
  }

  /** One note per folder passed over: the folder, what it is, and the input path it was found under. */
  warnings(): IngestWarning[] {
    const out = this.met.map(({ root, folder, kind }) => ({
      kind: OWN_OUTPUT,
      path: folder,
      message: `${folder}: passed over, not read as input: it is ${ownKindText(kind)}, found under input path ${root}`,
      count: 1,
    }));
    this.met.length = 0;
    return out;
  }
}
