/**
 * Input errors an earlier invocation recorded that this invocation's read supersedes, for one of two reasons:
 * - the file is passed over now as a corpus's sidecar file (`../ingest/sidecars.ts`: a manifest, README, licence,
 *   checksums). An older build reported a corpus's `manifest.jsonl` as an `unknown_format` input error; resuming
 *   that run with a newer build passes the file over, and the summary named it twice: passed over, and among the
 *   run's errors;
 * - the file (or line) was read without error since: it was fixed (`./read-since.ts`, which says when exactly);
 * - a `content_changed` note (a trajectory whose content changed since it was labelled) whose trajectory was judged
 *   again on its content now: every current verdict of it judged the stored row's content (`rejudged`).
 * `errors.jsonl` is append-only, so the old line stays; the summary counts it apart as superseded, saying why, so
 * the error is neither counted as live nor hidden.
 */
import path from "node:path";
import type { IngestError } from "../types.js";
import type { ReadSince } from "./read-since.js";

/** The errors of a run split by whether this invocation's read superseded them ({@link splitSupersededErrors}). */
export interface SupersededErrors {
  /** The errors still standing. */
  current: IngestError[];
  /** File-level errors about files passed over as sidecars now: not counted in the summary's `errors`. */
  superseded: IngestError[];
  /** Errors about inputs read without error since (`ReadSince.answered`): not counted in the summary's `errors`. */
  readSince: IngestError[];
  /** `content_changed` notes whose trajectory was judged again on its content now: not counted in the summary's `errors`. */
  rejudged: IngestError[];
}

/**
 * Split a run's stored errors: a file-level error (no trajectory id, no line) whose file this invocation passed
 * over as a sidecar (`passedOver`: resolved paths, `ReadOptions.onPassedOver`) is superseded; every other error
 * stands. Paths are compared resolved from the current directory (an error recorded from another directory, under
 * another relative path, stands: shown as before). An error `since` says was answered by a good read of its input
 * since goes to `readSince`; a `content_changed` note whose trajectory `judgedNow` says was judged again on its
 * content now (e.g. `VerdictLedger.allOnContent` with the stored row's hash) goes to `rejudged`.
 * @returns the four lists, in the stored order. Never throws.
 */
export function splitSupersededErrors(
  errors: readonly IngestError[],
  passedOver: ReadonlySet<string>,
  since?: ReadSince,
  judgedNow?: (trajectoryId: string) => boolean,
): SupersededErrors {
  const current: IngestError[] = [];
  const superseded: IngestError[] = [];
  const readSince: IngestError[] = [];
  const rejudged: IngestError[] = [];
  for (const e of errors) {
    const fileLevel = e.trajectory_id === undefined && e.line === undefined;
    if (fileLevel && passedOver.size > 0 && passedOver.has(path.resolve(e.path))) superseded.push(e);
    else if (since?.answered(e)) readSince.push(e);
    else if (e.kind === "content_changed" && e.trajectory_id !== undefined && judgedNow?.(e.trajectory_id)) rejudged.push(e);
    else current.push(e);
  }
  return { current, superseded, readSince, rejudged };
}

/** Files shown in the superseded note before "and N more". */
const SHOWN = 5;

/**
 * The summary's statement of superseded errors (`RunSummary.errors_superseded`): their count, kinds, files and why.
 * @param superseded the errors of files passed over as sidecars now; `readSince` those of inputs read without error
 *   since (`read_since` in the statement when any); `rejudged` the `content_changed` notes of trajectories judged
 *   again on their content now (`rejudged` in the statement when any). Not all empty.
 */
export function supersededStatement(
  superseded: readonly IngestError[],
  readSince: readonly IngestError[] = [],
  rejudged: readonly IngestError[] = [],
): { total: number; by_kind: Record<string, number>; files: string[]; message: string; read_since?: number; rejudged?: number } {
  const all = [...superseded, ...readSince, ...rejudged];
  const by_kind: Record<string, number> = {};
  for (const e of all) by_kind[e.kind] = (by_kind[e.kind] ?? 0) + 1;
  const files = [...new Set(all.map((e) => e.path))];
  const n = all.length;
  const why: string[] = [];
  if (superseded.length > 0) {
    const f = [...new Set(superseded.map((e) => e.path))];
    why.push(
      `${shownFiles(f)} ${f.length === 1 ? "is" : "are"} now recognized as a corpus's sidecar file${f.length === 1 ? "" : "s"} and passed over ` +
        `(an older build read ${f.length === 1 ? "it" : "them"} as trajectories)`,
    );
  }
  if (readSince.length > 0) {
    const f = [...new Set(readSince.map((e) => e.path))];
    why.push(`${shownFiles(f)} ${f.length === 1 ? "was" : "were"} read without ${readSince.length === 1 ? "that error" : "those errors"} by this invocation (fixed since)`);
  }
  if (rejudged.length > 0) {
    const n = rejudged.length;
    why.push(`${n} trajector${n === 1 ? "y" : "ies"} that changed since labelled ${n === 1 ? "was" : "were"} judged again on ${n === 1 ? "its" : "their"} content now`);
  }
  return {
    total: n,
    by_kind,
    files,
    message:
      (superseded.length + readSince.length === 0
        ? `${n} content_changed note${n === 1 ? "" : "s"} ${n === 1 ? "is" : "are"} superseded, not counted above `
        : `${n} input error${n === 1 ? "" : "s"} recorded by an earlier invocation ${n === 1 ? "is" : "are"} superseded, not counted above `) +
      `(${Object.entries(by_kind).map(([k, v]) => `${k} ${v}`).join(", ")}): ${why.join("; ")}; ` +
      `the old line${n === 1 ? " stays" : "s stay"} in errors.jsonl`,
    ...(readSince.length > 0 ? { read_since: readSince.length } : {}),
    ...(rejudged.length > 0 ? { rejudged: rejudged.length } : {}),
  };
}

/** Files named in a statement: the first {@link SHOWN}, then "and N more". */
function shownFiles(files: readonly string[]): string {
  return files.slice(0, SHOWN).join(", ") + (files.length > SHOWN ? `, and ${files.length - SHOWN} more` : "");
}
