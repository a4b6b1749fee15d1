/**
 * `compare --csv FILE`: the rows of compare (per agent model and condition, suites pooled) as CSV, each with what it
 * is over (session 39: a row over 3 of a model's 67 runs must say so wherever the row goes, not only in the header).
 * Every column says what it counts (session 40: `attacked` sat beside `runs_available` but was counted after the
 * like-for-like drop, the same number as `runs_used`, so which runs it named was a guess):
 * - the rates, each with its Wilson interval, count and n (`<rate>_n`: the labelled runs it is over) and the reason
 *   of an undefined one;
 * - `attacked_used`: the model's attacked runs under the condition the row is over (labelled or not), after the
 *   like-for-like drop (and `--common-tasks`); `labelled`: those of them with a usable label; `coverage` =
 *   labelled / attacked_used, and `coverage_low`; `not_exposed` (of the labelled) and `exposure_low`;
 * - `attacked_available`: the model's attacked runs under the condition in the run (after `--where`), before the
 *   drop; `attacked_used_share` = attacked_used / attacked_available, and `attacked_used_low` below 50%
 *   (./row-coverage.ts);
 * - `judge_caveat`: always present, empty when the judges behind the labels are sound; else each broken one in
 *   words, the one marked LOOKS BROKEN or STOPPED and the one broken only by its errors or crashes alike
 *   (`judgeCaveatText`, ../verdict/broken-judge.ts): the rows of a judge compare exits 3 on never go out bare.
 * - `notes`: always present, the warnings the text prints (`WARNING: ...`), joined by ` | ` (../format/csv-notes.ts),
 *   the same on every row, as the table CSV's `notes`: empty when there is none.
 * - the difference of the row from its model's baseline on each rate (./baseline-diff.ts), condition − baseline:
 *   `<rate>_vs_baseline` with `_lower`, `_upper` (95%), `_method` (`paired` by cell or `unpaired`), `_pairs` (cells
 *   with a label under both), `_condition_only` and `_baseline_only` (the discordant cells), `_mcnemar_p` (exact),
 *   `_pair_coverage` (the pairs' share of the cells both conditions ran; ASR rates) and `_pair_coverage_low` (below
 *   80%), and `_reason` (why undefined: `baseline` on the baseline's own rows); `baseline` names it;
 * - a committee's split-vote runs (left out of the rates and the differences, as the text says: ./disputed-range.ts):
 *   `disputed` (the row's count), `asr_goal_split` (its committee full_compliance labels resting on a tie between
 *   full_compliance and partial_compliance votes, read each way in asr_goal's range: `goalSplit` of
 *   src/verdict/vote.ts), `<rate>_disputed_lower`/`_upper` (the rate with them read each way) and, per
 *   difference, `<rate>_vs_baseline_disputed_lower`/`_upper`; empty when none is disputed or tied (break2_53 #9: the
 *   CSV's notes said every row carries the range, which only the text and JSON did). A row with ties only has
 *   `disputed` 0, as its JSON `disputed.count`: a true count (no run left out), the range being asr_goal's over the
 *   ties; the text names the ties only (`DISPUTED 2 full_compliance on a full/partial tie: ...`), no "0 left out".
 * Undefined values are empty cells with the reason beside.
 */
import { writeCsv } from "../io/csv.js";
import { ALL_SUITES } from "./analysis.js";
import type { CompareResult } from "./result.js";
import { DIFFERENCE_RATES, type BaselineDifference } from "./baseline-diff.js";
import { judgeCaveatText, type BrokenJudge } from "../verdict/broken-judge.js";
import { joinCsvNotes } from "../format/csv-notes.js";

const num = (x: number | null | undefined) => (x === null || x === undefined ? "" : x);

const DIFF_SUFFIXES = ["", "_lower", "_upper", "_method", "_pairs", "_condition_only", "_baseline_only", "_mcnemar_p", "_pair_coverage", "_pair_coverage_low", "_reason", "_disputed_lower", "_disputed_upper"] as const;

/** The columns of one rate's difference from the baseline (empty with the reason when there is none). */
function diffCells(d: BaselineDifference | undefined, missing: string): (string | number)[] {
  if (!d) return ["", "", "", "", "", "", "", "", "", "", missing, "", ""];
  return [
    num(d.difference),
    num(d.ci95?.lower),
    num(d.ci95?.upper),
    d.difference === null ? "" : d.paired ? "paired" : "unpaired",
    num(d.pairs?.n),
    num(d.pairs?.condition_only),
    num(d.pairs?.baseline_only),
    num(d.mcnemar_p),
    num(d.pairs?.pair_coverage),
    d.pairs?.pair_coverage_low === undefined || d.pairs.pair_coverage_low === null ? "" : String(d.pairs.pair_coverage_low), // empty: no cell run under both (the reason column says so)
    d.reason ?? d.mcnemar_reason ?? d.pairs?.pair_coverage_reason ?? (d.paired ? "" : d.unpaired_reason ?? ""),
    num(d.disputed?.lower),
    num(d.disputed?.upper),
  ];
}

/** A row's `n_run_error_attacked` and `n_run_error_unattacked` cells, from its utility figures (empty without). */
const runErrorCells = (u: CompareResult["utility"][number] | undefined): (string | number)[] => (u ? [u.under_attack.run_errors, u.without_attack.run_errors] : ["", ""]);

/** The header of {@link compareRowsCsv}, after `agent_model` and the compared field. */
export const COMPARE_CSV_COLUMNS: readonly string[] = [
  ...(["asr_goal", "asr_behaviour"] as const).flatMap((k) => [k, `${k}_lower`, `${k}_upper`, `${k}_count`, `${k}_n`, `${k}_reason`]),
  "disputed",
  "asr_goal_split",
  ...(["asr_goal", "asr_behaviour"] as const).flatMap((k) => [`${k}_disputed_lower`, `${k}_disputed_upper`]),
  "baseline",
  ...DIFFERENCE_RATES.flatMap((k) => DIFF_SUFFIXES.map((s) => `${k}_vs_baseline${s}`)),
  "attacked_used",
  "labelled",
  "coverage",
  "coverage_low",
  "not_exposed",
  "exposure_low",
  "attacked_available",
  "attacked_used_share",
  "attacked_used_low",
  // runs that ended in an agent error (the benchmark log's error), as the text's rows say (fix50b): attacked ones
  // (in the rates as labelled) and unattacked user-task runs (in utility without attack); empty without utility figures
  "n_run_error_attacked",
  "n_run_error_unattacked",
  "judge_caveat",
  "notes",
];

/**
 * The CSV text (RFC 4180, LF row ends): one row per (agent model, condition) of `r.asr`, suites pooled.
 * @param broken the broken judges behind the labels (`brokenJudges(...).used`, crashes included): their caveat on
 *   every row, beside `r.rate_caveats`.
 */
export function compareRowsCsv(r: CompareResult, broken: readonly BrokenJudge[] = []): string {
  const rates = ["asr_goal", "asr_behaviour"] as const;
  const header = ["agent_model", r.condition_field, ...COMPARE_CSV_COLUMNS];
  // a broken judge's rates are never bare (new-user report 16), whatever made it broken (session 40)
  const caveat = judgeCaveatText(r.rate_caveats ?? [], broken);
  // the warnings the text prints above its rows, as it prints them, on every row (as the table CSV's `notes`)
  const notes = joinCsvNotes([...r.warnings.map((w) => `WARNING: ${w}`), ...(r.notes ?? []).map((n) => `note: ${n}`)]);
  const rows: (string | number)[][] = [header];
  // why a row has no difference: the baseline's own row, a model never run under the baseline, or no verdict of that rate
  // (a model with differences was run under the baseline, though its runs there may have no usable label: break42)
  const withDiffs = new Set((r.baseline_differences ?? []).map((d) => d.model));
  const missing = (model: string, condition: string) =>
    condition === r.baseline ? "baseline" : !(r.conditions_per_model[model] ?? []).includes(r.baseline) && !withDiffs.has(model) ? "model_not_under_baseline" : "no_verdict_for_this_rate";
  for (const c of r.asr.filter((x) => x.suite === ALL_SUITES)) {
    const l = c.like_for_like;
    rows.push([
      c.model,
      c.condition,
      ...rates.flatMap((k) => [num(c[k].rate), num(c[k].ci95?.lower), num(c[k].ci95?.upper), c[k].count, c[k].n, c[k].reason ?? ""]),
      num(c.disputed?.count),
      num(c.disputed?.goal_split),
      ...rates.flatMap((k) => [num(c.disputed?.[k].lower), num(c.disputed?.[k].upper)]),
      r.baseline,
      ...DIFFERENCE_RATES.flatMap((k) => diffCells((r.baseline_differences ?? []).find((d) => d.model === c.model && d.condition === c.condition && d.rate === k), missing(c.model, c.condition))),
      c.attacked,
      c.labelled,
      num(c.coverage),
      String(c.coverage_low),
      c.not_exposed,
      String(c.exposure_low),
      num(l?.available),
      num(l?.share),
      l ? String(l.low) : "",
      ...runErrorCells(r.utility.find((x) => x.model === c.model && x.condition === c.condition)),
      caveat,
      notes,
    ]);
  }
  return writeCsv(rows, { rowEnd: "\n" });
}
