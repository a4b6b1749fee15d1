/**
 * What a stored `errors.jsonl` line can be checked for on its own (task s41 #3): a `judge_crash` record carries the
 * `repeat` it was judging and `verdict_seq`, how many verdicts the run had stored when it was written
 * (`VerdictLedger.verdictsStored`; a verdict of the same judge, trajectory and repeat stored at or after it
 * supersedes the crash: `../run/superseded-errors.ts`). A hand-edited or corrupt line with `repeat: 1e9`, `-1`,
 * `1.5` or `"3"`, or a `verdict_seq` that is no count (negative, fractional) or more than the verdict lines the run
 * holds, was not written by `label`: read as written it counted as a crash of a repeat no run has (the crash
 * counts of `summary.json`, which every figure command's exit 3 weighs; the view's banner), a string repeat as
 * repeat 0's, a `verdict_seq` of 1e9 made the crash stand after the item was judged again, a negative one hid a
 * later real crash of the same item. Such a line is refused like an unreadable one: skipped, named by file, line
 * and why (`./skipped-lines.ts`), never counted. Every reader of the file uses this check: `readErrors`
 * (`./records.ts`: the `--where` crash count, the view) and `RunStore.open` (label's resume, summary and exit).
 */
import fs from "node:fs";
import { noteQuestionedLine } from "./skipped-lines.js";
import { repeatProblem } from "./repeat-bound.js";

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Why an error record's `repeat` or `verdict_seq` is not what `label` writes, or undefined (fields absent: an input
 * error, or a crash recorded before they existed).
 * @param verdictLines when known, the lines of the run's `verdicts.jsonl` (read and skipped alike): no crash was
 *   recorded after more verdicts than the file holds.
 */
export function errorRecordProblem(e: Record<string, unknown>, verdictLines?: number): string | undefined {
  if (e.repeat !== undefined) {
    const why = repeatProblem(e.repeat);
    if (why) return `${e.kind === "judge_crash" ? "a judge_crash record's " : ""}${why}: not counted as a crash`;
  }
  const seq = e.verdict_seq;
  if (seq === undefined) return undefined;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0)
    return `verdict_seq ${JSON.stringify(seq) ?? String(seq)} is not a count of stored verdicts (an integer from 0): not counted as a crash`;
  if (verdictLines !== undefined && seq > verdictLines)
    return `verdict_seq ${seq} is more than the ${verdictLines} line(s) of verdicts.jsonl (a crash records how many verdicts were stored before it): not counted as a crash`;
  return undefined;
}

/**
 * The record test of one read of `file` (a run's `errors.jsonl`) for `readJsonl`: `isRecord` (`isErrorRecord`) and
 * no {@link errorRecordProblem}; a line refused for its fields is noted by file, line and why (said once with the
 * file's skipped lines; `readJsonl` reports it skipped).
 * @param verdictLines as {@link errorRecordProblem}'s, or a function giving it (called at most once, when a line
 *   first carries a `verdict_seq`: {@link verdictFileLines}).
 */
export function errorLines(file: string, isRecord: (v: unknown) => boolean, verdictLines?: number | (() => number)): (v: unknown, line: number) => boolean {
  let bound = typeof verdictLines === "number" ? verdictLines : undefined;
  return (v, line) => {
    if (!isRecord(v) || !isObj(v)) return false;
    // counted once, when a line first carries a verdict_seq (only crash records do)
    if (bound === undefined && typeof verdictLines === "function" && typeof v.verdict_seq === "number") bound = verdictLines();
    const why = errorRecordProblem(v, bound);
    if (why) noteQuestionedLine(file, line, why, true, "not an ingest error record");
    return why === undefined;
  };
}

/**
 * The lines of a run's `verdicts.jsonl` (a last line without its newline counted; 0 when the file is missing), by
 * its newlines, in 1 MB reads: the `verdict_seq` bound of a reader that has not read the verdicts (`readErrors`).
 * Blank lines count too, so the bound is never below `RunStore.open`'s (its verdicts and skipped lines).
 */
export function verdictFileLines(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return 0;
  }
  try {
    const buf = Buffer.alloc(1 << 20);
    let lines = 0;
    let last = 0x0a;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      for (let at = buf.indexOf(0x0a, 0); at !== -1 && at < n; at = buf.indexOf(0x0a, at + 1)) lines++;
      last = buf[n - 1];
    }
    return lines + (last === 0x0a ? 0 : 1);
  } finally {
    fs.closeSync(fd);
  }
}
