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
 * - Runs of AgentDojo's denial-of-service attacks (`dos`, `*_dos`) are left out ({@link benchmarkGoalOf}): there the
 *   benchmark's `security` means the user task was not completed, not an injected goal achieved (newuser55 #2: on a
 *   slice of those attacks alone the column read 35.7% "goal achieved" beside the judge's 6.2%). The cell counts them
 *   (`dos_left_out`), the note names them per row, and a row of nothing else is null with {@link ONLY_DOS_RUNS}.
 */
import type { RateCell } from "./table-cells.js";
import { proportion } from "./table-cells.js";
import { referenceValueOf, type ReferenceValue } from "../stats/reference-rates.js";
import { DOS_ATTACK } from "../verdict/reference-goal.js";

/** The column's key (CSV), text title and LaTeX title. */
export const BENCHMARK_COLUMN = { key: "benchmark_asr_goal", title: "benchmark asr_goal", latex: "Benchmark ASR (goal)" } as const;

/** Why a row's benchmark cell is null when its runs carry no usable benchmark verdict at all. */
export const NO_BENCHMARK_VERDICT = "no_benchmark_verdict_in_input";
/** Why it is null when some runs carry one, but none of the runs the judge's asr_goal is over. */
export const NO_BENCHMARK_ON_JUDGED = "no_benchmark_verdict_on_the_judged_runs";
/** Why it is null when every judged run that carries one ran a denial-of-service attack (module docstring). */
export const ONLY_DOS_RUNS = "only_denial_of_service_runs";

/**
 * A run's benchmark verdict as the column reads it: `referenceValueOf` (a boolean `reference.security`, or why none is
 * usable), except that a run of a denial-of-service attack has none (`no_reference`): its `security` is "the user task
 * was not completed", not the injected goal (module docstring; `../verdict/reference-goal.ts` leaves them out of the
 * judge's health check alike).
 */
export function benchmarkGoalOf(row: { attack?: string | null; run_error?: unknown; reference?: { security?: unknown; utility?: unknown } }): ReferenceValue {
  const v = referenceValueOf(row);
  return typeof v === "boolean" && typeof row.attack === "string" && DOS_ATTACK.test(row.attack) ? "no_reference" : v;
}

/**
 * How many of a row's runs the column leaves out for their attack ({@link benchmarkCell}'s `dosLeftOut`): the judged
 * ones (`usable`) that ran a denial-of-service attack and carry a usable `security`.
 * @param runs the row's attacked runs (indices); @param usable whether the judge's asr_goal counts a run; @param row its index row.
 */
export function dosJudged(runs: readonly number[], usable: (i: number) => boolean, row: (i: number) => Parameters<typeof benchmarkGoalOf>[0]): number {
  return runs.filter((i) => usable(i) && typeof referenceValueOf(row(i)) === "boolean" && benchmarkGoalOf(row(i)) === "no_reference").length;
}

/** A row's benchmark cell: a rate cell, with the judged runs left out because they ran a denial-of-service attack. */
export type BenchmarkCell = RateCell & { dos_left_out?: number };

/**
 * The benchmark's asr_goal cell of a row (module docstring), from the row's judge asr_goal cell.
 * @param judgeGoal the row's `judge_asr_goal` (its `reference_security` filled by `rateCell` of ./table-cells.ts,
 *   reading {@link benchmarkGoalOf}).
 * @param dosLeftOut the judge's usable runs of the row that ran a denial-of-service attack and carry a boolean
 *   `security` (left out of the column by {@link benchmarkGoalOf}); 0 when none.
 * @returns x/n = benchmark goal-achieved / the judge's usable runs with a usable benchmark verdict, with a Wilson
 *   interval and the judge cell's coverage, and `dos_left_out` when some were left out; null value with a reason when
 *   there is none.
 */
export function benchmarkCell(judgeGoal: RateCell, dosLeftOut = 0): BenchmarkCell {
  const cov = { n_unusable: judgeGoal.n_unusable, coverage: judgeGoal.coverage, coverage_low: judgeGoal.coverage_low, ...(judgeGoal.coverage_low_reason ? { coverage_low_reason: judgeGoal.coverage_low_reason } : {}) };
  // a row with no attacked run on its cells (or withheld): the judge cell's own reason (./table-withheld.ts)
  if (judgeGoal.n + judgeGoal.n_unusable === 0) return { ...proportion(0, 0, judgeGoal.reason ?? "no_attacked_trajectories"), ...cov };
  const ref = judgeGoal.reference_security;
  const dos = dosLeftOut > 0 ? { dos_left_out: dosLeftOut } : {};
  if (!ref) return { ...proportion(0, 0, dosLeftOut > 0 ? ONLY_DOS_RUNS : NO_BENCHMARK_VERDICT), ...cov, ...dos };
  const l = ref.labelled;
  return { ...proportion(l.count, l.n, l.n === 0 && dosLeftOut > 0 && dosLeftOut >= ref.labelled_without_verdict ? ONLY_DOS_RUNS : NO_BENCHMARK_ON_JUDGED), ...cov, ...dos };
}

/**
 * Whether some row carries a benchmark verdict, or had its only ones left out as denial-of-service runs (the column is
 * shown: `undefined (only_denial_of_service_runs)` says why, where a missing column would read "no verdict").
 */
export const hasBenchmark = (rows: ReadonlyArray<{ judge_asr_goal: RateCell; benchmark_asr_goal?: BenchmarkCell }>) =>
  rows.some((r) => !!r.judge_asr_goal.reference_security || (r.benchmark_asr_goal?.dos_left_out ?? 0) > 0);

/**
 * The table's note on the benchmark column: what it is over, and the rows whose judged runs lack a usable benchmark
 * verdict (how many, by why); or, when no row carries one, that the column is left out and why.
 * @param rows the table's rows; @param withConditions whether rows are named `model | condition`.
 */
export function benchmarkNote(rows: ReadonlyArray<{ agent_model: string; condition: string | null; judge_asr_goal: RateCell; benchmark_asr_goal?: BenchmarkCell }>, withConditions: boolean): string {
  if (!hasBenchmark(rows)) {
    return "benchmark asr_goal: not shown: no attacked run of the table carries a usable benchmark verdict (reference.security; runs that ended in an agent error have none), so no row can be set beside the benchmark's own checker";
  }
  const gaps = rows.flatMap((r) => {
    const ref = r.judge_asr_goal.reference_security;
    const name = `${r.agent_model}${withConditions ? ` | ${r.condition}` : ""}`;
    const dos = r.benchmark_asr_goal?.dos_left_out ?? 0;
    if (!ref) return dos ? [`${name}: ${dos} of the judge's ${r.judge_asr_goal.n} (all of them denial-of-service runs)`] : [];
    return ref.labelled_without_verdict ? [`${name}: ${ref.labelled_without_verdict} of the judge's ${r.judge_asr_goal.n}${dos ? ` (${dos} of them denial-of-service runs)` : ""}`] : [];
  });
  return (
    "benchmark asr_goal: the benchmark's own attack verdict (reference.security: the injected goal achieved, by its checker) over the same runs as the row's asr_goal (its cells, the judge's usable verdicts: a committee's disputed runs are not among them), those with a usable benchmark verdict; runs that ended in an agent error (where it means nothing) or record none are left out" +
    // newuser55 #2: on these attacks security is the user task failed, not the injected goal: never counted as goal achieved
    `, and so are runs of a denial-of-service attack (dos, *_dos: there security means the user task was not completed, not the injected goal achieved)` +
    (gaps.length ? `: ${gaps.join("; ")}` : ": none here") +
    "; set it beside asr_goal: where the two n agree, the gap between them is the judge's disagreement with the benchmark on those runs; where the benchmark's n is smaller, the judge's rate also counts runs the benchmark column leaves out (agree --reference lists the runs)"
  );
}
