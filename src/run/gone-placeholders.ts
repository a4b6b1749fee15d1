/**
 * Empty placeholder files (`empty_placeholder` in `errors.jsonl`) whose file is gone (review 16 item 5): label a
 * VIGIL folder, delete a suite's folder, label again, and the summary's "empty placeholders 6658" still counted the
 * 1,150 placeholder files deleted with the suite, while the suite's real runs left the figures as `input_removed`.
 * The count is over the placeholder files that exist; the gone ones are said apart, never silently dropped.
 *
 * A recorded path is checked as `RemovedInputs` checks a trajectory's source (`./removed-inputs.ts`, red team 15):
 * an absolute path, or a relative one under this invocation's input paths, resolved from the current directory, is
 * gone when no file is there; a relative path outside the inputs was maybe recorded from another working directory
 * and cannot be checked from here: it stays counted, and the count of such paths is said; unless it is the tail of a
 * file counted here (the same file recorded from two directories), which is counted once.
 */
import fs from "node:fs";
import path from "node:path";
import type { IngestError } from "../types.js";

/** The errors with the gone placeholders taken out, and what was found ({@link splitGonePlaceholders}). */
export interface GonePlaceholders {
  /** the errors to summarize: every error but the placeholders whose file is gone */
  kept: IngestError[];
  /** the recorded paths of the placeholders whose file is gone */
  gone: string[];
  /** placeholders kept whose relative path was not found from here and is outside this invocation's inputs */
  unchecked: number;
  /** placeholders recorded twice (from two working directories) under two spellings of one counted file: not counted again */
  same: number;
}

/**
 * Split a run's stored errors: an `empty_placeholder` whose file is gone (module docstring) is taken out; every other
 * error is kept. `fs.existsSync` once per placeholder (VIGIL: 8,023).
 * @param inputs this invocation's input paths (a relative recorded path is judged only under them).
 */
export function splitGonePlaceholders(errors: readonly IngestError[], inputs: readonly string[]): GonePlaceholders {
  const roots = inputs.map((p) => path.resolve(p));
  const underInputs = (file: string) => roots.some((r) => file === r || file.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  const out: GonePlaceholders = { kept: [], gone: [], unchecked: 0, same: 0 };
  const present = new Set<string>();
  const notFound: IngestError[] = [];
  for (const e of errors) {
    if (e.kind !== "empty_placeholder") {
      out.kept.push(e);
      continue;
    }
    const file = path.resolve(e.path);
    if (present.has(file)) out.same++;
    else if (fs.existsSync(file)) {
      present.add(file);
      out.kept.push(e);
    } else if (path.isAbsolute(e.path) || underInputs(file)) out.gone.push(e.path);
    else notFound.push(e);
  }
  // a relative path recorded from another directory that names a file counted here under its other spelling (the
  // same folder labelled from two directories: 6,658 placeholders counted twice, 12,212) is that file, not another
  const tails = new Set<string>();
  if (notFound.length > 0)
    for (const f of present) {
      const parts = f.split(path.sep);
      for (let i = 1; i < parts.length; i++) tails.add(parts.slice(i).join(path.sep));
    }
  for (const e of notFound) {
    if (tails.has(path.normalize(e.path).split(/[\\/]/).filter((x) => x !== "." && x !== "").join(path.sep))) out.same++;
    else {
      out.kept.push(e);
      out.unchecked++;
    }
  }
  return out;
}

/**
 * The clause the summary's `skipped` statement adds for {@link GonePlaceholders}: how many recorded placeholders are
 * gone (not counted) and how many could not be checked from here (counted). Empty when neither.
 */
export function gonePlaceholdersText(g: Pick<GonePlaceholders, "gone" | "unchecked" | "same">): string {
  const parts: string[] = [];
  if (g.same > 0) parts.push(`${g.same} more recorded name a counted file under another spelling (its path as given from another working directory): counted once`);
  if (g.gone.length > 0)
    parts.push(`${g.gone.length} more recorded by an earlier invocation are not counted: their files no longer exist (e.g. ${g.gone[0]})`);
  if (g.unchecked > 0)
    parts.push(`${g.unchecked} of those counted were recorded under a relative path not found from this directory (recorded from another working directory?) and could not be checked`);
  return parts.join("; ");
}

/** The summary's `skipped` statement (`RunSummary.skipped`) with {@link gonePlaceholdersText} said in it. */
export interface SkippedPlaceholders {
  empty_placeholders: number;
  examples: string[];
  message: string;
  /** placeholders recorded whose file is gone: not in `empty_placeholders` */
  gone?: number;
  /** placeholders counted whose relative path could not be checked from this directory */
  unchecked?: number;
  /** placeholders recorded twice under two spellings of one file (two working directories): counted once */
  same_file_twice?: number;
}

/**
 * `skipped` (undefined when no placeholder is counted) with the gone and unchecked placeholders said: the count stays
 * the present ones'; a run whose every placeholder is gone gets a statement of 0 saying so.
 */
export function withGonePlaceholders(skipped: SkippedPlaceholders | undefined, g: Pick<GonePlaceholders, "gone" | "unchecked" | "same">): SkippedPlaceholders | undefined {
  const text = gonePlaceholdersText(g);
  if (text === "") return skipped;
  const extra = { ...(g.gone.length > 0 ? { gone: g.gone.length } : {}), ...(g.unchecked > 0 ? { unchecked: g.unchecked } : {}), ...(g.same > 0 ? { same_file_twice: g.same } : {}) };
  if (skipped === undefined) return { empty_placeholders: 0, examples: [], message: `skipped: empty placeholders 0 (${text})`, ...extra };
  return { ...skipped, ...extra, message: `${skipped.message}; ${text}` };
}
