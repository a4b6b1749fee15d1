/**
 * `estimate` (and `--table`) on a run with several judges and no `--judge`/`--committee` refuses, naming the judges
 * (`resolveSource`, ../estimate/source.ts); with this, each choice is named with its coverage too, as `compare`
 * names them (new user 37: a committee labelling 10.6% of the attacked runs beside a judge labelling all of them).
 * The run is read again on this refusal only, as columns (`labelChoicesColumns`: a million trajectories in bounded
 * memory; it was read as objects, over 600 MB at 1M before the verdicts were half read).
 */
import { readColumnRun } from "../store/columns.js";
import { storedCommittee } from "../committee/members.js";
import { checkCommitteeColumns, readCommitteeColumns } from "../committee/file-columns.js";
import { DEFAULT_QUORUM } from "../verdict/vote.js";
import type { WhereFilter } from "../store/where.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
import { COMPARE_ROW_FIELDS } from "../compare/data-columns.js";
import { choiceLines } from "../compare/label-choices.js";
import { labelChoicesColumns } from "./label-choices-columns.js";
import { UsageError } from "../errors.js";

/** The refusal of `resolveSource` for several judges and no choice (its message's shape). */
const SEVERAL = /^run .* has \d+ judges \(.*\): choose one with --judge ID, or --committee$/s;

/**
 * Run `fn`; when it refuses a run with several judges and no choice, refuse again with each choice's coverage: usable
 * labels among the (`--where`-kept) attacked trajectories with an agent model, per judge and for the committee
 * `--committee` would use (committee.jsonl's members and quorum, else every judge with quorum 2).
 */
export async function withChoiceCoverage<T>(runDir: string, where: WhereFilter | null | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const msg = (e as Error).message;
    if (!(e instanceof UsageError) || !SEVERAL.test(msg)) throw e;
    const read = await readColumnRun(runDir, { rowFields: whereRowFields(COMPARE_ROW_FIELDS, where) });
    const run = where ? restrictColumns(read, where).run : read;
    const judges = judgesOf(run);
    // the stored committee checked against the whole run (readStoredCommittee's check, on columns)
    const cc = await readCommitteeColumns(runDir, read);
    const stored = cc ? storedCommittee(cc, checkCommitteeColumns(cc, read).stale) : null;
    const usable = !!stored && stored.stale.length === 0 && stored.judges.length >= 2;
    const members = usable ? [...stored!.judges].sort() : judges;
    const quorum = usable ? (stored!.quorum ?? DEFAULT_QUORUM) : DEFAULT_QUORUM;
    const committee = { members, quorum, from: members === judges ? "every judge: no current committee.jsonl" : "committee.jsonl" };
    const lines = choiceLines(labelChoicesColumns(run, judges, committee, "agent_model"));
    throw new UsageError(`${msg}; each with its usable labels among the attacked trajectories${where ? " kept by --where" : ""}:\n${lines.join("\n")}`);
  }
}

/** The judges of a column run's current verdicts, sorted. */
function judgesOf(run: { nVerdicts: number; vCode: Uint32Array; verdicts: ReadonlyArray<{ judge_id: string }> }): string[] {
  const s = new Set<string>();
  for (let i = 0; i < run.nVerdicts; i++) s.add(run.verdicts[run.vCode[i]].judge_id);
  return [...s].sort();
}
