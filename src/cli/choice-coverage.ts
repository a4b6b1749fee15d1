/**
 * `estimate` (and `--table`) on a run with several judges and no `--judge`/`--committee` refuses, naming the judges
 * (`resolveSource`, ../estimate/source.ts); with this, each choice is named with its coverage too, as `compare`
 * names them (new user 37: a committee labelling 10.6% of the attacked runs beside a judge labelling all of them).
 */
import { readLeanRun } from "../store/lean-read.js";
import { readStoredCommittee } from "../committee/members.js";
import { buildCommittee, DEFAULT_QUORUM } from "../verdict/vote.js";
import { restrictRun, type WhereFilter } from "../store/where.js";
import { choiceLines, labelChoices } from "../compare/label-choices.js";
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
    const lean = await readLeanRun(runDir);
    const run = restrictRun({ index: lean.index, verdicts: lean.verdicts }, where);
    const judges = [...new Set(run.verdicts.map((v) => v.judge_id))].sort();
    const stored = await readStoredCommittee(runDir, lean.verdicts, lean.index);
    const members = stored && stored.stale.length === 0 && stored.judges.length >= 2 ? [...stored.judges].sort() : judges;
    const quorum = stored && stored.stale.length === 0 && stored.judges.length >= 2 ? (stored.quorum ?? DEFAULT_QUORUM) : DEFAULT_QUORUM;
    const committee = { members, quorum, verdicts: buildCommittee(run.verdicts, [...run.index.keys()], { judgeIds: members, quorum }), from: members === judges ? "every judge: no current committee.jsonl" : "committee.jsonl" };
    const lines = choiceLines(labelChoices(run.index, run.verdicts, judges, committee, "agent_model"));
    throw new UsageError(`${msg}; each with its usable labels among the attacked trajectories${where ? " kept by --where" : ""}:\n${lines.join("\n")}`);
  }
}
