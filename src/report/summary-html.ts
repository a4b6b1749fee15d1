/**
 * The report's first section (new user 45 #5: the page opened with ~22 warning boxes before any figure, the headline
 * rate far below): the headline rates with their population, the one or two caveats that change how to read them
 * (named briefly, each pointing at the full list), then every warning of the report under one collapsed
 * `<details id="warnings">` whose summary says how many there are and how many change how a figure reads
 * (./warning-groups.ts). Nothing is left out: the list holds each warning the page held before, at the top of the
 * Judges section.
 */
import { rateFigureText } from "../format/rate-figure-text.js";
import { ratePopulationText } from "../format/rate-population.js";
import type { AttackRates } from "../stats/rates.js";
import { escapeHtml } from "./escape.js";
import type { ReportModel } from "./data.js";
import { allDesignText, allJudgeText, pooledText } from "./calibrated-all-html.js";
import type { CalibratedAll, CalibratedAllRate } from "./calibrated-all.js";
import { groupedWarnings } from "./warning-groups.js";
import { calibratedOver, humanOver } from "./human-over-html.js";
import { warningKindOf } from "./warning-kinds.js";
import { headlinePoolText } from "./headline-pool.js";

const int = (x: number) => x.toLocaleString("en-US");

/** The headline's population: "all N attacked trajectories", or, of a run that is not complete or whose pass history is unknown, the N it holds (break 51 #2). */
function population(m: ReportModel, n: number): string {
  const where = m.where ? " kept by --where" : "";
  if (m.run_state.complete === false) return `the ${int(n)} attacked trajectories this incomplete run holds${where} (not all of its inputs: see "Read with")`;
  // an older build's run whose passes are not recorded: all of its inputs is not known (session 52 #2)
  if (m.run_state.status === "history_unknown") return `the ${int(n)} attacked trajectories this run holds${where} (whether these are all of its inputs is not known: see "Read with")`;
  return `all ${int(n)} attacked trajectories${where}`;
}

/** The headline of the calibrated `(all)` estimate: both rates with their intervals, the judge and human figures beside. */
function calibratedHeadline(m: ReportModel, a: CalibratedAll, cell: (p: CalibratedAllRate["cell"]) => string): string {
  const cal = (r: CalibratedAll["asr_goal"]) => ("cell" in r ? cell(r.cell) : escapeHtml(allDesignText(r, "calibrated")));
  return `<p class="headline">Attack success over ${population(m, a.n_population)} (${escapeHtml(pooledText(a))}): the labels of ${escapeHtml(m.paper_table!.judge)} corrected by ${int(a.n_sampled)} human-labelled ones (calibrated, 95% CI):
<strong>asr_goal ${cal(a.asr_goal)}</strong>, <strong>asr_behaviour ${cal(a.asr_behaviour)}</strong>.${extrapolatedHtml(calibratedOver([...m.warnings, ...(m.human?.warnings ?? [])], a))}</p>
<p class="note">The judge alone: asr_goal ${escapeHtml(allJudgeText(a.asr_goal))}, asr_behaviour ${escapeHtml(allJudgeText(a.asr_behaviour))}; the human labels alone (design-weighted): asr_goal ${escapeHtml(allDesignText(a.asr_goal, "human"))}, asr_behaviour ${escapeHtml(allDesignText(a.asr_behaviour, "human"))}${escapeHtml(humanOver([...m.warnings, ...(m.human?.warnings ?? [])], a))}. Per agent model and condition: <a href="#paper-table">the table of a paper</a> (its <a href="#paper-table-all">(all) row</a> is this figure).</p>`;
}

/** The headline's extrapolation caveat (./human-over-html.ts calibratedOver) as a sentence, or "". */
function extrapolatedHtml(t: string): string {
  return t ? ` <strong class="low">${escapeHtml(t.replace(/^CORRECTION EXTRAPOLATED: /, "Correction extrapolated: "))}.</strong>` : "";
}

/** The headline without a calibrated estimate: the table's judge (committee) rates over the attacked trajectories, else each rater's. */
function judgeHeadline(m: ReportModel): string {
  const t = m.paper_table;
  const rates = (r: AttackRates) => `asr_goal ${rateFigureText(r.asr_goal)}, asr_behaviour ${rateFigureText(r.asr_behaviour)}`;
  // per rater, the labelled ones its rates are over when fewer than the attacked (newuser51 finding 3)
  const raterRates = (r: AttackRates) => `${rates(r)}${r.labelled !== r.attacked ? ` (over its ${int(r.labelled)} labelled of ${int(r.attacked)} attacked)` : ""}`;
  const why = m.human ? "" : " (judge labels only: report --human FILE adds the human-corrected, calibrated figure)";
  const pop = population(m, m.attacked);
  const own = t ? (t.committee ? m.committee?.summary.rates : m.per_judge.find((j) => j.judge_id === t.judge)?.rates) : undefined;
  // the rates are over the labelled ones: named when fewer than all (newuser51: "over all 433" above "(86/86)")
  const over = own && own.labelled !== own.attacked ? (m.run_state.complete === false ? `the ${int(own.labelled)} labelled of ${pop}` : `${ratePopulationText(own.labelled, own.attacked, "trajectories", true)}${m.where ? " kept by --where" : ""}`) : pop;
  // what the figure pools, in the headline itself (newuser55 #4: a rate over 9 defenses, said only in a note below)
  if (t && own) return `<p class="headline">Attack success over ${over}${escapeHtml(headlinePoolText(t.rows))}, labels of ${escapeHtml(t.judge)}${why}: <strong>${escapeHtml(rates(own))}</strong> (95% Wilson intervals; count / labelled).</p>`;
  const lines = [...m.per_judge.map((j) => [j.judge_id, j.rates] as const), ...(m.committee ? [["the committee", m.committee.summary.rates] as const] : [])];
  return `<p class="headline">Attack success over ${pop}${why}, per rater (no table judge chosen: see <a href="#paper-table">the table</a>):</p><ul>${lines.map(([n, r]) => `<li>${escapeHtml(n)}: ${escapeHtml(raterRates(r))}</li>`).join("")}</ul>`;
}

/** The headline's caveats by warning kind (./warning-kinds.ts), most important first: a name and what it does to the figures. */
const KIND_CAVEATS: readonly { kinds: readonly string[]; name: string; says: string }[] = [
  { kinds: ["judge_broken"], name: "A judge looks broken", says: "its rates are not its judging." },
  { kinds: ["label_design_drift", "drawn_without_label"], name: "Human labels to check", says: "the human label file puts labels on other trajectories (or another design) than the sample drew, or leaves drawn items unlabelled, so the human and calibrated figures may be biased." },
  { kinds: ["same_content", "same_file_other_cell"], name: "Counted twice", says: "some trajectories are counted more than once (a copy under another id or in another cell), so counts and rates include them twice." },
  { kinds: ["pooled_run_folders", "pooled_conditions"], name: "Pooled", says: "some figures pool runs of several run folders or conditions (defenses) under one model and condition or attack." },
  { kinds: ["input_errors"], name: "Unread inputs", says: "some input files could not be read, so the figures leave those runs out (errors.jsonl names each)." },
  { kinds: ["mixed_configurations"], name: "Mixed judge configurations", says: "a judge's figures mix verdicts made under different configurations." },
  { kinds: ["not_like_for_like"], name: "Not like for like", says: "the agent models or conditions were run on different attacks or tasks, so rows side by side are not comparable and a pooled figure mixes them." },
  { kinds: ["coverage_low", "exposure_low", "strata_not_represented"], name: "LOW coverage", says: "some groups' rates speak for a subset of their runs (labelled, exposed or represented by the sample)." },
  { kinds: ["compliance_unrelated", "tool_arguments_invalid"], name: "Compliance labels to check", says: "some successes may count the user's own task or calls that never ran." },
  { kinds: ["utility_collapse"], name: "Utility collapse", says: "a condition's low attack success goes with a low utility, so it is not resistance alone." },
];

/**
 * The caveats that change how to read the headline, most important first (a run incomplete, no calibrated estimate,
 * then each group of warning kinds of {@link KIND_CAVEATS}, an exact small-sample interval after the broken judges,
 * then any other warning that changes how a figure reads), each named in a few words with its count of warnings; at
 * most `max`, the others named in one line.
 */
function keyCaveats(m: ReportModel, reading: readonly string[], max = 2): string[] {
  const a = m.paper_table?.calibrated_all;
  const exact = a && [a.asr_goal, a.asr_behaviour].some((r) => "cell" in r && r.cell.ci_method);
  const kinds = reading.map((w) => warningKindOf(w).kind);
  const notShown = reading.find((w) => w.startsWith("calibrated estimate not shown"));
  const count = (ks: readonly string[]) => kinds.filter((k) => ks.includes(k)).length;
  const warns = (n: number) => `${n} warning${n === 1 ? "" : "s"}`;
  const byKind = KIND_CAVEATS.filter((c) => count(c.kinds)).map((c) => `${c.name} (${warns(count(c.kinds))}): ${c.says}`);
  const said = new Set(["run_incomplete", "not_shown", ...KIND_CAVEATS.flatMap((c) => c.kinds)]);
  const other = kinds.filter((k) => !said.has(k)).length;
  const all = [
    ...(m.run_state.complete === false ? [`Run incomplete: ${m.run_state.message ?? "not every trajectory has its verdicts"}.`] : []),
    ...(notShown ? [`No calibrated (human-corrected) estimate: ${notShown.replace(/^calibrated estimate not shown: /, "")}`] : []),
    ...byKind.slice(0, 1),
    ...(exact ? [`Small human sample: ${int(a!.n_sampled)} labelled trajectories with few human–judge disagreements, so the calibrated intervals are exact small-count ones (wide), not t intervals.`] : []),
    ...byKind.slice(1),
    ...(other ? [`Other (${warns(other)}): see the warnings below.`] : []),
  ];
  const shown = all.slice(0, max);
  if (all.length > max) shown.push(`${all.length - max} more caveat${all.length - max === 1 ? "" : "s"} of that kind (${all.slice(max).map((c) => c.split(" (")[0].split(":")[0]).join("; ")}): see the warnings below.`);
  return shown;
}

/**
 * The summary section (module docstring).
 * @param cell the page's renderer of a calibrated cell (the paper table's), so the headline reads as the table.
 */
export function summarySection(m: ReportModel, cell: (p: CalibratedAllRate["cell"]) => string): string {
  const a = m.paper_table?.calibrated_all;
  const head = a ? calibratedHeadline(m, a, cell) : judgeHeadline(m);
  const { reading, notes } = groupedWarnings(m.warnings);
  const caveats = keyCaveats(m, reading);
  const n = reading.length + notes.length;
  const merged = m.warnings.length - n;
  const box = (w: string) => `<div class="warn">${escapeHtml(w)}</div>`;
  const list = n
    ? `<details id="warnings" class="warnings"><summary>All warnings of this report: ${int(n)} (${int(reading.length)} that change how a figure reads, ${int(notes.length)} notes${merged ? `; ${int(merged)} said alike for asr_goal and asr_behaviour given once` : ""})</summary>
${reading.length ? `<h3>That change how a figure reads (${int(reading.length)})</h3>${reading.map(box).join("")}` : ""}${notes.length ? `<h3>Notes (${int(notes.length)})</h3>${notes.map(box).join("")}` : ""}</details>`
    : `<p class="note">No warning.</p>`;
  return `<section id="summary"><h2>Summary</h2>
${head}
${caveats.length ? `<p class="note"><strong>Read with:</strong></p><ul class="caveats">${caveats.map((c) => `<li>${escapeHtml(c)} <a href="#warnings">(warnings)</a></li>`).join("")}</ul>` : ""}
${list}</section>`;
}
