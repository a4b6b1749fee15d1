/**
 * `label` on an input that holds no trajectory (an empty folder, the wrong path, the wrong `--format`): not a
 * finished run (new user 44: exit 0 and an empty run folder, so `label ... && agree ...` went on as if it had
 * labelled). The command exits 2, and a run folder this invocation created and left empty is removed again, so no
 * later command finds a run of nothing. A folder that was there before but held no run (`--run notes` naming a
 * folder of the user's) keeps its own files, and the empty run files written into it are removed (break45: they
 * were left, a run of nothing beside the user's files, and nothing said so).
 */
import fs from "node:fs";
import path from "node:path";

/** The files `label` writes into a new run folder before it reads anything. */
export const NEW_RUN_FILES = ["store.json", "summary.json", "trajectories.jsonl", "verdicts.jsonl", "errors.jsonl"];

/** What {@link nothingFound} reads of `label`'s result. */
export interface NothingFoundInput {
  thisRun: { read: number; errors: number; empty_placeholders?: number; duplicate_inputs?: number };
  interrupted: boolean;
}

/**
 * Whether `label` read nothing at all from its input: no trajectory, no input error, no placeholder, not stopped;
 * `--limit 0` reads nothing by request, so it is not this.
 */
export function nothingFound(res: NothingFoundInput, limit: number | undefined): boolean {
  return res.thisRun.read === 0 && res.thisRun.errors === 0 && (res.thisRun.empty_placeholders ?? 0) === 0 && (res.thisRun.duplicate_inputs ?? 0) === 0 && !res.interrupted && limit !== 0;
}

/**
 * Whether `label --where` kept none of the trajectories it read (break52 #8: `--where suite=nonexist` stored an empty run
 * and exited 0, and a case slip such as `suite=Banking` into an existing run left it as it was while the user thought it
 * extended): a usage error like an input holding no trajectory (exit 2, a new run folder removed again), as the figure
 * commands' `--where` that matches none is. Not when stopped before reading all (Ctrl-C) or when nothing was read.
 */
export function whereKeptNone(res: { thisRun: NothingFoundInput["thisRun"] & { kept: number; where?: unknown }; interrupted: boolean }): boolean {
  return res.thisRun.where !== undefined && res.thisRun.read > 0 && res.thisRun.kept === 0 && !res.interrupted;
}

/**
 * Whether every item `label` met in its input was an input error: no trajectory read, at least one input error
 * (empty placeholders and inputs given twice are none), not stopped (new user 48: an Inspect log whose messages were
 * all in OpenAI's chat shape gave `0 trajectories` and exit 0, and a pipeline went on to `agree` an empty run).
 */
export function allInputBad(res: NothingFoundInput): boolean {
  return res.thisRun.read === 0 && res.thisRun.errors > 0 && !res.interrupted;
}

/** The last line `label` says for {@link allInputBad} (exit 2, as for an input holding no trajectory). */
export function allInputBadText(errors: number): string {
  return (
    `INPUT ERROR: no trajectory was read: every item of the input (${errors}) was an input error (see errors.jsonl and the summary's errors line): ` +
    `nothing was labelled; fix the input, or its --format, and run the same command again (exit code 2)`
  );
}

/**
 * Remove a run folder `label` created in this invocation when it holds nothing but the new run's empty files
 * (`NEW_RUN_FILES`, both journals empty); the labels folder too when this invocation created it and it is then empty.
 * Anything else found there is left as it is.
 * @param runDir the run folder
 * @param labelsDirCreated whether the labels folder did not exist before this invocation
 * @returns true when the run folder was removed
 */
export function removeEmptyNewRun(runDir: string, labelsDirCreated: boolean): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(runDir);
  } catch {
    return false;
  }
  if (!names.every((n) => NEW_RUN_FILES.includes(n))) return false;
  for (const j of ["trajectories.jsonl", "verdicts.jsonl", "errors.jsonl"]) {
    const f = path.join(runDir, j);
    if (fs.existsSync(f) && fs.statSync(f).size > 0) return false;
  }
  for (const n of names) fs.rmSync(path.join(runDir, n), { force: true });
  fs.rmdirSync(runDir);
  const labelsDir = path.dirname(runDir);
  if (labelsDirCreated && fs.readdirSync(labelsDir).length === 0) fs.rmdirSync(labelsDir);
  return true;
}

/**
 * Remove the empty run files `label` wrote into a run folder that was there before but held no run (no `store.json`):
 * the files of {@link NEW_RUN_FILES} among `newFiles` (those absent before this invocation), when both journals are
 * empty. The folder and everything else in it are left.
 * @param runDir the run folder
 * @param newFiles the names of {@link NEW_RUN_FILES} that did not exist before this invocation
 * @returns true when they were removed (false when the folder held a run before, or a journal is not empty)
 */
export function removeNewRunFiles(runDir: string, newFiles: readonly string[]): boolean {
  if (!newFiles.includes("store.json")) return false;
  const ours = newFiles.filter((n) => NEW_RUN_FILES.includes(n));
  for (const j of ["trajectories.jsonl", "verdicts.jsonl", "errors.jsonl"]) {
    const f = path.join(runDir, j);
    if (ours.includes(j) && fs.existsSync(f) && fs.statSync(f).size > 0) return false;
  }
  for (const n of ours) fs.rmSync(path.join(runDir, n), { force: true });
  return true;
}
