/**
 * Which judges "the committee" of a run is: one definition for every command and every section of the report
 * (new user 30: `committee --exclude-judge signature` wrote a 3-judge committee.jsonl while `estimate --committee`,
 * `agree --human` and the report's agreement line used all 4 judges, and none of them named the members).
 *
 * The rule ({@link committeeMembers}):
 *  - `--exclude-judge ID` given: the run's judges without those (what `committee --exclude-judge ID` builds);
 *  - else, when the run has a committee.jsonl: the run's judges without the ones it records as left out, which is
 *    exactly its `committee_judges` while the file is current (`checkCommitteeFile`); a stale file is said;
 *  - else: every judge of the run, as `committee` does by default (the offline `signature` judge included: leave
 *    it out with `--exclude-judge signature`).
 * The quorum: `--quorum` when given, else the file's, else 2. A selection that differs from the stored committee
 * is said loudly (a warning naming both), since the stored one is what `committee`, `compare` and `agree
 * --reference` read.
 */
import path from "node:path";
import { DEFAULT_QUORUM } from "../verdict/vote.js";
import type { Verdict } from "../types.js";
import { checkCommitteeFile, COMMITTEE_FILE, quorumProblem, readCommitteeFile } from "./file.js";
import { committeeName } from "../format/committee-name.js";

export { committeeName } from "../format/committee-name.js";

/** A stored committee (committee.jsonl) as its metadata, and whether it still describes the run. */
export interface StoredCommittee {
  /** Path of the file. */
  file: string;
  /** Its judges (`committee_judges`, or an older file's vote keys). */
  judges: readonly string[];
  /** The run's judges left out when it was built; null when the file does not record it (older files). */
  excluded_judges: readonly string[] | null;
  quorum: number | null;
  /** Why the file no longer describes the run now (`checkCommitteeFile`'s `stale`); empty when current. */
  stale: readonly string[];
}

/** What a command's options ask for: `--exclude-judge` (repeatable) and `--quorum` (undefined: not given). */
export interface CommitteeAsk {
  exclude?: readonly string[];
  quorum?: number;
}

/** The committee of a run as a command uses it. */
export interface CommitteeMembers {
  /** Its judges, sorted. */
  members: string[];
  /** The run's other judges (not voting), sorted. */
  left_out: string[];
  quorum: number;
  /** Where the member set comes from. */
  basis: "exclude_judge_option" | "committee_file" | "every_judge";
  /** The stored file holds exactly this committee (members and quorum) and is current: its verdicts may be read. */
  matches_file: boolean;
  /** What the user must be told: a stale file, a selection other than the stored one. */
  warnings: string[];
}

/** Thrown for a selection the run cannot give (an unknown judge to leave out). */
export class CommitteeChoiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommitteeChoiceError";
  }
}

/**
 * The committee of a run (module docstring's rule).
 * @param runJudges every judge with a verdict in the run (any order).
 * @param stored the run's committee.jsonl metadata and staleness, or null when it has none.
 * @param ask the command's `--exclude-judge` and `--quorum`.
 * @param run the run's name (for the commands the warnings suggest).
 * @throws CommitteeChoiceError when `ask.exclude` names a judge without verdicts in the run, or `ask.quorum` is above
 *   the number of members.
 */
export function committeeMembers(runJudges: readonly string[], stored: StoredCommittee | null, ask: CommitteeAsk = {}, run = "RUN"): CommitteeMembers {
  const judges = [...new Set(runJudges)].sort();
  const exclude = [...new Set(ask.exclude ?? [])];
  const unknown = exclude.filter((j) => !judges.includes(j));
  if (unknown.length) throw new CommitteeChoiceError(`--exclude-judge: no judge ${unknown.map((x) => JSON.stringify(x)).join(", ")} in run ${run} (its judges: ${judges.join(", ") || "none"})`);
  const storedOut = stored?.excluded_judges ?? [];
  const out = exclude.length ? exclude : stored ? storedOut : [];
  const members = judges.filter((j) => !out.includes(j));
  const left_out = judges.filter((j) => out.includes(j));
  const quorum = ask.quorum ?? stored?.quorum ?? DEFAULT_QUORUM;
  // a quorum asked for above the members could label nothing (red team 36: --quorum 5 with 4 judges, no word why)
  if (ask.quorum !== undefined && ask.quorum > members.length)
    throw new CommitteeChoiceError(`--quorum ${ask.quorum} is more than the committee's ${members.length} member(s) (${members.join(", ") || "none"}): no trajectory could reach it`);
  const basis = exclude.length ? "exclude_judge_option" : stored ? "committee_file" : "every_judge";
  const warnings: string[] = [];
  const name = stored ? path.basename(stored.file) : COMMITTEE_FILE;
  const storedName = stored ? committeeName({ members: [...stored.judges].sort(), quorum: stored.quorum ?? DEFAULT_QUORUM }) : "";
  const rebuild = `ipi-judge committee --run ${run}${left_out.map((j) => ` --exclude-judge ${j}`).join("")}${quorum !== DEFAULT_QUORUM ? ` --quorum ${quorum}` : ""}`;
  const sameMembers = !!stored && sameSet(members, stored.judges);
  const sameQuorum = !!stored && (stored.quorum ?? DEFAULT_QUORUM) === quorum;
  if (stored && stored.stale.length) warnings.push(`${name} is stale (${stored.stale.join("; ")}): the ${committeeName({ members, quorum })} is computed from the current verdicts; run ${rebuild} to rebuild the file`);
  else if (stored && !(sameMembers && sameQuorum))
    warnings.push(
      `the committee asked for, ${committeeName({ members, quorum })}, is not the one stored in ${name}, ${storedName}, which committee, compare and agree --reference read: ` +
        `these figures are of the one asked for; run ${rebuild} to store it, or drop ${exclude.length ? "--exclude-judge" : ""}${exclude.length && !sameQuorum ? " and " : ""}${!sameQuorum ? "--quorum" : ""} to use the stored one`,
    );
  return { members, left_out, quorum, basis, matches_file: !!stored && stored.stale.length === 0 && sameMembers && sameQuorum, warnings };
}

/**
 * For a command that reads the committee's verdicts from committee.jsonl (`compare`, `agree --reference`): why the
 * committee its options ask for cannot be used (another member set or quorum than the file's), or null when none is
 * asked for or it is the file's.
 * @param command the command's name for the message (e.g. "compare --committee").
 * @throws CommitteeChoiceError as {@link committeeMembers}.
 */
export function otherThanStored(runJudges: readonly string[], stored: Omit<StoredCommittee, "stale">, ask: CommitteeAsk, run: string, command: string): string | null {
  if (!ask.exclude?.length && ask.quorum === undefined) return null;
  const m = committeeMembers(runJudges, { ...stored, stale: [] }, ask, run);
  if (m.matches_file) return null;
  const name = committeeName({ members: [...stored.judges].sort(), quorum: stored.quorum ?? DEFAULT_QUORUM });
  const rebuild = `ipi-judge committee --run ${run}${m.left_out.map((j) => ` --exclude-judge ${j}`).join("")}${m.quorum !== DEFAULT_QUORUM ? ` --quorum ${m.quorum}` : ""}`;
  return `${command} reads the committee from ${path.basename(stored.file)}, the ${name}; the one asked for is the ${committeeName(m)}: run ${rebuild} to store it, or drop --exclude-judge/--quorum`;
}

/**
 * The stored committee's metadata from a committee file as read and its check against the run.
 * @param cf `readCommitteeFile`'s or `readCommitteeColumns`' result; @param stale the check's `stale` list.
 */
export function storedCommittee(cf: { file: string; judges: readonly string[]; excluded_judges: readonly string[] | null; quorum: number | null }, stale: readonly string[]): StoredCommittee {
  // a recorded quorum committee could not have written is not used (the check's stale list says it: ./file.ts)
  return { file: cf.file, judges: cf.judges, excluded_judges: cf.excluded_judges, quorum: quorumProblem(cf.quorum, cf.judges.length) ? null : cf.quorum, stale };
}

/**
 * Read a run's committee.jsonl and check it against the run's verdicts (`checkCommitteeFile`).
 * @param runDir the run folder; @param verdicts the run's current verdicts (all of them, not a `--where` subset);
 * @param index the run's index rows by id (`checkCommitteeFile`'s: trajectories without a row are not looked for).
 * @returns its metadata and staleness, or null when the run has none.
 */
export async function readStoredCommittee(runDir: string, verdicts: readonly Verdict[], index?: { has(id: string): boolean }): Promise<StoredCommittee | null> {
  const cf = await readCommitteeFile(runDir);
  return cf ? storedCommittee(cf, checkCommitteeFile(cf, verdicts, index).stale) : null;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === new Set(b).size && a.every((x) => b.includes(x));
