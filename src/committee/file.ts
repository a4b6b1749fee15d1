/**
 * The committee file of a run, `<run>/committee.jsonl`: one committee verdict per line (DESIGN section 3), each
 * also recording the judge set it was built from (`committee_judges`, `excluded_judges`, `quorum`), so a file
 * made from another judge set, or before some verdicts changed, is never read silently as the committee of the
 * run as it is now (`compare`, `report`, `agree`, `sample` check it with {@link checkCommitteeFile}).
 */
import fs from "node:fs";
import path from "node:path";
import type { CommitteeVerdict, Verdict } from "../types.js";
import { readJsonl } from "../io/jsonl.js";
import { Interner, leanRecord } from "../store/lean-read.js";
import { voteOf } from "../verdict/vote.js";
import { writeFileAtomic } from "../io/write-atomic.js";

/** Name of the committee file in a run folder. */
export const COMMITTEE_FILE = "committee.jsonl";

/** A run's committee file as read. */
export interface CommitteeFile {
  file: string;
  verdicts: CommitteeVerdict[];
  /** The committee's judges: recorded, or (files written before it was recorded) the keys of the votes. */
  judges: string[];
  /** Judges deliberately left out when it was built; null when the file does not say (older files). */
  excluded_judges: string[] | null;
  quorum: number | null;
  /** 1-based lines that are not JSON (skipped). */
  bad_lines: number[];
}

/**
 * Write committee verdicts as JSON lines, atomically (temp file + rename), each recording the judge set.
 * @param file destination (`labels/<run>/committee.jsonl`).
 * @param meta.judges the committee's judges; `runJudges` every judge with verdicts in the run (those not in
 *   the committee are recorded as `excluded_judges`); `quorum`.
 * @throws the file system's error when the folder is not writable.
 */
export function writeCommitteeFile(
  file: string,
  verdicts: readonly CommitteeVerdict[],
  meta: { judges: readonly string[]; runJudges: readonly string[]; quorum: number },
): void {
  const { judges, excluded } = judgeSet(meta);
  writeFileAtomic(
    file,
    (function* () {
      for (const v of verdicts) yield JSON.stringify({ ...v, committee_judges: judges, excluded_judges: excluded, quorum: meta.quorum }) + "\n";
    })(),
  );
}

/**
 * {@link writeCommitteeFile} of committee verdicts held as a code per trajectory slot (`committeeReportColumns` of
 * `./report-columns.ts`): the same bytes, each distinct verdict's JSON after its id made once.
 * @param committee per slot 0 .. n-1 a code into the distinct verdicts (without `trajectory_id`).
 * @param idOf the trajectory id of a slot.
 */
export function writeCommitteeColumns(
  file: string,
  committee: { code: Uint32Array; verdicts: ReadonlyArray<Omit<CommitteeVerdict, "trajectory_id">> },
  idOf: (slot: number) => string,
  meta: { judges: readonly string[]; runJudges: readonly string[]; quorum: number },
): void {
  const { judges, excluded } = judgeSet(meta);
  // `{"trajectory_id":<id>,` + the rest of what JSON.stringify({ trajectory_id, ...v, <judge set> }) writes
  const tails = committee.verdicts.map((v) => "," + JSON.stringify({ ...v, committee_judges: judges, excluded_judges: excluded, quorum: meta.quorum }).slice(1) + "\n");
  writeFileAtomic(
    file,
    (function* () {
      for (let s = 0; s < committee.code.length; s++) yield `{"trajectory_id":${JSON.stringify(idOf(s))}${tails[committee.code[s]]}`;
    })(),
  );
}

/** The committee's judges sorted, and the run's other judges (left out), sorted. */
function judgeSet(meta: { judges: readonly string[]; runJudges: readonly string[] }): { judges: string[]; excluded: string[] } {
  const judges = [...meta.judges].sort();
  return { judges, excluded: meta.runJudges.filter((j) => !judges.includes(j)).sort() };
}

/**
 * Read a run's committee file, streamed, each row's repeated values (labels, votes, the judge set) shared
 * (`leanRecord` of src/store/lean-read.ts: the rows are read-only).
 * @param runDir the run folder.
 * @param opts.index the run's index: a row's `trajectory_id` becomes the index row's id string (one copy).
 * @returns the file, or null when the run has none.
 */
export async function readCommitteeFile(runDir: string, opts: { index?: Map<string, { id: string }> } = {}): Promise<CommitteeFile | null> {
  const file = path.join(runDir, COMMITTEE_FILE);
  if (!fs.existsSync(file)) return null;
  const bad: number[] = [];
  const verdicts: CommitteeVerdict[] = [];
  const it = new Interner();
  for await (const c of readJsonl<CommitteeVerdict>(file, (line) => bad.push(line))) verdicts.push(leanRecord(c, it, opts.index));
  const first = verdicts.find((v) => Array.isArray(v.committee_judges));
  const judges = first ? [...first.committee_judges!] : [...new Set(verdicts.flatMap((v) => Object.keys(v.votes ?? {})))].sort();
  return {
    file,
    verdicts,
    judges,
    excluded_judges: first && Array.isArray(first.excluded_judges) ? [...first.excluded_judges] : null,
    quorum: first && typeof first.quorum === "number" ? first.quorum : null,
    bad_lines: bad,
  };
}

/**
 * Why a committee file's recorded `quorum` is not one `committee` could have written (an integer from 1 to its number
 * of judges; a hand-edited 1e9, 0 or 1.5 made every trajectory `no_quorum` under the file's name: task s40), or
 * undefined when it is, or when none is recorded (older files).
 */
export function quorumProblem(quorum: number | null, judges: number): string | undefined {
  // a file of fewer than two judges is no committee whatever its quorum: said as such by its readers (no quorum line)
  if (judges < 2) return undefined;
  if (quorum === null || (Number.isInteger(quorum) && quorum >= 1 && quorum <= judges)) return undefined;
  return `quorum ${quorum} is not one committee writes (an integer from 1 to its ${judges} judge(s))`;
}

/** What {@link checkCommitteeFile} finds. */
export interface CommitteeFileCheck {
  /** The file no longer describes the run's committee (another judge set, changed votes): never read silently. */
  stale: string[];
  /** Worth a warning, not a refusal (judges deliberately left out). */
  notes: string[];
}

/**
 * Check a committee file against the run's current verdicts: the same judges (any judge of the run not in the
 * file must be recorded as deliberately excluded), the same repeat-0 votes, and every labelled trajectory.
 * @param cf the file; @param verdicts the run's current verdicts (`readVerdicts`).
 * @param index the run's index rows by id, when the caller has them: a labelled trajectory without a row (a verdict
 *   the index does not hold) is not looked for in the file, which `committee` writes per index row.
 * @returns problems that make the file stale (naming judges and counts) and notes.
 */
export function checkCommitteeFile(cf: CommitteeFile, verdicts: readonly Verdict[], index?: { has(id: string): boolean }): CommitteeFileCheck {
  const { stale, notes, name, gone } = checkJudgeSet(cf, [...new Set(verdicts.filter((v) => v.repeat === 0).map((v) => v.judge_id))]);
  // repeat-0 verdicts per judge, by trajectory id (no key string built per verdict: a million-verdict run)
  const rep0 = new Map<string, Map<string, Verdict>>();
  for (const v of verdicts) {
    if (v.repeat !== 0) continue;
    let m = rep0.get(v.judge_id);
    if (!m) rep0.set(v.judge_id, (m = new Map()));
    m.set(v.trajectory_id, v);
  }
  const changed = new Map<string, number>();
  const noVerdict = new Map<string, number>();
  const inFile = new Set<string>();
  for (const c of cf.verdicts) {
    inFile.add(c.trajectory_id);
    for (const j of cf.judges) {
      if (gone.includes(j)) continue;
      const v = rep0.get(j)?.get(c.trajectory_id);
      if ((c.votes?.[j] ?? null) === voteOf(v)) continue;
      const m = v === undefined ? noVerdict : changed;
      m.set(j, (m.get(j) ?? 0) + 1);
    }
  }
  staleVotes(stale, name, changed, noVerdict);
  // a verdict whose trajectory has no index row is in no figure, and `committee` writes a line per index row only
  // (break42: such a verdict made a file stale the moment committee wrote it, and compare --committee refused it)
  const labelledIds = new Set(verdicts.filter((v) => v.repeat === 0 && cf.judges.includes(v.judge_id) && (!index || index.has(v.trajectory_id))).map((v) => v.trajectory_id));
  const missing = [...labelledIds].filter((id) => !inFile.has(id)).length;
  if (missing) stale.push(`${missing} ${missing === 1 ? "trajectory" : "trajectories"} labelled by the committee's judges ${missing === 1 ? "is" : "are"} not in ${name} (labelled after it was written)`);
  return { stale, notes };
}

/**
 * The checks of a committee file's recorded judge set against the judges of the run now, shared by
 * {@link checkCommitteeFile} and `checkCommitteeSlots` (`./file-columns.ts`): no judge, a quorum committee could not
 * have written, judges gone from the run, judges the file does not include and does not record as excluded (stale);
 * judges deliberately left out (a note).
 * @param cf the file's `file` (named by its base name), `judges`, `excluded_judges` (null: not recorded) and `quorum`.
 * @param judges the judges with a repeat-0 verdict in the run (any order).
 * @returns the stale problems and notes so far (the vote checks add to them), the file's base name, and the file's
 *   judges that have no verdict in the run now (their votes are not compared).
 */
export function checkJudgeSet(
  cf: { file: string; judges: readonly string[]; excluded_judges: readonly string[] | null; quorum: number | null },
  judges: readonly string[],
): CommitteeFileCheck & { name: string; gone: string[] } {
  const stale: string[] = [];
  const notes: string[] = [];
  const name = path.basename(cf.file);
  const runJudges = [...judges].sort();
  const judgeList = cf.judges.join(", ") || "none";
  // a file of no judge (an older version wrote one for a run with no verdict, e.g. its judge stopped) is no result
  if (cf.judges.length === 0) stale.push(`${name} is the committee of no judge (written when the run had no verdict to combine): it holds no label`);
  const q = quorumProblem(cf.quorum, cf.judges.length);
  if (q) stale.push(`${name}: ${q}`);
  const gone = cf.judges.filter((j) => !runJudges.includes(j));
  if (gone.length) stale.push(`${name} counts votes of judge(s) ${gone.join(", ")}, which have no verdicts in the run now`);
  const excluded = cf.excluded_judges ?? [];
  const added = runJudges.filter((j) => !cf.judges.includes(j) && !excluded.includes(j));
  if (added.length) {
    stale.push(
      cf.excluded_judges === null
        ? `the run has judge(s) ${added.join(", ")} that ${name} (the committee of ${judgeList}) does not include, and the file does not record why (written by an older version)`
        : `judge(s) ${added.join(", ")} labelled the run after ${name} was written (the committee of ${judgeList})`,
    );
  }
  const left = excluded.filter((j) => runJudges.includes(j));
  if (left.length) notes.push(`${name} is the committee of ${judgeList}: judge(s) ${left.join(", ")} of the run were left out when it was built`);
  return { stale, notes, name, gone };
}

/**
 * The stale statements of a committee file's votes that differ from the run's: changed (relabelled or resumed), or
 * without a verdict in the run's figures now (their input gone, `input_removed`, or an id the run does not hold; red
 * team 15 F6: both were said as "votes changed").
 */
export function staleVotes(stale: string[], name: string, changed: Map<string, number>, noVerdict: Map<string, number>): void {
  const t = (n: number) => `${n} ${n === 1 ? "trajectory" : "trajectories"}`;
  for (const [j, n] of changed) stale.push(`judge ${j}'s votes changed on ${t(n)} since ${name} was written (relabelled or resumed)`);
  for (const [j, n] of noVerdict)
    stale.push(`judge ${j} has no verdict now on ${t(n)} ${name} counts (not in the run's figures: their input is gone, input_removed, or the run does not hold them)`);
}
