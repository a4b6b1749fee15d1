/**
 * The figure commands' side of `../verdict/stopped-judges.ts` for the ones whose library refuses a judge without
 * verdicts by its own message (estimate's `resolveSource`, report's "run has no verdicts"): when such a refusal comes
 * and the run records a stopped judge, the judges with a verdict among the rows read are counted (the run read again,
 * on this failing path only, as columns: a million trajectories in bounded memory) and the refusal becomes the
 * stopped-judge exit 3 naming each judge and why.
 */
import { readColumnRun } from "../store/columns.js";
import type { WhereFilter } from "../store/where.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
import { refuseStoppedJudges, whyJudgesStopped } from "../verdict/stopped-judges.js";

/**
 * Run `fn`; when it throws and a judge `command` was asked for (or, asked for none, every judge of the run when none
 * has a verdict) stored no verdict among the rows read because it was stopped, throw `StoppedJudgesError` (exit 3)
 * instead; otherwise its error stands.
 * @param asked the judges asked for (`--judge`), or null when none was named.
 * @param where the command's `--where`, when given: the rows read.
 */
export async function withStoppedJudges<T>(command: string, runDir: string, run: string, asked: readonly string[] | null, where: WhereFilter | null | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (whyJudgesStopped(runDir).size === 0) throw e;
    const read = await readColumnRun(runDir, { rowFields: whereRowFields([], where) });
    const rows = where ? restrictColumns(read, where).run : read;
    const judges = new Set<string>();
    for (let i = 0; i < rows.nVerdicts; i++) judges.add(rows.verdicts[rows.vCode[i]].judge_id);
    refuseStoppedJudges(command, runDir, run, asked, judges, where ? "among the rows --where selects" : undefined);
    throw e;
  }
}
