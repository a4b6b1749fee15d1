/**
 * The figure commands' side of `../verdict/stopped-judges.ts` for the ones whose library refuses a judge without
 * verdicts by its own message (estimate's `resolveSource`, report's "run has no verdicts"): when such a refusal comes
 * and the run records a stopped judge, the judges with a verdict among the rows read are counted (the run read again,
 * on this failing path only) and the refusal becomes the stopped-judge exit 3 naming each judge and why.
 */
import { readLeanRun } from "../store/lean-read.js";
import { restrictRun, type WhereFilter } from "../store/where.js";
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
    const lean = await readLeanRun(runDir);
    const rows = where ? restrictRun({ index: lean.index, verdicts: lean.verdicts }, where).verdicts : lean.verdicts;
    refuseStoppedJudges(command, runDir, run, asked, new Set(rows.map((v) => v.judge_id)), where ? "among the rows --where selects" : undefined);
    throw e;
  }
}
