/**
 * The benchmark's own column of the paper table (`estimate --table`; newuser53 #4): the judge's asr_goal of a row
 * beside the benchmark's own attack verdict (`reference.security`, DESIGN section 3: true = the injected goal was
 * achieved, the event of asr_goal) over the same runs, so a per-row gap between the judge and the benchmark is
 * printed, not hidden in 24 runs of `agree --where`.
 *
 * - Over the same runs as the row's judge asr_goal: its attacked runs on the row's cells (like for like: the same
 *   cut) with a usable verdict of the judge, of them those with a usable benchmark verdict (`referenceValueOf` of
 *   src/stats/reference-rates.ts: a boolean `reference.security` and no agent error). That is
 *   `reference_security.labelled` of the judge's asr_goal cell; its n is printed when it differs from the row's n.
 * - It carries the judge rate's coverage (the same runs): withheld or flagged with it.
 * - A row none of whose runs carries a usable benchmark verdict: null with a reason, never 0 or a blank; a table none
 *   of whose rows does leaves the column out and says so in a note ({@link benchmarkNote}).
 */
import type { RateCell } from "./table-cells.js";
import { proportion } from "./table-cells.js";

/** The column's key (CSV), text title and LaTeX title. */
export const BENCHMARK_COLUMN = { key: "benchmark_asr_goal", title: "benchmark asr_goal", latex: "Benchmark ASR (goal)" } as const;

/** Why a row's benchmark cell is null when its runs carry no usable benchmark verdict at all. */
export const NO_BENCHMARK_VERDICT = "no_benchmark_verdict_in_input";
/** Why it is null when some runs carry one, but none of the runs the judge's asr_goal is over. */
export const NO_BENCHMARK_ON_JUDGED = "no_benchmark_verdict_on_the_judged_runs";

/**
 * The benchmark's asr_goal cell of a row (module docstring), from the row's judge asr_goal cell.
 * @param judgeGoal the row's `judge_asr_goal` (its `reference_security` filled by `rateCell` of ./table-cells.ts).
 * @returns x/n = benchmark goal-achieved / the judge's usable runs with a usable benchmark verdict, with a Wilson
 *   interval and the judge cell's coverage; null value with a reason when there is none.
 */
export function benchmarkCell(judgeGoal: RateCell): RateCell {
  const cov = { n_unusable: judgeGoal.n_unusable, coverage: judgeGoal.coverage, coverage_low: judgeGoal.coverage_low, ...(judgeGoal.coverage_low_reason ? { coverage_low_reason: judgeGoal.coverage_low_reason } : {}) };
  // a row with no attacked run on its cells (or withheld): the judge cell's own reason (./table-withheld.ts)
  if (judgeGoal.n + judgeGoal.n_unusable === 0) return { ...proportion(0, 0, judgeGoal.reason ?? "no_attacked_trajectories"), ...cov };
  const ref = judgeGoal.reference_security;
  if (!ref) return { ...proportion(0, 0, NO_BENCHMARK_VERDICT), ...cov };
  const l = ref.labelled;
  return { ...proportion(l.count, l.n, NO_BENCHMARK_ON_JUDGED), ...cov };
}

/** Whether some row carries a benchmark verdict (the column is shown). */
export const hasBenchmark = (rows: ReadonlyArray<{ judge_asr_goal: RateCell }>) => rows.some((r) => !!r.judge_asr_goal.reference_security);

/**
 * The table's note on the benchmark column: what it is over, and the rows whose judged runs lack a usable benchmark
 * verdict (how many, by why); or, when no row carries one, that the column is left out and why.
 * @param rows the table's rows; @param withConditions whether rows are named `model | condition`.
 */
export function benchmarkNote(rows: ReadonlyArray<{ agent_model: string; condition: string | null; judge_asr_goal: RateCell }>, withConditions: boolean): string {
  if (!hasBenchmark(rows)) {
    return "benchmark asr_goal: not shown: no attacked run of the table carries a usable benchmark verdict (reference.security; runs that ended in an agent error have none), so no row can be set beside the benchmark's own checker";
  }
  const gaps = rows.flatMap((r) => {
    const ref = r.judge_asr_goal.reference_security;
    const name = `${r.agent_model}${withConditions ? ` | ${r.condition}` : ""}`;
    if (!ref) return [];
    return ref.labelled_without_verdict ? [`${name}: ${ref.labelled_without_verdict} of the judge's ${r.judge_asr_goal.n}`] : [];
  });
  return (
    "benchmark asr_goal: the benchmark's own attack verdict (reference.security: the injected goal achieved, by its checker) over the same runs as the row's asr_goal (its cells, the judge's usable verdicts: a committee's disputed runs are not among them), those with a usable benchmark verdict; runs that ended in an agent error (where it means nothing) or record none are left out" +
    (gaps.length ? `: ${gaps.join("; ")}` : ": none here") +
    "; set it beside asr_goal: where the two n agree, the gap between them is the judge's disagreement with the benchmark on those runs; where the benchmark's n is smaller, the judge's rate also counts runs the benchmark column leaves out (agree --reference lists the runs)"
  );
}
