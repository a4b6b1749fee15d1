/**
 * The caveats of the judge figures an estimate prints (`../verdict/rate-caveat.ts`, new-user report 16): a judge whose
 * evidence never verified has labels that code set, so its rate is not its judging. `estimate --table` and `estimate
 * --human` both mark the judge's figures with them, from the one health computation every command uses
 * (`judgeHealth`), over the verdicts of the trajectories the figures are of (after `--where`; every repeat; lean records carry the fields it reads: status, label,
 * error kind, downgraded, attacked, label_basis and each quote's verified flag).
 */
import type { Verdict } from "../types.js";
import { judgeHealth } from "../verdict/health.js";
import type { ReferenceRow } from "../verdict/reference-goal.js";
import { rateCaveats, type RateCaveat } from "../verdict/rate-caveat.js";
import { brokenJudges, type BrokenJudge } from "../verdict/broken-judge.js";
import { injectionUnknownWarnings } from "../verdict/injection-unknown.js";
import { toolArgumentsWarnings } from "../verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../verdict/evidence-unrelated-health.js";
import { elidedPromptWarnings } from "../verdict/label-rests-health.js";
import { inUserTaskWarnings } from "../verdict/evidence-in-user-task-health.js";
import { injectedValueWarnings } from "../verdict/injected-value-health.js";

/**
 * The caveats of the figures of `source` (an `EstimateSource` of ./run.ts, which imports this file): the judge's own, or, for a committee, those of its members (every judge of the run when `members` is not given).
 * @param verdicts the verdicts the figures are of (after any `--where`: the health every command shows is over the
 *   population of the figures it shows, so the counts a flag quotes belong to it).
 * @param rowOf the `k`-th verdict's trajectory's index row: its `attacked` for a verdict without one (`judgeHealth`'s
 *   fallback, as `compare`'s), its benchmark verdict for `denies_reference_goal`.
 * @returns the caveats of the judges that look broken or stopped (empty when every one is healthy).
 */
export function sourceCaveats(
  verdicts: Iterable<Verdict>,
  source: { kind: "judge"; judge_id: string } | { kind: "committee"; members?: readonly string[] },
  rowOf?: (v: Verdict, k: number) => ReferenceRow | undefined,
): RateCaveat[] {
  return sourceHealth(verdicts, source, rowOf).caveats;
}

/**
 * {@link sourceCaveats} and, from the same health computation, the broken judges (`../verdict/broken-judge.ts`: what
 * makes the command exit 3): `used` those behind the figures, `other` the run's other broken judges. `idOf`: the
 * `k`-th verdict's trajectory id for records without their own (a column run's shared records: `judgeHealth`).
 */
export function sourceHealth(
  verdicts: Iterable<Verdict>,
  source: { kind: "judge"; judge_id: string } | { kind: "committee"; members?: readonly string[] },
  rowOf?: (v: Verdict, k: number) => ReferenceRow | undefined,
  idOf?: (v: Verdict, k: number) => string | undefined,
): { caveats: RateCaveat[]; broken: { used: BrokenJudge[]; other: BrokenJudge[] }; selection: string[] } {
  // read once as they come (a column run's million records are not gathered into an array: issue 26 point 3),
  // unless a committee without its members must name every judge of the run from them
  const needAll = source.kind === "committee" && !source.members;
  const all = needAll ? asArray(verdicts) : verdicts;
  const health = judgeHealth(all, { rowOf, idOf });
  const ids = sourceJudgeIds(needAll ? (all as readonly Verdict[]) : [], source);
  // labels on runs whose injected text is unknown: the labelled subset is the judge's answers' (new user 48, 1)
  return { caveats: rateCaveats(health, ids), broken: brokenJudges(health, ids), selection: [...injectionUnknownWarnings(health, ids), ...toolArgumentsWarnings(health, ids), ...evidenceUnrelatedWarnings(health, ids), ...elidedPromptWarnings(health, ids), ...inUserTaskWarnings(health, ids), ...injectedValueWarnings(health, ids)] };
}

/**
 * The caveats of a paper table's two raters from one health computation: the judge's (or committee's) as
 * {@link sourceCaveats}, and the heuristic's (new user 18: a broken judge given as `--heuristic` was printed bare).
 * @param heuristic the `--heuristic` judge id; its caveats are empty when it is the judge itself (its columns are not printed).
 * @returns `{judge, heuristic}`: each the caveats of judges that look broken or stopped (empty when healthy); `broken`:
 *   the broken judges (`../verdict/broken-judge.ts`) behind the table (the heuristic's too) and the run's others.
 */
export function tableCaveats(
  verdicts: Iterable<Verdict>,
  source: { kind: "judge"; judge_id: string } | { kind: "committee"; members?: readonly string[] },
  heuristic: string,
  rowOf?: (v: Verdict, k: number) => ReferenceRow | undefined,
): { judge: RateCaveat[]; heuristic: RateCaveat[]; broken: { used: BrokenJudge[]; other: BrokenJudge[] }; selection: string[] } {
  const all = asArray(verdicts);
  const health = judgeHealth(all, { rowOf });
  const same = source.kind === "judge" && source.judge_id === heuristic;
  const ids = sourceJudgeIds(all, source);
  // the heuristic's columns are figures of the table too: a broken heuristic makes exit 3 as the judge does
  return {
    judge: rateCaveats(health, ids),
    heuristic: same ? [] : rateCaveats(health, [heuristic]),
    broken: brokenJudges(health, same ? ids : [...ids, heuristic]),
    selection: [...injectionUnknownWarnings(health, same ? ids : [...ids, heuristic]), ...toolArgumentsWarnings(health, same ? ids : [...ids, heuristic]), ...evidenceUnrelatedWarnings(health, same ? ids : [...ids, heuristic]), ...elidedPromptWarnings(health, same ? ids : [...ids, heuristic]), ...inUserTaskWarnings(health, same ? ids : [...ids, heuristic]), ...injectedValueWarnings(health, same ? ids : [...ids, heuristic])],
  };
}

/**
 * The judges behind `source`'s figures, the one place that decides it for {@link sourceCaveats} and
 * {@link tableCaveats}: the judge itself, or for a committee its members (without them: every judge with a verdict
 * in the run, sorted).
 */
function sourceJudgeIds(all: readonly Verdict[], source: { kind: "judge"; judge_id: string } | { kind: "committee"; members?: readonly string[] }): string[] {
  if (source.kind === "judge") return [source.judge_id];
  return source.members ? [...source.members] : [...new Set(all.map((v) => v.judge_id))].sort();
}

const asArray = (verdicts: Iterable<Verdict>): readonly Verdict[] => (Array.isArray(verdicts) ? (verdicts as readonly Verdict[]) : [...verdicts]);
