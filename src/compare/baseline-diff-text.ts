/**
 * The text of `compare`'s differences from the baseline (./baseline-diff.ts): one line per agent model and condition
 * other than the baseline, each rate's difference (condition − baseline, percentage points) with its 95% interval,
 * and how it was made: paired (the cells, the discordant counts, the exact McNemar p) or unpaired (why).
 */
import { padCell } from "../format/text-table.js";
import { undefinedText } from "../format/stat-text.js";
import { byModelCondition, unattackedHaveNo, type BaselineDifference } from "./baseline-diff.js";
import { ALL_SUITES, type AsrCell } from "./analysis.js";
import { disputedRangeText } from "./disputed-range.js";

/** A signed difference in percentage points, one decimal: `+3.6`, `-11.7`, `0.0`. */
function signedPp(x: number): string {
  const v = (100 * x).toFixed(1);
  return v === "0.0" || v === "-0.0" ? "0.0" : x > 0 ? `+${v}` : v;
}

/** `p = 0.085` (3 significant decimals; `p < 0.001` below it), or `p undefined (<why>)`. */
function pText(p: number | null | undefined, reason?: string): string {
  if (p === null || p === undefined) return `p ${undefinedText(reason)}`;
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

const RATE_WORDS: Record<BaselineDifference["rate"], string> = {
  asr_goal: "asr_goal",
  asr_behaviour: "asr_behaviour",
  utility_under_attack: "utility under attack",
  utility_without_attack: "utility without attack",
};

/**
 * The cells a paired difference left out, by what is true of each (break50 4: "no label under the other: 24 + 104"
 * was said of cells the other attack never ran): `; left out, no run of the cell under the other: 24 + 104`, and the
 * cells the other ran with no usable label (`; left out, run under the other but with no usable label there: 1 + 0`);
 * for utility, whose runs without a verdict are not told from runs not made, `no utility verdict of the cell under
 * the other`. "" when none is left out. Counts are `condition + baseline` (the condition's cells, then the baseline's).
 */
function leftOutText(d: BaselineDifference): string {
  const left = d.pairs!.unpaired_left_out;
  if (left.condition + left.baseline === 0) return "";
  const un = d.pairs!.unpaired_unlabelled_there;
  if (!un) return `; left out, no ${d.rate.startsWith("utility") ? "utility verdict" : "label"} of the cell under the other: ${left.condition} + ${left.baseline}`;
  const notRun = { condition: left.condition - un.condition, baseline: left.baseline - un.baseline };
  const parts: string[] = [];
  if (notRun.condition + notRun.baseline > 0) parts.push(`no run of the cell under the other: ${notRun.condition} + ${notRun.baseline}`);
  if (un.condition + un.baseline > 0) parts.push(`run under the other but with no usable label there: ${un.condition} + ${un.baseline}`);
  return `; left out, ${parts.join("; ")}`;
}

/**
 * The cells both conditions ran that no pair holds, when any: `; 9 run under both with a usable label under
 * neither`, then `; paired over 476 of the 629 cells both ran (75.7%) [coverage_low]` when the pairs are under 80% of
 * them (newuser52 6: a defense difference over 75.7% of its cells carried no mark, and its counts did not add up).
 */
function pairCoverageText(d: BaselineDifference): string {
  const p = d.pairs!;
  if (p.pair_coverage === undefined || p.pair_coverage === null || !p.unpaired_unlabelled_there) return "";
  const both = p.unlabelled_under_both ?? 0;
  const shared = p.n + p.unpaired_unlabelled_there.condition + p.unpaired_unlabelled_there.baseline + both;
  const neither = both > 0 ? `; ${both} run under both with a usable label under neither` : "";
  const low = p.pair_coverage_low ? `; paired over ${p.n} of the ${shared} cells both ran (${(100 * p.pair_coverage).toFixed(1)}%) [coverage_low]` : "";
  return neither + low;
}

/**
 * One rate's difference: `asr_goal -3.6 pp [-9.3, +2.1] (16.9% vs 20.6%, paired over 360 cells: 18 vs 31
 * discordant, exact McNemar p = 0.085)`, or unpaired with the reason, or `undefined (<why>)`.
 */
export function differenceText(d: BaselineDifference): string {
  const name = RATE_WORDS[d.rate];
  if (d.difference === null || d.ci95 === null) return `${name} ${undefinedText(d.reason)}${disputedRangeText(d.disputed)}`;
  const pct = (c: { count: number; n: number }) => `${((100 * c.count) / c.n).toFixed(1)}%`;
  const rates = `${pct(d.condition_rate)} vs ${pct(d.baseline_rate)}`;
  const how = d.paired && d.pairs
    ? `paired over ${d.pairs.n} cells: ${d.pairs.condition_only} vs ${d.pairs.baseline_only} discordant, exact McNemar ${pText(d.mcnemar_p, d.mcnemar_reason)}` +
      leftOutText(d) + pairCoverageText(d)
    : `unpaired (${d.unpaired_reason}), ${d.condition_rate.count}/${d.condition_rate.n} vs ${d.baseline_rate.count}/${d.baseline_rate.n}`;
  // a committee's disputed runs left out on either side: the range read each way, beside the figure (newuser53 #2)
  return `${name} ${signedPp(d.difference)} pp [${signedPp(d.ci95.lower)}, ${signedPp(d.ci95.upper)}] (${rates}, ${how})${disputedRangeText(d.disputed)}`;
}

/**
 * What asr_behaviour's difference counts that a defense may have stopped: `; blocked attempts: 71 of progent's 81
 * compromised, 0 of no_defense's 90 (rows above)`, said when either side has a blocked attempt (or does not know
 * how many). newuser48: Progent read "asr_behaviour -2.5 pp (22.5% vs 25.0%)" while 71 of its 81 compromised runs were
 * calls it refused; the row said so, the difference line (the one a paper cites) did not. The counts are the rows'
 * (every labelled run of the model under the condition), not the paired cells'. "" when neither row is found.
 */
export function blockedDifferenceText(d: BaselineDifference, cells: readonly AsrCell[]): string {
  if (d.rate !== "asr_behaviour") return "";
  const row = (c: string) => cells.find((x) => x.model === d.model && x.suite === ALL_SUITES && x.condition === c);
  const cond = row(d.condition);
  const base = row(d.baseline);
  if (!cond || !base) return "";
  const blocked = (x: AsrCell) => x.blocked_attempts;
  if ((blocked(cond) ?? 1) === 0 && (blocked(base) ?? 1) === 0) return "";
  const side = (x: AsrCell, c: string) => `${blocked(x) ?? "unknown"} of ${c}'s ${x.asr_behaviour.count}`;
  return `; blocked attempts: ${side(cond, d.condition)} compromised, ${side(base, d.baseline)} (rows above)`;
}

/**
 * The block of lines: a heading naming the baseline and the method, then one line per (model, condition); [] when
 * there is no difference to give (one condition, or no model ran the baseline).
 * @param w the model column's width, @param cw the condition column's, as the rows.
 * @param cells the rows' rates (`CompareResult.asr`): asr_behaviour's difference says the blocked attempts it counts
 *   ({@link blockedDifferenceText}).
 */
export function baselineDifferenceLines(diffs: readonly BaselineDifference[], baseline: string, noun: string, w: number, cw: number, perModel: Record<string, string[]> = {}, cells: readonly AsrCell[] = []): string[] {
  // a model with differences (undefined ones too: its baseline runs unlabelled) was run under the baseline
  const withDiffs = new Set(diffs.map((d) => d.model));
  const without = Object.entries(perModel).filter(([m, cs]) => !cs.includes(baseline) && !withDiffs.has(m)).map(([m]) => m);
  const none = without.length ? [`  (no difference from the baseline for ${without.join(", ")}: not run under ${baseline})`] : [];
  if (diffs.length === 0) return none.length && Object.values(perModel).some((cs) => cs.length > 1) ? ["", ...none] : [];
  // by attack or surface, utility without attack is never defined (an unattacked run has neither): said once here,
  // not as "undefined (no run ... under X)" at the end of every line (break42); --json and --csv keep it per line
  const notBy = unattackedHaveNo(noun);
  const shown = diffs.filter((d) => d.reason !== notBy);
  const lines = [
    "",
    `difference from the baseline ${baseline}, same model (${noun} − baseline, percentage points, 95% interval): paired by cell${noun === "condition" ? "" :  " and defense (a run pairs with the baseline's run of its tasks under its own defense, or by cell alone when the compared values decide the defense)"} where the two ran the same cells once each ` +
      `(Newcombe's paired hybrid score interval over the cells with a label under both; discordant: cells with the event under the ${noun} only vs under the baseline only, ` +
      `exact McNemar p), else "unpaired" (Newcombe's hybrid score interval for independent samples); an interval that holds 0 shows no difference` +
      (shown.length < diffs.length ? `; utility without attack has no difference by ${noun}: an unattacked run has no ${noun} (${notBy}; each model's utility without attack is its own line above)` : "") +
      ":",
  ];
  for (const ds of byModelCondition(shown).values()) lines.push(`  ${padCell(ds[0].model, w)}  ${padCell(ds[0].condition, cw)} ${ds.map((d) => differenceText(d) + (d.difference === null ? "" : blockedDifferenceText(d, cells))).join("; ")}`);
  return [...lines, ...none];
}
