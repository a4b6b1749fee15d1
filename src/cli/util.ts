import fs from "node:fs";
import { warnLine } from "./warn.js";
import path from "node:path";
import { UsageError } from "../errors.js";
import type { Command } from "commander";
import { checkRunName, type TrajectoryIndexRow } from "../store/run-store.js";
import { readLeanRun, type ReadProgress } from "../store/lean-read.js";
import { readProgress } from "./read-progress.js";
import { progressOf, type ProgressSettings } from "./progress-mode.js";
import { parseWhere, restrictRun, WHERE_NONE, whereFieldsText, type WhereFilter, type WhereStatement } from "../store/where.js";
import { readCommitteeFile, type CommitteeFile } from "../committee/file.js";
import type { Verdict } from "../types.js";
import { writeJson } from "../io/json-stream.js";
import { intervalsForJson } from "../format/interval-json.js";
import { stdoutWriter } from "../io/stdout-sync.js";

/** Parse an integer option, or throw a UsageError naming it. */
export function intOption(v: unknown, name: string, min = 0): number {
  // decimal digits only: Number() also takes "1e1", "0x2", " 3 " and "" (red team 36: --quorum 0x2 was 2)
  const n = typeof v === "number" ? v : /^[-+]?\d+$/.test(String(v)) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer >= ${min}, not "${v}"`);
  return n;
}

/**
 * Print one JSON object on stdout (NaN never appears: it is mapped to null by the statistics beforehand): the text
 * of `JSON.stringify(obj, null, 2)` and a newline, written in ~1 MiB chunks (`writeJson`), never built whole (a
 * million-trajectory run's output is tens of MB). A statistics interval whose SE is 0 is written `null` with
 * `<key>_reason: "se_zero"` (`../format/interval-json.ts`).
 */
export function printJson(obj: unknown): void {
  let wrote = false;
  // synchronous: a pipe's reader slower than the serializer would otherwise get the whole text queued in memory
  const write = stdoutWriter();
  // one form of an interval with SE 0 in every command's JSON: null + `_reason: "se_zero"` (../format/interval-json.ts)
  writeJson(
    obj,
    (s) => {
      wrote = true;
      write(s);
    },
    { objects: intervalsForJson },
  );
  write(wrote ? "\n" : "undefined\n"); // as `JSON.stringify(undefined) + "\n"` printed
}

/**
 * The folder of an existing run: `<labelsDir>/<run>`.
 * @throws UsageError for an invalid run name or a run that has not been labelled.
 */
export function runDirOf(labelsDir: string, run: string): string {
  try {
    checkRunName(run);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const runDir = path.resolve(labelsDir, run);
  if (!fs.existsSync(path.join(runDir, "verdicts.jsonl"))) {
    throw new UsageError(`no run "${run}" in ${labelsDir} (expected ${path.join(runDir, "verdicts.jsonl")}); run ipi-judge label first`);
  }
  return runDir;
}

/**
 * Add the `--where FIELD=VALUE[,VALUE]` option (repeatable; src/store/where.ts) to a command: the same option,
 * help and parsing on label, agree, sample, estimate, compare and report.
 */
export function addWhereOption(cmd: Command): Command {
  return cmd.option(
    "--where <FIELD=VALUE[,VALUE]>",
    `only the trajectories whose FIELD is one of the VALUEs (repeatable: every --where must hold); FIELD: ${whereFieldsText()}; ` +
      `${WHERE_NONE} matches runs without the field (e.g. attack=important_instructions,${WHERE_NONE} keeps the unattacked runs)`,
    (v: string, prev: string[] = []) => [...prev, v],
  );
}

/** The parsed `--where` of a command's options (null without one). @throws UsageError for a bad clause. */
export function whereOf(o: { where?: string[] | string; whereFromSample?: string }): WhereFilter | null {
  const f = parseWhere(o.where);
  // the sample's recorded population taken as --where (./sample-where-default.ts): named as such where it matters
  if (f && o.whereFromSample) f.fromSample = o.whereFromSample;
  return f;
}

/** Print the `--where` warnings (values that matched nothing) on stderr. */
export function warnWhere(warnings: readonly string[]): void {
  for (const w of warnings) warnLine(w);
}

/**
 * Read a stored run restricted by the command's `--where` (`restrictRun` of src/store/where.ts, the one filter of
 * every command): the index rows kept, their verdicts, and the committee file with its verdicts of those rows.
 * The values that matched nothing are warned about on stderr. The run is read compactly (`readLeanRun` of
 * src/store/lean-read.ts: slim verdicts, index rows without `source` unless `source`, and without `content_sha256`
 * but for the ids in `content`), with read progress as the command's `--progress` says (`./progress-mode.ts`). `fullIndex`: every row, before
 * `--where` (what a human sample was drawn from).
 * @throws UsageError for a bad `--where` or one that keeps nothing.
 */
export async function readRunWhere(
  runDir: string,
  o: { where?: string[] | string; run?: string; progress?: unknown; progressInterval?: unknown },
  opts: { source?: boolean; content?: ReadonlySet<string> } = {},
): Promise<{ verdicts: Verdict[]; index: Map<string, TrajectoryIndexRow>; fullIndex: Map<string, TrajectoryIndexRow>; cf: CommitteeFile | null; where: WhereStatement | null }> {
  const f = whereOf(o);
  const { verdicts, index, cf } = await withReadProgress(progressOf(o), async (progress) => {
    const lean = await readLeanRun(runDir, { source: opts.source, content: opts.content, progress });
    return { ...lean, cf: await readCommitteeFile(runDir, { index: lean.index }) };
  });
  const r = restrictRun({ index, verdicts, committee: cf?.verdicts }, f, o.run);
  warnWhere(r.warnings);
  return { verdicts: r.verdicts, index: r.index, fullIndex: index, cf: cf ? { ...cf, verdicts: r.committee ?? [] } : null, where: r.statement };
}

/**
 * Run `read` with read progress on stderr (`./read-progress.ts`) as `settings` say (`progressOf` of the command's
 * flags); a bar's line is cleared when `read` ends, thrown or not.
 */
export async function withReadProgress<T>(settings: ProgressSettings, read: (progress: ReadProgress | undefined) => Promise<T>): Promise<T> {
  const p = readProgress(settings);
  try {
    return await read(p.progress);
  } finally {
    p.stop();
  }
}
