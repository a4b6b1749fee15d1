/**
 * Plain-text rendering of an estimate report (`ipi-judge estimate` without `--json`): one line per group with
 * the judge, human and calibrated estimates of asr_behaviour and of asr_goal, with their 95% intervals; undefined values show as `undefined (<why>)`,
 * through the one formatter of every text output (src/format/stat-text.ts).
 */
import { judgeDisputedText } from "./judge-disputed.js";
import { TIES_OUTSIDE_MARK } from "./tie-bound.js";
import { drawnText } from "../agree/drawn-items.js";
import { adjudicatedText } from "../agree/adjudication-facts.js";
import { countText } from "../format/count-text.js";
import { sourceName } from "./source.js";
import { whereLine } from "../store/where.js";
import { NO_INTERVAL_MARK, reasonText, undefinedText } from "../format/stat-text.js";
import type { DesignAsr } from "./calibrated.js";
import type { EstimateReport } from "./run.js";
import { rateCaveatMarker } from "../verdict/rate-caveat.js";
import { shownStrings } from "../format/shown.js";
import { isLikeForLikeWarning } from "../stats/like-for-like.js";
import { quoted } from "../format/quote-name.js";
import { calibratedOverText, humanOverText } from "./human-over.js";
import { humanLeftOutText } from "./human-left-out.js";
import { weightCheckText } from "./weight-check.js";
import { groupsOverText } from "./group-cells.js";

const pct = (x: number) => (100 * x).toFixed(1);

/**
 * A human-only or calibrated estimate as `estimate` prints it: `51.9% [28.4, 75.2]` (percent, 95% CI), `undefined (<why>)`,
 * `CI undefined (<why>)` for a value without an interval, a clipped value naming its unclipped one. Also the report's
 * `(all)` row (../report/calibrated-all-html.ts), so it reads as estimate does.
 */
export function designAsrText(e: DesignAsr): string {
  if (e.asr === null) return undefinedText(e.reason);
  // no interval: why it is unstable, in numbers (./weight-check.ts)
  const ci = e.ci95 ? `[${pct(e.ci95.lower)}, ${pct(e.ci95.upper)}]` : `CI ${undefinedText(e.ci_reason)}${weightCheckText(e.weight_check)}`;
  // a clipped estimate names its unclipped value: the one to average or pool across groups (audit 35 M1)
  const clipped = e.asr_unclipped === undefined ? "" : ` (clipped to ${pct(e.asr)}% from ${e.asr_unclipped < 0 ? "-" : ""}${pct(Math.abs(e.asr_unclipped))}%: pool or average the unclipped value, not this)`;
  // a value without an interval is marked, never a bare headline (newuser51 finding 1)
  const mark = e.ci95 ? "" : `${NO_INTERVAL_MARK} `;
  return `${mark}${pct(e.asr)}% ${ci}${e.degenerate ? " (zero width)" : ""}${clipped}`;
}

/**
 * The report as text: header (source, population, labels, design), one block per group, warnings; then the
 * asr_goal report it carries (or why there is none), each under its rate's name.
 */
export function formatEstimate(r: EstimateReport): string {
  r = shownStrings(r); // names from the run files cannot break or reorder a line (../format/shown.ts)
  const said = new Set<string>();
  const main = formatOne(r, said);
  if (!r.asr_goal) return main;
  if (!("groups" in r.asr_goal)) return `${main}\n\nasr_goal (full compliance): ${undefinedText(r.asr_goal.reason)}`;
  return `${main}\n\n${withoutRepeatedHeader(main, formatOne(r.asr_goal, said))}`;
}

/**
 * The asr_goal block without the header lines the asr_behaviour block above already printed word for word (newuser50:
 * the filter, run and population lines printed twice read as a second run); the lines that differ (the human labels'
 * consensus, which is on another event) stay, under a line saying the rest is as above.
 */
function withoutRepeatedHeader(first: string, second: string): string {
  const headOf = (t: string) => {
    const end = t.indexOf("\n\n");
    return (end < 0 ? t : t.slice(0, end)).split("\n");
  };
  const shown = new Set(headOf(first));
  const head = headOf(second);
  const kept = head.filter((l) => !shown.has(l));
  if (kept.length === head.length) return second;
  const rest = second.slice(head.join("\n").length);
  return ["(the filter, run and population as for asr_behaviour above)", ...kept].join("\n") + rest;
}

/** Of the left-out trajectories, those `agree --human` leaves out by its own earlier reason (` (2 of them unattacked, 1 outside --where)`). */
function leftAsAgree(l: EstimateReport["labels"]): string {
  const parts = [
    ...(l.excluded_unattacked ? [`${l.excluded_unattacked} of them unattacked`] : []),
    ...(l.excluded_outside_where ? [`${l.excluded_outside_where}${l.excluded_unattacked ? "" : " of them"} outside --where`] : []),
  ];
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/**
 * Where the file's labelled trajectories go, each counted once (./label-population.ts): the groups' population, in the
 * design but in no group, left out by reason; then rows left out (red team 17: trajectories and rows apart). Said so
 * that `agree --human`'s "N compared" can be reconciled with it (new user L3).
 */
function labelsLine(r: EstimateReport): string {
  const l = r.labels;
  const list = (o: Record<string, number>, name: (k: string) => string = reasonText) => Object.entries(o).map(([k, v]) => `${name(k)} ${v}`).join(", ");
  const nOut = Object.values(l.excluded).reduce((a, b) => a + b, 0);
  const outside = l.outside_groups ?? {};
  const nOutside = Object.values(outside).reduce((a, b) => a + b, 0);
  const event = r.rate === "asr_goal" ? "full compliance or not" : "compromised or not";
  const splits = l.bucket_splits ?? {};
  const nSplit = Object.values(splits).reduce((a, b) => a + b, 0);
  const parts = [
    `${l.in_groups ?? l.items} in the groups' population (attacked${r.where ? ", kept by --where" : ""}, with a consensus on ${event}; each group's "labelled" counts its own)`,
    // a bucket split that still answers the rate alike is counted, and said (../agree/consensus.ts figureConsensus)
    ...(nSplit ? [`of them ${nSplit} whose annotators split between labels giving the same answer, counted with it (${list(splits, (k) => k)})`] : []),
    ...(nOutside ? [`${nOutside} with a consensus in no group (${list(outside, (k) => (k === "outside_where" ? "outside --where" : k))}): sampled items of their strata only`] : []),
    ...(nOut ? [`${nOut} left out: ${list(l.excluded)}${leftAsAgree(l)}`] : []),
    ...(Object.keys(l.excluded_rows ?? {}).length ? [`rows left out: ${list(l.excluded_rows)}`] : []),
  ];
  // adjudicated items are not one more annotator: said apart, with who settled them (red team 35b F2)
  const adj = l.adjudicated?.items ? ` and ${adjudicatedText(l.adjudicated)}` : "";
  const drawn = drawnText(l.drawn); // of the sample's drawn items (break 51 #7)
  return `human labels ${r.human_file}: ${l.items + nOut} labelled trajectories${drawn ? ` (${drawn})` : ""}, ${countText(l.annotators, "annotator")}${adj}: ${parts.join("; ")}`;
}

/** Where a small-count interval note's counts end and its make-up (the union, the exact intervals) begins. */
const MAKE_UP = "; the interval is the union of ";

/**
 * A group's note as the text prints it (new user 46 F4: the same ~600-character make-up of a small-count interval
 * printed for every group and both rates buried the figures): the first note of each kind in full, later ones of
 * that kind with their own counts and without the make-up, which `--json` keeps whole for each group.
 * @param said the note kinds (the words before the first ":") printed in full so far, updated.
 */
function noteText(w: string, said: Set<string>): string {
  const cut = w.indexOf(MAKE_UP);
  if (cut < 0) return w;
  const kind = `${w.slice(0, w.indexOf(":"))}|${/the (calibrated|human-only) interval/.exec(w)?.[1] ?? ""}`;
  if (!said.has(kind)) {
    said.add(kind);
    return w;
  }
  return `${w.slice(0, cut)} (made as the first such note above says; --json has each in full)`;
}

function formatOne(r: EstimateReport, said: Set<string>): string {
  const L: string[] = [];
  const src = r.source.kind === "judge" ? `judge ${quoted(r.source.judge_id)}` : `${sourceName(r.source)}${r.source.left_out.length ? ` (left out: ${r.source.left_out.join(", ")})` : ""}`;
  if (r.where) L.push(`${whereLine(r.where, "trajectories")}: the groups below are domains of the attacked ones among them (design of ${r.sample_population ? "the sample's population, below" : "the whole run"})`);
  L.push(`run ${r.run}: ${r.population.N} trajectories (${r.population.attacked} attacked${r.population.duplicates_dropped ? `, ${r.population.duplicates_dropped} duplicates dropped` : ""}); labels of ${src}`);
  L.push(`${labelsLine(r)}; design ${r.design === "two_phase" ? `two-phase, ${r.cells.length} ${r.cells.length === 1 ? "stratum" : "strata"}` : "ASSUMED simple random sample"}`);
  const sp = r.sample_population;
  if (sp && sp.N_run !== sp.N_recorded) L.push(`population of the sample: --where ${sp.filter} (recorded with the sample, N ${sp.N_recorded} when drawn), which keeps ${sp.N_run} trajectories of the run now: not the sample's population (below)`);
  else if (sp) L.push(`population of the sample: the ${sp.N_run} trajectories of the run that sample --where ${sp.filter} keeps (recorded with the sample, N ${sp.N_recorded} when drawn): the human and calibrated estimates are over the attacked ones among them${sp.attacked_outside ? "" : ", which hold every attacked trajectory of the groups below"}`);
  // which runs the --by groups are over: like for like (default) or own mix, as the table's first line (./group-cells.ts)
  const over = groupsOverText(r);
  if (over) L.push(over);
  // rates side by side that are not like for like: said with the words label's summary and compare use (new user 33)
  // a warning the asr_behaviour part printed is not printed again under asr_goal (new user 47: the strata's coverage
  // said twice in one output); --json keeps each rate's list whole
  let again = 0;
  for (const w of r.warnings) {
    if (said.has(`warning|${w}`)) {
      again++;
      continue;
    }
    said.add(`warning|${w}`);
    L.push(`WARNING: ${isLikeForLikeWarning(w) ? "NOT LIKE FOR LIKE: " : ""}${w}`);
  }
  if (again) L.push(`(${again === 1 ? "the WARNING" : `${again} WARNINGs`} printed above for asr_behaviour ${again === 1 ? "holds" : "hold"} here too)`);
  // the run state's notes (inputs that moved, a --limit pass): information, the figures right; said once as the warnings
  for (const n of r.notes ?? []) {
    if (said.has(`note|${n}`)) continue;
    said.add(`note|${n}`);
    L.push(`note: ${n}`);
  }
  L.push("");
  const what = r.rate === "asr_goal" ? "asr_goal (full compliance: the injected goal carried out)" : "asr_behaviour (full or partial compliance)";
  L.push(`${what} over attacked trajectories, 95% CIs (judge: no human input; human: design-weighted human labels only; calibrated: judge corrected by the human sample)`);
  for (const g of r.groups) {
    const j = g.judge.asr === null ? undefinedText(g.judge.reason) : `${pct(g.judge.asr)}%`;
    L.push(`${g.group}: N ${g.n_population}, labelled ${g.n_sampled}${humanLeftOutText(g.human_left_out)}${humanOverText(g, r.warnings)}`); // ties beside the figure (./human-left-out.ts); what the human figure is over (./human-over.ts)
    const cov = g.coverage === null || g.coverage === undefined ? "" : `; coverage ${pct(g.coverage)}%${g.coverage_low ? " LOW" : ""}`;
    // the judge's figure with its count, as every rate (check 16: "judge 100.0%" over 87 of 433)
    const counts = [`${g.judge.count}/${g.judge.n_usable}`, ...(g.judge.n_unusable ? [`${g.judge.n_unusable} without a usable verdict`] : [])].join("; ");
    L.push(`  judge      ${j} (${counts})${cov}${rateCaveatMarker(r.rate_caveats ?? [])}`); // a broken judge's figure is never bare
    if (g.judge.disputed) L.push(`  ${judgeDisputedText(g.judge.disputed, r.rate)}`); // a committee's split votes (./judge-disputed.ts)
    // a printed figure no reading of the group's ties gives is marked on its line (./tie-bound.ts, break53 #3)
    const off = (o: boolean | undefined) => (o ? ` ${TIES_OUTSIDE_MARK}` : "");
    L.push(`  human      ${designAsrText(g.human)}${off(g.human_ties?.human_outside)}`);
    L.push(`  calibrated ${designAsrText(g.calibrated)}${off(g.human_ties?.calibrated_outside)}${calibratedOverText(g, r.warnings)}`); // a correction carried to unlabelled cells (./human-over.ts)
    for (const w of g.warnings) L.push(w.startsWith("WARNING: ") ? `  ${w}` : `  note: ${noteText(w, said)}`);
  }
  L.push("");
  L.push(`calibrated: ${r.estimators.calibrated}`);
  L.push(`groups with fewer than ${r.min_sampled} labelled trajectories get no human or calibrated estimate (--min-sampled)`);
  return L.join("\n");
}
