/**
 * Input errors an earlier invocation recorded that this invocation's read supersedes, for one of two reasons:
 * - the file is passed over now as a corpus's sidecar file (`../ingest/sidecars.ts`: a manifest, README, licence,
 *   checksums). An older build reported a corpus's `manifest.jsonl` as an `unknown_format` input error; resuming
 *   that run with a newer build passes the file over, and the summary named it twice: passed over, and among the
 *   run's errors;
 * - the file (or line) was read without error since: it was fixed (`./read-since.ts`, which says when exactly);
 * - a `content_changed` note (a trajectory whose content changed since it was labelled) whose trajectory was judged
 *   again on its content now: every current verdict of it judged the stored row's content (`rejudged`).
 * - a `judge_crash` error (a judge threw on an item) whose judge has stored a verdict of that trajectory and repeat
 *   since (`crashJudged`): recorded with `judge_id`, `repeat` and `verdict_seq` (how many verdicts the run had stored
 *   then), so "since" needs no clock; or one recorded again later for the same judge, trajectory and repeat (the
 *   later line stands for it: an item that crashed twice is counted once). A `judge_crash` recorded before these
 *   fields existed (the judge only in its message) is never superseded: it is not known whether a verdict came after.
 * - a `store_corrupt_lines` record that no longer describes the run's journals (`repaired`, `./corrupt-lines.ts`):
 *   the partial last line it counted was cut off since, or the line repaired; one still in the file stands.
 * - any error about a file inside ipi-judge's own output (a run or sample folder under the input, passed over now:
 *   ../ingest/own-folders.ts; `passedOver` holds such a folder as its path with a trailing separator): an older build
 *   read the run's journals as input, and a resume counted those errors still (`own`). Not the run's own
 *   `store_corrupt_lines` record (its path is the run's folder, under the input when the labels folder is): it is
 *   about the journals as this run reads them, never an input error; only `repaired` supersedes it (break47: with the
 *   labels folder inside the input, a line still unreadable was said to be "an older build's input error", errors none).
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
  /** `judge_crash` errors whose judge stored a verdict of the item since, or crashed on it again later: not counted. */
  crashes: IngestError[];
  /** `store_corrupt_lines` records of journal lines no longer in the files (cut or repaired since): not counted. */
  repaired: IngestError[];
  /** Errors about files inside a folder of ipi-judge's own output this invocation passed over: not counted. */
  own: IngestError[];
}

/** A `judge_crash` error's judge, repeat and `verdict_seq` when it records them (written since they exist), else undefined. */
export function crashOf(e: IngestError): { judge_id: string; repeat: number; verdict_seq: number; trajectory_id: string } | undefined {
  if (e.kind !== "judge_crash" || typeof e.trajectory_id !== "string" || typeof e.judge_id !== "string") return undefined;
  if (typeof e.repeat !== "number" || typeof e.verdict_seq !== "number") return undefined;
  return { judge_id: e.judge_id, repeat: e.repeat, verdict_seq: e.verdict_seq, trajectory_id: e.trajectory_id };
}

/**
 * Split a run's stored errors: a file-level error (no trajectory id, no line) whose file this invocation passed
 * over as a sidecar (`passedOver`: resolved paths, `ReadOptions.onPassedOver`) is superseded; any error whose file is
 * under a folder `passedOver` holds with a trailing separator (own output passed over) goes to `own`; every other error
 * stands. Paths are compared resolved from the current directory (an error recorded from another directory, under
 * another relative path, stands: shown as before). An error `since` says was answered by a good read of its input
 * since goes to `readSince`; a `content_changed` note whose trajectory `judgedNow` says was judged again on its
 * content now (e.g. `VerdictLedger.allOnContent` with the stored row's hash) goes to `rejudged`; a run-level error
 * `repaired` says no longer describes the run's journals (`./corrupt-lines.ts`) goes to `repaired`.
 * @returns the lists, in the stored order. Never throws.
 */
export function splitSupersededErrors(
  errors: readonly IngestError[],
  passedOver: ReadonlySet<string>,
  since?: ReadSince,
  judgedNow?: (trajectoryId: string) => boolean,
  crashJudged?: (trajectoryId: string, judgeId: string, repeat: number, verdictSeq: number) => boolean,
  repairedNow?: (e: IngestError) => boolean,
): SupersededErrors {
  const current: IngestError[] = [];
  const superseded: IngestError[] = [];
  const readSince: IngestError[] = [];
  const rejudged: IngestError[] = [];
  const crashes: IngestError[] = [];
  const repaired: IngestError[] = [];
  const own: IngestError[] = [];
  const ownFolders = [...passedOver].filter((p) => p.endsWith(path.sep));
  const inOwn = (p: string) => ownFolders.length > 0 && typeof p === "string" && ownFolders.some((f) => path.resolve(p).startsWith(f));
  // per (trajectory, judge, repeat) crashed: the latest verdict_seq recorded (only the crash errors: bounded by them)
  const lastCrash = new Map<string, number>();
  const crashKey = (c: NonNullable<ReturnType<typeof crashOf>>) => `${c.trajectory_id}\u0000${c.judge_id}\u0000${c.repeat}`;
  for (const e of errors) {
    const c = crashOf(e);
    if (c) lastCrash.set(crashKey(c), Math.max(lastCrash.get(crashKey(c)) ?? -1, c.verdict_seq));
  }
  const seen = new Set<string>();
  for (const e of errors) {
    const fileLevel = e.trajectory_id === undefined && e.line === undefined;
    const c = crashOf(e);
    if (repairedNow?.(e)) repaired.push(e);
    else if (e.kind !== "store_corrupt_lines" && inOwn(e.path)) own.push(e); // the run's own journal record is no input error (break47)
    else if (fileLevel && passedOver.size > 0 && passedOver.has(path.resolve(e.path))) superseded.push(e);
    else if (since?.answered(e)) readSince.push(e);
    else if (e.kind === "content_changed" && e.trajectory_id !== undefined && judgedNow?.(e.trajectory_id)) rejudged.push(e);
    else if (c && (crashJudged?.(c.trajectory_id, c.judge_id, c.repeat, c.verdict_seq) || c.verdict_seq < lastCrash.get(crashKey(c))! || seen.has(crashKey(c)))) crashes.push(e);
    else {
      if (c) seen.add(crashKey(c)); // two lines of one crash at the same verdict_seq (other messages): counted once
      current.push(e);
    }
  }
  return { current, superseded, readSince, rejudged, crashes, repaired, own };
}

/** A `content_changed` note of a trajectory whose new content's verdicts were carried (../run/label-steps.ts `noteChanged`). */
const CARRIED_NOTE = /\(a row moved\), whose verdicts were carried over/;

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
  crashes: readonly IngestError[] = [],
  repaired: readonly IngestError[] = [],
  own: readonly IngestError[] = [],
): { total: number; by_kind: Record<string, number>; files: string[]; message: string; read_since?: number; rejudged?: number; judge_crashes?: number; repaired?: number; own_output?: number } {
  const all = [...superseded, ...readSince, ...rejudged, ...crashes, ...repaired, ...own];
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
    // judged again, or given the verdicts of their content now by a row that moved onto them (runs55 #1)
    const carried = rejudged.filter((e) => CARRIED_NOTE.test(e.message)).length;
    const judged = n - carried;
    why.push(
      [
        judged > 0 ? `${judged} trajector${judged === 1 ? "y" : "ies"} that changed since labelled ${judged === 1 ? "was" : "were"} judged again on ${judged === 1 ? "its" : "their"} content now` : "",
        carried > 0 ? `${carried} trajector${carried === 1 ? "y" : "ies"} that changed since labelled (a row moved) hold${carried === 1 ? "s" : ""} the verdicts carried over from the id ${carried === 1 ? "its" : "their"} content was labelled under` : "",
      ].filter(Boolean).join("; "),
    );
  }
  if (crashes.length > 0) why.push(crashWhy(crashes));
  if (repaired.length > 0) {
    const r = repaired.length;
    why.push(
      `${r} record${r === 1 ? "" : "s"} of unreadable journal lines no longer describe${r === 1 ? "s" : ""} the run's journals: this invocation's open ` +
        `did not find ${r === 1 ? "its" : "their"} lines again (a partial last line cut off, or the file repaired since; lines still unreadable are in the ` +
        `current store_corrupt_lines record); a verdict such a line held is judged again when missing, or counted as not yet judged`,
    );
  }
  if (own.length > 0) {
    const f = [...new Set(own.map((e) => e.path))];
    why.push(
      `${own.length} ${own.length === 1 ? "is" : "are"} about ${shownFiles(f)}, ipi-judge's own output (a run or sample folder under the input), ` +
        `passed over now (an older build read ${f.length === 1 ? "it" : "them"} as input)`,
    );
  }
  const inputs = superseded.length + readSince.length + own.length;
  return {
    total: n,
    by_kind,
    files,
    message:
      (inputs === 0 && crashes.length === 0 && repaired.length === 0
        ? `${n} content_changed note${n === 1 ? "" : "s"} ${n === 1 ? "is" : "are"} superseded, not counted above `
        : repaired.length === n
          ? // the run's own torn journal lines, gone since: no input error (hostile 51, finding 3)
            `run store: ${n} earlier record${n === 1 ? "" : "s"} of torn verdict lines (an interrupted write: a kill or a full disk; dropped, and the verdicts judged again) no longer appl${n === 1 ? "ies" : "y"}, not an input error and not counted above `
          : inputs === n
          ? `${n} input error${n === 1 ? "" : "s"} recorded by an earlier invocation ${n === 1 ? "is" : "are"} superseded, not counted above `
          : `${n} recorded error${n === 1 ? "" : "s"} ${n === 1 ? "is" : "are"} superseded, not counted above `) +
      `(${Object.entries(by_kind).map(([k, v]) => `${k} ${v}`).join(", ")}): ${why.join("; ")}; ` +
      `the old line${n === 1 ? " stays" : "s stay"} in errors.jsonl`,
    ...(readSince.length > 0 ? { read_since: readSince.length } : {}),
    ...(rejudged.length > 0 ? { rejudged: rejudged.length } : {}),
    ...(crashes.length > 0 ? { judge_crashes: crashes.length } : {}),
    ...(repaired.length > 0 ? { repaired: repaired.length } : {}),
    ...(own.length > 0 ? { own_output: own.length } : {}),
  };
}

/** Why judge crashes are superseded: per judge, how many items it judged since (or crashed on again later). */
function crashWhy(crashes: readonly IngestError[]): string {
  const byJudge = new Map<string, number>();
  for (const e of crashes) byJudge.set(e.judge_id ?? "?", (byJudge.get(e.judge_id ?? "?") ?? 0) + 1);
  const n = crashes.length;
  return (
    `${n} judge crash${n === 1 ? "" : "es"} (${[...byJudge].map(([j, k]) => `${j} ${k}`).join(", ")}) ` +
    `${n === 1 ? "was" : "were"} followed by a verdict of the same judge, trajectory and repeat (or the same crash recorded again later)`
  );
}

/** Files named in a statement: the first {@link SHOWN}, then "and N more". */
function shownFiles(files: readonly string[]): string {
  return files.slice(0, SHOWN).join(", ") + (files.length > SHOWN ? `, and ${files.length - SHOWN} more` : "");
}
