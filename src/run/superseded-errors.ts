/**
 * Input errors an earlier invocation recorded about a file this invocation passes over as a corpus's sidecar file
 * (`../ingest/sidecars.ts`: a manifest, README, licence, checksums). An older build reported a corpus's
 * `manifest.jsonl` as an `unknown_format` input error; resuming that run with a newer build passes the file over,
 * and the summary named it twice: passed over, and among the run's errors. `errors.jsonl` is append-only, so the
 * old line stays; the summary counts it apart as superseded, saying why, so the file is shown once, truthfully.
 */
import path from "node:path";
import type { IngestError } from "../types.js";

/** The errors of a run split by whether this invocation's read superseded them ({@link splitSupersededErrors}). */
export interface SupersededErrors {
  /** The errors still standing. */
  current: IngestError[];
  /** File-level errors about files passed over as sidecars now: not counted in the summary's `errors`. */
  superseded: IngestError[];
}

/**
 * Split a run's stored errors: a file-level error (no trajectory id, no line) whose file this invocation passed
 * over as a sidecar (`passedOver`: resolved paths, `ReadOptions.onPassedOver`) is superseded; every other error
 * stands. Paths are compared resolved from the current directory (an error recorded from another directory, under
 * another relative path, stands: shown as before).
 * @returns both lists, in the stored order. Never throws.
 */
export function splitSupersededErrors(errors: readonly IngestError[], passedOver: ReadonlySet<string>): SupersededErrors {
  const current: IngestError[] = [];
  const superseded: IngestError[] = [];
  for (const e of errors) {
    const fileLevel = e.trajectory_id === undefined && e.line === undefined;
    if (fileLevel && passedOver.size > 0 && passedOver.has(path.resolve(e.path))) superseded.push(e);
    else current.push(e);
  }
  return { current, superseded };
}

/** Files shown in the superseded note before "and N more". */
const SHOWN = 5;

/**
 * The summary's statement of superseded errors (`RunSummary.errors_superseded`): their count, kinds, files and why.
 * @param superseded non-empty.
 */
export function supersededStatement(superseded: readonly IngestError[]): { total: number; by_kind: Record<string, number>; files: string[]; message: string } {
  const by_kind: Record<string, number> = {};
  for (const e of superseded) by_kind[e.kind] = (by_kind[e.kind] ?? 0) + 1;
  const files = [...new Set(superseded.map((e) => e.path))];
  const shown = files.slice(0, SHOWN).join(", ") + (files.length > SHOWN ? `, and ${files.length - SHOWN} more` : "");
  const n = superseded.length;
  return {
    total: n,
    by_kind,
    files,
    message:
      `${n} input error${n === 1 ? "" : "s"} recorded by an earlier invocation ${n === 1 ? "is" : "are"} superseded, not counted above ` +
      `(${Object.entries(by_kind).map(([k, v]) => `${k} ${v}`).join(", ")}): ${shown} ${files.length === 1 ? "is" : "are"} now recognized as a ` +
      `corpus's sidecar file${files.length === 1 ? "" : "s"} and passed over (an older build read ${files.length === 1 ? "it" : "them"} as trajectories); ` +
      `the old line${n === 1 ? " stays" : "s stay"} in errors.jsonl`,
  };
}
