/**
 * The plain text of `compare` (`formatCompare`): the header with what was compared and what like for like left out
 * (per model and pooled, ./cells-text.ts), the rows per model and condition, then each figure under its heading.
 */
import { cellWidth, padCell } from "../format/text-table.js";
import { committeeName } from "../committee/members.js";
import { DEFAULT_QUORUM } from "../verdict/vote.js";
import { bootstrapLine, pctText, ppText, reasonText, statText, undefinedText } from "../format/stat-text.js";
import { ALL_SUITES, lowExposureCells, cellId, type AsrCell, type BootCI, type BootstrapSettings, REVERSAL_METHOD_HEAD, type ReversalResult, type WorstConditionRow } from "./analysis.js";
import { interactionFlagText } from "./logistic.js";
import { RATE_NAMES, type RateName } from "../stats/rates.js";
import { rateCaveatMarker } from "../verdict/rate-caveat.js";
import { BLOCKED_MEANS, blockedText, coverageText, exposureFigureText, rateFigureText } from "../format/rates-text.js";
import { formatUtilityRate } from "./utility.js";
import { whereLine } from "../store/where.js";
import { fieldNoun, groupsNoun } from "./cells.js";
import { formatCellsDropped, pooledFiguresText } from "./cells-text.js";
import { shownStrings } from "../format/shown.js";
import type { CompareResult } from "./result.js";
import { rowCoverageCounts } from "./row-coverage.js";
import { disputedRowText } from "./disputed-range.js";
import { baselineDifferenceLines } from "./baseline-diff-text.js";
import { quoted } from "../format/quote-name.js";

/** The condition column's fewest characters (wider when a condition's name is), and the unattacked rows' condition cell. */
const CONDITION_WIDTH = 28;
const NO_ATTACK = "(no attack)";

// Undefined figures read `undefined (<why>)` as in every other output (src/format/stat-text.ts).
const pct = (x: number | null | undefined, reason?: string) => pctText(x, reason);
// a difference of two rates, in percentage points (new-user report 16, finding 8: "underestimate 3.6%" read as a percent)
const pp = (x: number | null | undefined, reason?: string) => ppText(x, reason);
const num = (x: number | null | undefined, d = 3) => statText(x, undefined, d);
/**
 * ` [lower, upper]` of an interval; ` [CI undefined: reason]` when it was computed and has no value (every resample
 * undefined, say), so a missing interval is never silent; "" when none was computed (`--bootstrap 0`: the footnote
 * says so).
 */
const ci = (c: { lower: number | null; upper: number | null; reason?: string } | null | undefined, f = pct) =>
  !c ? "" : c.lower !== null && c.upper !== null ? ` [${f(c.lower)}, ${f(c.upper)}]` : ` [CI undefined: ${c.reason ? reasonText(c.reason) : "no value"}]`;

/** ` [coverage_low: a | x, ...]` when a figure uses cells below 80% coverage, else "". */
const lowText = (cells: readonly string[] | undefined, unexposed?: readonly string[]) =>
  (cells?.length ? ` [coverage_low: ${cells.join(", ")}]` : "") + (unexposed?.length ? ` [EXPOSURE LOW: ${unexposed.join(", ")}]` : "");

function pvalue(p: number | null): string {
  if (p === null) return undefinedText(undefined);
  if (p < 1e-4) return p.toExponential(2);
  return p.toFixed(4);
}

/**
 * The labels' coverage on the first line (new user 37: a committee with usable labels on 10.6% of the attacked runs
 * was read as the study's labels; its share was nowhere on the line that names it).
 */
function labelCoverageText(c: CompareResult["label_coverage"] | undefined): string {
  if (!c) return "coverage not recorded";
  const share = c.attacked > 0 ? `${((100 * c.labelled) / c.attacked).toFixed(1)}%` : "undefined";
  return `usable labels on ${c.labelled} of the ${c.attacked} attacked trajectories: coverage ${share}${c.attacked > 0 && c.labelled / c.attacked < 0.8 ? " LOW" : ""}`;
}

/** The header: what was compared, what was excluded and left out (per model and pooled), the warnings. */
function headerLines(r: CompareResult): string[] {
  const src = r.source.kind === "committee" ? (r.source.members ? `the ${committeeName({ members: r.source.members, quorum: r.source.quorum ?? DEFAULT_QUORUM })} (committee.jsonl)` : "the committee label") : `judge ${quoted(r.source.judge_id)}`;
  // the runs with no value of the compared field, under its own name (verifier 35 L4: --by attack said "no_condition")
  const exName = (k: string) => (k === "no_condition" && r.condition_field !== "condition" ? `no_${r.condition_field.replace(/[^A-Za-z0-9_]+/g, "_")} (no value of --by ${r.condition_field}: compare leaves them out)` : k === "no_condition" ? "no_condition (no condition recorded: compare leaves them out)" : k);
  const ex = Object.entries(r.excluded).map(([k, v]) => `${exName(k)} ${v}`).join(", ") || "none";
  const one = fieldNoun(r.condition_field), many = fieldNoun(r.condition_field, 2);
  // what the like-for-like comparison left out of the labelled ones, in the same sentence as the exclusions
  const left = [
    r.dropped_like_for_like ? `${r.dropped_like_for_like} in cells their model's own ${many} do not all cover (like-for-like, below)` : "",
    r.common_tasks.applied && r.common_tasks.dropped > 0 ? `${r.common_tasks.dropped} on tasks not every model ran (--common-tasks)` : "",
  ].filter(Boolean);
  const pf = r.pooled_figures;
  const pooled = pf.same_as_per_model ? "" : `; ${pooledFiguresText(r.condition_field)} are over ${pf.n_observations} labelled attacked trajectories (the cells every ${one} covers: like-for-like, pooled, below)`;
  const lines: string[] = [];
  if (r.where) lines.push(whereLine(r.where, `trajectories of the run: every figure below is over them`));
  lines.push(
    `cross-condition analysis${r.run ? ` of run ${r.run}` : ""} by ${r.condition_field}, labels from ${src} (${labelCoverageText(r.label_coverage)}): ` +
      `${r.n_observations} labelled attacked trajectories compared, of ${r.n_total} in the run; excluded: ${ex}` +
      (left.length > 0 ? `; labelled but left out to compare like for like: ${left.join(", ")}` : "") +
      pooled,
  );
  for (const g of r.excluded_groups ?? []) {
    const why = Object.entries(g.excluded).map(([k, v]) => `${k} ${v}`).join(", ");
    lines.push(`${g.field === "agent_model" ? "model" : g.field} ${g.group}: 0 usable labels of ${g.items} attacked trajectories (${why}), left out`);
  }
  lines.push(...formatCellsDropped(r.cells, r.condition_field));
  if (r.common_tasks.applied) lines.push(`--common-tasks: ${r.common_tasks.common_units} tasks shared by every model; ${r.common_tasks.dropped} trajectories on other tasks left out`);
  for (const w of r.warnings) lines.push(`WARNING: ${w}`);
  for (const n of r.notes ?? []) lines.push(`note: ${n}`);
  const tie = r.baseline_tie ? `, tied with ${r.baseline_tie.conditions.slice(1).join(", ")}: see the warning, choose one with --baseline` : "";
  const chosen = r.baseline_chosen_by === "option" ? "--baseline" : `default: ${r.baseline_chosen_by}${tie}`;
  lines.push(`models ${r.models.length}, suites ${r.suites.length}, ${groupsNoun(r.condition_field)} ${r.conditions.length}; baseline ${r.baseline} (${chosen}${r.baseline_note ? `; ${r.baseline_note}` : ""})`);
  return lines;
}

/**
 * `; attacked runs in the compared cells 3 of 30 (10.0%, labelled or not) LOW (...)`: the row's share of its model's
 * attacked runs under its condition, named for what it counts beside the coverage (labelled of attacked) and the
 * rates (count of labelled): new user 44 item 9 read "runs used 367 of 367 (100.0%)" beside rates over 86 as if
 * every run counted
 * (`like_for_like`, ./row-coverage.ts), "" when not computed. `kind`: a row of the per-model rows that lost cells
 * (named in the header), another per-model row, or a rate of the pooled figures (over the cells every condition
 * covers, said in the header: no warning of its own).
 */
function runsUsedText(c: AsrCell, kind: "dropped" | "row" | "pooled"): string {
  const l = c.like_for_like;
  if (!l) return "";
  const why = kind === "pooled" ? "like for like, pooled: header" : kind === "dropped" ? `like for like${l.low ? ": see the warning above" : ""}; the cells left out: header` : "like for like: see the warning above";
  return `; attacked runs in the compared cells ${rowCoverageCounts(l, "labelled or not")}${l.low ? ` LOW (${why})` : kind === "dropped" ? ` (${why})` : ""}`;
}

/** The key of a (model, condition) row. */
const rowKey = (c: Pick<AsrCell, "model" | "condition">) => `${c.model}\u0000${c.condition}`;

/**
 * The (model, condition) rows whose figures in the pooled figures (the reversals, the interaction test: the cells every
 * condition covers) are not the row's own, keyed by {@link rowKey}: the pooled cell, or null when it has none there.
 * Empty when the pooled figures are the rows'.
 */
function pooledDiffering(r: CompareResult): Map<string, AsrCell | null> {
  const out = new Map<string, AsrCell | null>();
  const pa = r.pooled_figures.asr;
  if (!pa) return out;
  const theirs = new Map(pa.filter((c) => c.suite === ALL_SUITES).map((c) => [rowKey(c), c]));
  for (const a of r.asr.filter((c) => c.suite === ALL_SUITES)) {
    const b = theirs.get(rowKey(a));
    if (!b) out.set(rowKey(a), null);
    else if (b.attacked !== a.attacked || b.labelled !== a.labelled || b.asr_goal.count !== a.asr_goal.count || b.asr_behaviour.count !== a.asr_behaviour.count) out.set(rowKey(a), b);
  }
  return out;
}

/**
 * A row's clause when the figures that set models side by side use other runs of it (out51: the two rates of one model
 * and condition were printed ~90 lines apart, their populations said only at the second): which runs each is over.
 */
function otherFigureText(r: CompareResult, a: AsrCell, b: AsrCell | null | undefined): string {
  if (b === undefined) return "";
  const over = `the cells every ${fieldNoun(r.condition_field)} covers`;
  if (b === null) return `; these rates are over the cells its own ${groupsNoun(r.condition_field)} share; ${pooledFiguresText(r.condition_field)} have none of its runs (none in ${over}: below)`;
  const short = (x: AsrCell["asr_goal"]) => (x.rate === null ? "undefined" : `${pctText(x.rate)} (${x.count}/${x.n})`);
  return `; these rates are over the cells its own ${groupsNoun(r.condition_field)} share (${a.attacked} attacked runs); ${pooledFiguresText(r.condition_field)} use ${b.attacked} of them, on ${over}: asr_goal ${short(b.asr_goal)}, asr_behaviour ${short(b.asr_behaviour)} (below)`;
}

/** The rows per model and condition (rates, utility), then the unattacked models' utility and its note. */
function rowLines(r: CompareResult, w: number, cw: number, marker: string): string[] {
  const lines: string[] = [];
  lines.push(
    `attack success per model and ${fieldNoun(r.condition_field)} (suites pooled; 95% Wilson interval; count/labelled): asr_goal = full compliance ` +
      "(the injected goal carried out: the one to compare with a benchmark's checker), asr_behaviour = full or partial compliance " +
      `(INFUSE's ASR-L); blocked_attempts = ${BLOCKED_MEANS}:`,
  );
  const other = pooledDiffering(r);
  for (const m of r.models) {
    for (const c of r.conditions_per_model[m]) {
      const cell = r.asr.find((x) => x.model === m && x.suite === ALL_SUITES && x.condition === c)!;
      const u = r.utility.find((x) => x.model === m && x.condition === c);
      const without = u && u.without_attack.reason !== "no_unattacked_trajectories" && u.without_attack.reason !== "only_injection_task_runs" ? `, without attack (user tasks) ${formatUtilityRate(u.without_attack)}` : "";
      const inj = u && u.excluded.injection_task_runs > 0 ? `; injection-task runs apart ${formatUtilityRate(u.injection_task_runs)}` : "";
      const util = u ? `; utility under attack ${formatUtilityRate(u.under_attack)}${without}${inj}` : "";
      // the row's n is after the like-for-like drop (the cells common to the model's own conditions): said on the row
      // whose rate it changed (newuser16)
      // and every row says its share of the model's runs there, LOW below half (session 39: 3 of 67 beside 69 of 69)
      const lfl = runsUsedText(cell, r.cells.per_model[m]?.dropped[c] ? "dropped" : "row");
      // runs that ended in an agent error are in the rates as the judge labelled them: said on the row (session 50)
      const errs = u?.under_attack.run_errors ? `; ${u.under_attack.run_errors} of its ${u.under_attack.n + u.under_attack.missing} attacked runs ended in an agent error (in the rates as labelled; the benchmark records them as failed)` : "";
      lines.push(
        `  ${padCell(m, w)}  ${padCell(c, cw)} asr_goal ${rateFigureText(cell.asr_goal)}, asr_behaviour ${rateFigureText(cell.asr_behaviour)}${marker}; ` +
          // a LOW coverage's clause is the warning's (compareConditions warns of every such row): said once, not twice
          `${blockedText(cell)}; ${coverageText(cell, "see the warning above")}${disputedRowText(cell)}; ${exposureFigureText(cell)}${cell.exposure_low ? " (see the warning above)" : ""}${lfl}${otherFigureText(r, cell, other.get(rowKey(cell)))}${errs}${util}`,
      );
    }
  }
  const noAttack = r.utility.filter((u) => u.condition === "(none)" && u.under_attack.n === 0 && (u.without_attack.rate !== null || u.injection_task_runs.rate !== null));
  for (const u of noAttack) {
    const inj = u.excluded.injection_task_runs > 0 ? `; injection-task runs apart ${formatUtilityRate(u.injection_task_runs)}` : "";
    lines.push(`  ${padCell(u.model, w)}  ${padCell(NO_ATTACK, cw)} utility (user tasks) ${formatUtilityRate(u.without_attack)}${inj}`);
  }
  if (r.utility_reason === "no_utility_in_input") {
    lines.push("  (utility: none: no trajectory of the run records a utility verdict (reference.utility); for Inspect logs, label --utility-scorer names the scorer that holds it)");
  }
  if (r.utility.length) {
    lines.push(
      "  (utility: the benchmark's utility check, 95% Wilson interval; without attack = unattacked runs of the user's own tasks; injection-task runs " +
        "(the injection task run as the user's task) are their own kind, not in it; attack success and utility are read together: defenses trade one for the other)",
    );
  }
  return lines;
}

/**
 * The rates the pooled figures rest on where they differ from the rows (`pooled_figures.asr`, suites pooled): a
 * (model, condition) with other trajectories there, or none; empty when they are the rows' own.
 */
function pooledRateLines(r: CompareResult, w: number, cw: number, marker: string): string[] {
  const pa = r.pooled_figures.asr;
  if (!pa) return [];
  const mine = new Map(r.asr.filter((c) => c.suite === ALL_SUITES).map((c) => [rowKey(c), c]));
  // each says its own runs beside the row's (out51): the row above is over the cells the model's own conditions share
  const row = (c: AsrCell) => {
    const a = mine.get(rowKey(c));
    const not = a ? `, not the ${a.attacked} of its row above (the cells its own ${groupsNoun(r.condition_field)} share)` : "";
    return `  ${padCell(c.model, w)}  ${padCell(c.condition, cw)} asr_goal ${rateFigureText(c.asr_goal)}, asr_behaviour ${rateFigureText(c.asr_behaviour)}${marker}; over its ${c.attacked} attacked runs on the cells every ${fieldNoun(r.condition_field)} covers${not}; ${coverageText(c)}; ${exposureFigureText(c)}${runsUsedText(c, "pooled")}`;
  };
  const out: string[] = [];
  for (const [k, b] of pooledDiffering(r)) {
    const a = mine.get(k)!;
    if (!b) out.push(`  ${padCell(a.model, w)}  ${padCell(a.condition, cw)} none of its ${a.attacked} attacked runs here (none in a cell every ${fieldNoun(r.condition_field)} covers that its other ${groupsNoun(r.condition_field)} cover too)`);
    else out.push(row(b));
  }
  for (const b of pa.filter((c) => c.suite === ALL_SUITES)) if (!mine.has(rowKey(b))) out.push(row(b));
  if (!out.length) return [];
  return [
    "",
    `${pooledFiguresText(r.condition_field)} rest on these rates where they differ from the rows above (on the cells every ${fieldNoun(r.condition_field)} covers, then the model's own: like-for-like, pooled, above):`,
    ...out,
  ];
}

/**
 * ` (tasks resampled, models fixed)` after a reversal share's interval: what it is over, said on the line itself
 * (new user 49 #7: `1/10 pairs reverse (10.0%) [10.0%, 20.0%]` read as "at least one reversal for certain"); ""
 * without an interval or a method.
 */
function methodClause(c: BootCI | null): string {
  if (!c?.method || c.lower === null || c.upper === null) return "";
  return ` (${c.method.startsWith(REVERSAL_METHOD_HEAD) ? c.method.slice(REVERSAL_METHOD_HEAD.length).trim() : c.method})`;
}

/** The reversals of one rate, suites pooled then per suite, and the pairs of conditions not compared. */
function reversalLines(r: CompareResult, rate: RateName): string[] {
  const many = fieldNoun(r.condition_field, 2);
  const over = r.pooled_figures.same_as_per_model ? "" : `; over the cells every ${fieldNoun(r.condition_field)} covers: like-for-like, pooled, above`;
  const lines = ["", `safety-ordering reversals between ${many} by ${rate} (model pairs observed under both; 95% CI: a paired bootstrap of the tasks with the models fixed: how the share moves with other tasks, not other models, so a bound at the share itself is no "at least that many for certain"${over}):`];
  const overall = r.reversals.filter((x) => x.suite === ALL_SUITES && x.rate === rate);
  if (overall.every((x) => x.pairs === 0)) lines.push(`  no pair of ${many} is observed for two models or more`);
  for (const x of overall) {
    if (x.pairs === 0) continue;
    lines.push(`  ${x.condition_a} vs ${x.condition_b}: ${x.reversals}/${x.pairs} pairs reverse (${pct(x.share)})${ci(x.ci95)}${methodClause(x.ci95)}${x.ties ? `, ${x.ties} of the ${x.pairs} tied (counted in the ${x.pairs}, never a reversal)` : ""}${lowText(x.coverage_low, x.exposure_low)}`);
    for (const s of r.reversals.filter((y) => y.rate === rate && y.suite !== ALL_SUITES && y.condition_a === x.condition_a && y.condition_b === x.condition_b)) {
      lines.push(`    ${s.suite}: ${s.reversals}/${s.pairs} (${pct(s.share)})${ci(s.ci95)}${lowText(s.coverage_low, s.exposure_low)}`);
    }
  }
  const none = overall.filter((x) => x.pairs === 0);
  if (none.length && none.length < overall.length) {
    const shown = none.slice(0, 8).map((x) => `${x.condition_a} vs ${x.condition_b}`);
    lines.push(
      `  not compared: ${none.length} of ${overall.length} pairs of ${many}, observed under both for fewer than two models (no_model_pairs): ` +
        `${shown.join(", ")}${none.length > shown.length ? `, ... (all in the JSON's reversals)` : ""}`,
    );
  }
  return lines;
}

/**
 * Which condition is worst, as the text says it: one name, or a tie named whole (`worst (tie) a = b`), or `all 3
 * conditions tied` when none is worse than another (fixM 2: a tie was named by its first condition by name).
 */
function worstText(m: WorstConditionRow, many: string): string {
  if (m.reason === "conditions_share_no_cell") return `highest (over different tasks, not a like-for-like worst) ${m.worst_tied ? m.worst_tied.join(" = ") : m.worst_condition}`;
  if (m.all_tied) return `no worst: all ${m.conditions} ${many} tied at`;
  if (m.worst_tied) return `worst (tie) ${m.worst_tied.join(" = ")}`;
  return `worst ${m.worst_condition}`;
}

/** The worst condition of one rate per model, and the mean underestimate over models. */
function worstLines(r: CompareResult, rate: RateName, w: number): string[] {
  const one = fieldNoun(r.condition_field), many = fieldNoun(r.condition_field, 2);
  // the underestimate's reason names the compared field too
  const ppBy = (x: number | null, reason?: string) =>
    reason === "fewer_than_2_conditions"
      ? `undefined (fewer than 2 ${many} observed, so no ${one} can be worse than the baseline)`
      : reason === "conditions_share_no_cell"
      ? `undefined (its ${many} share no cell common to all, so these rates are over different tasks: no ${one} is worse like for like; the paired differences from the baseline, over the cells each pair shares, are above)`
      : pp(x, reason);
  const wc = r.worst_condition[rate];
  // a default baseline that is a defense: the underestimate is relative to it (new user 33; the baseline line says why)
  const lines = ["", `worst ${one} by ${rate} vs the baseline ${wc.baseline}${r.baseline_note ? " (a defense, not no defense: see the baseline line)" : ""}:`];
  for (const m of wc.per_model) {
    lines.push(
      `  ${padCell(m.model, w)}  ${worstText(m, many)} ${rate} ${pct(m.worst_asr)}, baseline ${pct(m.baseline_asr)}, underestimate ${ppBy(m.underestimate, m.reason)} (${m.conditions} ${fieldNoun(r.condition_field, m.conditions)})` +
        lowText(m.coverage_low, m.exposure_low?.map((c) => `${m.model} | ${c}`)),
    );
  }
  lines.push(
    wc.mean === null
      ? `  underestimate ${ppBy(null, wc.reason)}`
      : `  underestimate over ${wc.n_models} models (percentage points): mean ${pp(wc.mean)}${ci(wc.mean_ci95, pp)}${wc.mean_ci95 && wc.mean_ci95.lower === null ? "" : " (model cluster bootstrap)"}, median ${pp(wc.median)}, max ${pp(wc.max)} (${wc.max_models ? `tie: ${wc.max_models.join(", ")}` : wc.max_model})` +
          lowText([], wc.per_model.flatMap((m) => (m.underestimate === null ? [] : (m.exposure_low ?? []).map((c) => `${m.model} | ${c}`)))),
  );
  return lines;
}

/** The cells of a rate table flagged coverage_low and EXPOSURE LOW (suites pooled, then in one suite only), as text. */
function flagged(asr: readonly AsrCell[]): { low: string[]; unexposed: string[] } {
  const pooledUnexposed = lowExposureCells(asr);
  return {
    low: asr.filter((c) => c.suite === ALL_SUITES && c.coverage_low).map((c) => `${c.model} | ${c.condition}`),
    unexposed: [
      ...asr.filter((c) => c.suite === ALL_SUITES && c.exposure_low).map((c) => `${c.model} | ${c.condition}`),
      // the folds select and evaluate on single suites, and the regression is over every suite's cells: their unexposed cells too (red team 25 L7)
      ...asr.filter((c) => c.suite !== ALL_SUITES && c.exposure_low && !pooledUnexposed.has(cellId(c.model, c.condition))).map((c) => `${c.model} | ${c.condition} in ${c.suite}`),
    ],
  };
}

/** Leave-one-suite-out selection by one rate (over the per-model figures' cells). */
function losoLines(r: CompareResult, rate: RateName): string[] {
  const { low, unexposed } = flagged(r.asr);
  const l = r.leave_one_suite_out[rate];
  const lines = ["", `leave-one-suite-out ${fieldNoun(r.condition_field)} selection by ${rate} (${l.n_folds} folds = model x held-out suite; ${l.skipped.length} skipped):`];
  if (l.n_folds > 0) {
    lines.push(`  selection accuracy ${pct(l.selection_accuracy)}; realized ${rate} ${pct(l.mean_realized_asr)} vs baseline ${pct(l.mean_baseline_asr)} and oracle ${pct(l.mean_oracle_asr)} (unweighted means of the ${l.n_folds} folds' rates, each fold one model's held-out suite whatever its runs: not rates over the held-out runs pooled)`);
    lines.push(`  gain over baseline ${pp(l.gain_over_baseline)}, gap to oracle ${pp(l.gap_to_oracle)}, oracle gain recovered ${pct(l.oracle_gain_recovered, l.reason)}`);
    if (l.folds_tied > 0) {
      const ex = l.folds.filter((f) => f.selected_tied).slice(0, 3).map((f) => `${f.model} without ${f.held_out}: ${f.selected_tied!.join(" = ")}`);
      lines.push(`  ${l.folds_tied} of ${l.n_folds} folds had conditions tied at the top on their training suites (${ex.join("; ")}${l.folds_tied > 3 ? "; ..." : ""}): their figures are the means over the tied conditions`);
    }
    const shared = l.folds.filter((f) => f.shared_cells);
    if (shared.length) lines.push(`  ${shared.length} fold${shared.length === 1 ? "" : "s"} of models whose ${fieldNoun(r.condition_field)}s share no cell overall, each on the cells its ${fieldNoun(r.condition_field)}s share in the fold (${shared.slice(0, 3).map((f) => `${quoted(f.model)} without ${quoted(f.held_out)}: ${f.shared_cells!.train} training cells, ${f.shared_cells!.held_out} held-out`).join("; ")}${shared.length > 3 ? "; ..." : ""})`);
    if (low.length) lines.push(`  built on cells with coverage_low (below 80%): ${low.join(", ")}`);
    if (unexposed.length) lines.push(`  built on cells with EXPOSURE LOW (the attack did not arrive): ${unexposed.join(", ")}`);
  } else {
    // no fold: say why, never an empty block (red team 29)
    const why = new Map<string, number>();
    for (const s of l.skipped) why.set(s.reason, (why.get(s.reason) ?? 0) + 1);
    lines.push(
      `  not computed: no fold${why.size ? ` (skipped, by reason: ${[...why].map(([k, n]) => `${k} ${n}`).join(", ")})` : " (no model ran two suites)"}`,
    );
  }
  // a fold withheld because its conditions share no cell is said with why, never only counted (session 52)
  for (const s of l.skipped.filter((x) => x.detail)) lines.push(`  withheld: ${quoted(s.model)} without ${quoted(s.held_out)} (${s.reason}): ${s.detail}`);
  return lines;
}

/** The model x condition test on one rate's event (over the pooled figures' cells), and the models in it with one condition. */
function interactionLines(r: CompareResult, rate: RateName): string[] {
  const one = fieldNoun(r.condition_field);
  const pf = r.pooled_figures;
  const { low, unexposed } = flagged(pf.asr ?? r.asr);
  const it = r.interaction[rate];
  const over = pf.same_as_per_model ? "" : `; over the cells every ${one} covers: like-for-like, pooled, above`;
  const lines = [
    "",
    `model x ${one} interaction on ${rate === "asr_goal" ? "full compliance (asr_goal)" : "full or partial compliance (asr_behaviour)"} (logistic regression, main effects model + suite + injection task + ${one}; likelihood-ratio test${over}):`,
    it.statistic === null
      ? `  not testable (${it.reason})`
      : `  G2 = ${num(it.statistic, 2)}, df = ${it.df}, p = ${pvalue(it.p_value)}  (n = ${it.n}, ${it.patterns} covariate patterns)${it.flags.length ? `; ${it.flags.map(interactionFlagText).join(", ")}` : ""}` +
          (low.length ? `; built on cells with coverage_low: ${low.join(", ")}` : "") +
          (unexposed.length ? `; built on cells with EXPOSURE LOW: ${unexposed.join(", ")}` : ""),
  ];
  // a model seen under one condition adds no model x condition term: said, never a silent mix of models per condition
  if (pf.single_condition_models.length && it.n > 0)
    lines.push(`  (models under one ${one} only, in its main effects with no model x ${one} term: ${pf.single_condition_models.join(", ")})`);
  return lines;
}

/** Plain-text rendering of a {@link CompareResult} (what `ipi-judge compare` prints without --json). */
export function formatCompare(r: CompareResult): string {
  r = shownStrings(r); // names from the run files cannot break or reorder a line (../format/shown.ts)
  // the model and condition columns as wide as their widest name (../format/text-table.ts): a long condition name
  // would otherwise push its row's figures out of line
  const w = Math.max(5, ...r.models.map(cellWidth));
  const cw = Math.max(CONDITION_WIDTH, cellWidth(NO_ATTACK), ...r.asr.map((c) => cellWidth(c.condition)), ...(r.pooled_figures.asr ?? []).map((c) => cellWidth(c.condition)));
  const marker = rateCaveatMarker(r.rate_caveats ?? []);
  const lines = [...headerLines(r), "", ...rowLines(r, w, cw, marker), ...baselineDifferenceLines(r.baseline_differences ?? [], r.baseline, fieldNoun(r.condition_field), w, cw, r.conditions_per_model, r.asr), ...pooledRateLines(r, w, cw, marker)];
  for (const rate of RATE_NAMES) lines.push(...reversalLines(r, rate));
  for (const rate of RATE_NAMES) lines.push(...worstLines(r, rate, w));
  for (const rate of RATE_NAMES) lines.push(...losoLines(r, rate));
  for (const rate of RATE_NAMES) lines.push(...interactionLines(r, rate));
  lines.push("", intervalsLine(r.bootstrap, r.reversals.find(endsAtPoint)));
  return lines.join("\n");
}

/**
 * Whether a reversal share's bootstrap interval prints a bound equal to the share itself (`pctText`, as the text
 * prints both), away from the ends of the scale: a share of 0.0% whose interval starts at 0.0% (or 100.0% ending at
 * 100.0%) is the scale's floor (ceiling), not the few values a share over few pairs takes.
 */
export function endsAtPoint(x: Pick<ReversalResult, "share" | "ci95">): boolean {
  const share = x.share;
  if (share === null || x.ci95 === null || x.ci95.lower === null || x.ci95.upper === null) return false;
  const printed = pctText(share);
  const at = (b: number | null, end: number) => b !== null && pctText(b) === printed && pctText(end) !== printed;
  return at(x.ci95.lower, 0) || at(x.ci95.upper, 1);
}

/**
 * The footnote that names every interval of `compare`'s text once (issue 26, new-user report: the reversal
 * intervals of a pair of conditions said "paired bootstrap 95% CI" with no B, seed or resampled unit): the
 * bootstrap (B, seed, percentile), what each bootstrap resamples, and the Wilson intervals of the rates; with
 * `atPoint` (a printed reversal share whose interval ends at it, {@link endsAtPoint}), why that can be, on its figures.
 */
export function intervalsLine(boot: BootstrapSettings, atPoint?: Pick<ReversalResult, "reversals" | "pairs" | "share" | "ci95">): string {
  const wilson = "the rates and utility carry 95% Wilson score intervals, their differences from the baseline 95% Newcombe hybrid score intervals (paired by cell, or unpaired where said)";
  // new user 24b: `3/6 (50.0%) [0.0%, 50.0%]` read as a fault; a share over few pairs takes few values, so a
  // percentile bound can fall on the point itself. The example is one printed above, its end named.
  let point = "";
  if (atPoint && atPoint.share !== null && atPoint.ci95 && atPoint.ci95.lower !== null && atPoint.ci95.upper !== null) {
    const s = pctText(atPoint.share);
    const upper = pctText(atPoint.ci95.upper) === s && s !== pctText(1);
    point =
      `; a reversal share over few model pairs takes few values, so its percentile interval can end exactly at the share itself ` +
      `(e.g. ${atPoint.reversals}/${atPoint.pairs} (${s}) [${pctText(atPoint.ci95.lower)}, ${pctText(atPoint.ci95.upper)}]: ` +
      `at most 2.5% of the resamples gave ${upper ? "more" : "less"} than ${s}, counting those with a model pair observed under both conditions): not an error`;
  }
  return boot.B > 0
    ? bootstrapLine(
        boot,
        "the 95% CIs of the reversal shares resample the pairing units (a task, suite/user task/injection task, the same for every model and both conditions; " +
          "a trajectory where the run has no task ids), that of the mean underestimate resamples the models (cluster: each with all its trajectories); " +
          wilson +
          point,
      )
    : bootstrapLine(boot, `the reversal shares and the mean underestimate have no interval; ${wilson}`);
}