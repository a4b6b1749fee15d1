/**
 * The report page: one self-contained HTML file (styles, script and SVG charts inline; nothing is fetched when
 * it is viewed). A Content-Security-Policy allows only the page's own inline script (by its sha256) and inline
 * styles, and blocks every network request, so even a rendering bug could not run a trajectory's payload.
 * Every untrusted string goes through `escapeHtml`.
 */
import { formatComplianceEvidence } from "../verdict/compliance-evidence-health.js";
import { humanCountsText } from "./human-counts.js";
import { countText } from "../format/count-text.js";
import { humanScope } from "./human-scope.js";
import { humanDesignNoteHtml, humanForestRows, humanHeatmapCaption, humanTableHtml } from "./human-agreement-html.js";
import { byConstruction, fewItemsMark, fewItemsWarnings, forestCaption, forestGroups, oneCategoryWarnings } from "./agreement-notes.js";
import { whereLine } from "../store/where.js";
import { describeCost, pricedAtText } from "../providers/cost.js";
import { createHash } from "node:crypto";
import { BUCKETS, type Verdict } from "../types.js";
import { escapeAttr, escapeHtml, judgeClass, nameHtml, neutralizeBidi } from "./escape.js";
import { judgesDiffer, sharedFigHtml, sharedNoteHtml } from "./asr-common-html.js";
import { barCoverageLow } from "./asr-common.js";
import { hasBenchmark } from "../estimate/table-benchmark.js";
import { COMMITTEE_COLOR, JUDGE_COLORS, asrChart, conditionHeatmap, confusionHeatmap, forestPlot, labelDistributionChart, tokensChart, type ForestRow } from "./charts.js";
import { committeeCaveatHtml, rateCaveatHtml } from "./rate-caveat-html.js";
import { FIRST_REPLY_TH, firstReplyCell } from "./first-reply-html.js";
import { cellsNotesHtml } from "./cells-note.js";
import { utilitySubTableHtml } from "./utility-html.js";
import { COMMITTEE, type ReportModel } from "./data.js";
import { itemsSection } from "./items-html.js";
import { sameRowsCommand } from "./same-rows.js";
import { coverageWithheld, EXACT_MARK, hasConditions, heuristicShown, type TableRow } from "../estimate/table.js";
import { TIES_OUTSIDE_MARK, TIES_OUTSIDE_WHY, type HumanTies } from "../estimate/tie-bound.js";
import { BLOCKED_NOTE_HTML, blockedRatesCell, blockedTableCell } from "./blocked-html.js";
import { ciText, NO_INTERVAL_MARK, pctText, statText, undefinedText, type IntervalLike } from "../format/stat-text.js";
import { weightCheckText, type WeightCheck } from "../estimate/weight-check.js";
import { ratesText } from "../format/rates-text.js";
import { codeMajorityText } from "../committee/code-majority.js";
import { committeeName } from "../committee/members.js";
import { agreementPopulation, attackedOnlyNote } from "../agree/attacked-only.js";
import { orderedReasons } from "../agree/human-items.js";
import { RATE_NAMES } from "../stats/rates.js";
import { exposureLowConditionsHtml, exposureLowHtml, exposureLowMark } from "./exposure-html.js";
import { conditionReferenceText, referenceSubsetHtml } from "./reference-html.js";
import { isLikeForLikeWarning } from "../stats/like-for-like.js";
import { markedNameHtml, mixFootnotesHtml, nCellHtml, populationHtml } from "./table-marks-html.js";
import { asrGroupKey, asrGroups } from "./asr-groups.js";
import { conditionsOverHtml, conditionsPopulationHeading } from "./conditions-over-html.js";
import { leniencyRetestHtml } from "./leniency-retest-html.js";
import { formatRepeatedKey } from "../verdict/repeated-key-health.js";
import { formatEnvExplained } from "../verdict/env-explained-health.js";
import { rateLimitText } from "../verdict/rate-limit-health.js";
import { extraKeysText } from "../verdict/extra-keys-health.js";
import { calibratedAllNoteHtml, calibratedAllRowHtml } from "./calibrated-all-html.js";
import { summarySection } from "./summary-html.js";
import { rowCountCellsHtml, rowCountHeadsHtml, rowCountLegendHtml } from "./row-counts-html.js";

// One rendering of undefined or degenerate figures for every output (src/format/stat-text.ts): `undefined (<why>)`.
const pct = (x: number | null | undefined, reason?: string) => escapeHtml(pctText(x, reason));
const f3 = (x: number | null | undefined, reason?: string) => escapeHtml(statText(x, reason));
const ci = (c: IntervalLike | null | undefined, reason?: string) => escapeHtml(ciText(c, reason));
const int = (x: number) => x.toLocaleString("en-US");

const STYLE = `
:root{--fg:#1d2329;--muted:#5f6b76;--line:#dde3e8;--bg:#fafbfc;--card:#fff;--accent:#2d5fa0}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#17324d;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:2px 0;color:#c9d6e3}
nav{margin-top:10px;display:flex;flex-wrap:wrap;gap:14px}
nav a{color:#fff;text-decoration:none;border-bottom:1px dotted #9fb6cc}
main{padding:8px 28px 40px;max-width:1500px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:16px 0}
h2{font-size:18px;margin:2px 0 10px}
h3{font-size:15px;margin:14px 0 6px}
.note{color:var(--muted);font-size:13px;margin:4px 0 10px}
pre.figures{font-size:12px;overflow-x:auto;background:#f6f8fa;border:1px solid var(--line);padding:8px 10px;border-radius:6px;white-space:pre}
.warn{background:#fff6e0;border:1px solid #f0d48a;padding:6px 10px;border-radius:6px;margin:6px 0}
p.headline{font-size:16px;margin:4px 0 8px}details.warnings>summary{cursor:pointer;font-weight:600;padding:6px 0}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{background:#f3f5f7;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:22px;align-items:flex-start}
figure{margin:0}
figcaption{font-size:13px;color:var(--muted);margin:2px 0 6px;font-weight:600}
.chart svg{max-width:100%;height:auto}
.grid{display:flex;flex-wrap:wrap;gap:18px}
.controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:6px 0 10px}
.controls button{border:1px solid var(--line);background:#fff;border-radius:14px;padding:3px 11px;cursor:pointer;font:inherit}
.controls button[aria-pressed="true"]{background:var(--accent);color:#fff;border-color:var(--accent)}
.controls input{border:1px solid var(--line);border-radius:6px;padding:4px 8px;font:inherit;min-width:260px}
details.item{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:#fff}
details.item>summary{cursor:pointer;padding:7px 10px;list-style:none;display:flex;flex-wrap:wrap;gap:8px;align-items:center}
details.item>summary::-webkit-details-marker{display:none}
details.item>summary::before{content:"▸";color:var(--muted)}
details.item[open]>summary::before{content:"▾"}
details.item[open]>summary{border-bottom:1px solid var(--line);background:#f7f9fb}
.tid{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.kind{font-size:11px;text-transform:uppercase;letter-spacing:.04em;border-radius:4px;padding:1px 6px;background:#eee}
.kind.disputed{background:#fde2e1;color:#9b1c1c}
.kind.not_unanimous{background:#fff1d6;color:#8a5300}
.kind.reference_disagreement{background:#e5ecfb;color:#23408e}
.chip{border-radius:10px;padding:1px 8px;font-size:12px;border:1px solid var(--line);background:#fff}
.chip b{font-weight:600}
.chip.none{color:var(--muted);font-style:italic}
.body{padding:10px 12px}
.meta td{border:none;padding:1px 10px 1px 0}
.traj{display:flex;flex-direction:column;gap:6px;margin-top:8px}
.msg{border:1px solid var(--line);border-radius:6px;overflow:hidden}
.msg .mh{font-size:12px;color:var(--muted);background:#f4f6f8;padding:2px 8px}
.msg.r-assistant .mh{background:#eaf1fb}
.msg.r-tool .mh{background:#f4f0e8}
.msg.r-tooldef .mh{background:#f7ecf4}
.msg.r-user .mh{background:#eef7ee}
pre{margin:0;padding:6px 9px;white-space:pre-wrap;word-break:break-word;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre.pc{border-top:1px dashed var(--line);background:#fbfcfe}
.cl{color:var(--muted);font-size:11px}
.ctl{font-size:10.5px;color:#9b1c1c;background:#fde2e1;border-radius:3px;padding:0 2px;font-family:ui-monospace,Menlo,Consolas,monospace}
bdi{unicode-bidi:isolate}
mark.q{border-radius:2px;padding:0 1px;color:inherit}
mark.j0{background:#cfe0f3;box-shadow:inset 0 -2px #4c78a8}
mark.j1{background:#fde0c2;box-shadow:inset 0 -2px #f58518}
mark.j2{background:#d4ecd1;box-shadow:inset 0 -2px #54a24b}
mark.j3{background:#ecdcea;box-shadow:inset 0 -2px #b279a2}
mark.j4{background:#eadfd7;box-shadow:inset 0 -2px #9d755d}
mark.j5{background:#d5eeec;box-shadow:inset 0 -2px #72b7b2}
mark.j6{background:#f8d5d5;box-shadow:inset 0 -2px #e45756}
mark.j7{background:#e9e6e4;box-shadow:inset 0 -2px #bab0ac}
mark.multi{background:#fff2a8;box-shadow:inset 0 -3px #7a6a00;outline:1px dashed #7a6a00}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:4px}
.sw.j0{background:#4c78a8}.sw.j1{background:#f58518}.sw.j2{background:#54a24b}.sw.j3{background:#b279a2}
.sw.j4{background:#9d755d}.sw.j5{background:#72b7b2}.sw.j6{background:#e45756}.sw.j7{background:#bab0ac}
.sw.multi{background:#fff2a8;outline:1px dashed #7a6a00}
ul.quotes{margin:0;padding:5px 10px 7px 26px;background:#fff8f8;border-top:1px dashed #f1c6c6;font-size:12.5px}
ul.quotes li{margin:2px 0}
.badge{font-size:11px;border-radius:3px;padding:0 5px}
.badge.unverified{background:#c0392b;color:#fff}
.badge.not_located{background:#7f8c8d;color:#fff}
.badge.not_checked{background:#b9770e;color:#fff}
.badge.not_shown{background:#2d7d46;color:#fff}
.cut{color:#5f6b76;background:#eef1f4;border-radius:3px;padding:0 3px;font-style:italic}
.warn.stale{background:#fde2e1;border-color:#e4a3a0}
.why{color:var(--muted)}
.closest{color:var(--muted);margin-left:14px}
.rationale{white-space:pre-wrap;max-width:640px;color:#333}
.lab{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
.hidden{display:none}
footer{color:var(--muted);font-size:12px;padding:0 28px 30px}
`;

const SCRIPT = `
(function(){
  var list=document.getElementById('items');
  if(!list)return;
  var items=Array.prototype.slice.call(list.querySelectorAll('details.item'));
  var kind='all';
  var q=document.getElementById('item-search');
  var count=document.getElementById('item-count');
  function apply(){
    var text=(q&&q.value||'').toLowerCase();
    var shown=0;
    items.forEach(function(d){
      var ok=(kind==='all'||d.getAttribute('data-kind')===kind)&&(!text||(d.getAttribute('data-search')||'').indexOf(text)>=0);
      d.classList.toggle('hidden',!ok);
      if(ok)shown++;
    });
    if(count)count.textContent=String(shown)+' of '+String(items.length)+' shown';
  }
  Array.prototype.forEach.call(document.querySelectorAll('button[data-filter]'),function(b){
    b.addEventListener('click',function(){
      kind=b.getAttribute('data-filter');
      Array.prototype.forEach.call(document.querySelectorAll('button[data-filter]'),function(x){x.setAttribute('aria-pressed',String(x===b));});
      apply();
    });
  });
  var ex=document.getElementById('expand-all');
  if(ex)ex.addEventListener('click',function(){items.forEach(function(d){if(!d.classList.contains('hidden'))d.open=true;});});
  var co=document.getElementById('collapse-all');
  if(co)co.addEventListener('click',function(){items.forEach(function(d){d.open=false;});});
  if(q)q.addEventListener('input',apply);
  apply();
})();
`;

/** sha256 of the inline script, for the Content-Security-Policy. */
export function scriptHash(script = SCRIPT): string {
  return `sha256-${createHash("sha256").update(script, "utf8").digest("base64")}`;
}

function raterColors(model: ReportModel): { names: string[]; colors: string[] } {
  const names = model.judges.map((j) => j.id);
  const colors = names.map((_, i) => JUDGE_COLORS[i % JUDGE_COLORS.length]);
  if (model.committee) {
    names.push(COMMITTEE);
    colors.push(COMMITTEE_COLOR);
  }
  return { names, colors };
}

function figure(caption: string, svg: string, id?: string): string {
  return `<figure class="chart"${id ? ` id="${id}"` : ""}><figcaption>${escapeHtml(caption)}</figcaption>${svg}</figure>`;
}

/**
 * Cost and tokens per judge and for the run, over every verdict (all repeats: what was billed), and the request
 * settings each judge actually used (temperature, token parameter). The judges table above is over repeat 0: its
 * verdict count is not this one's when a judge repeated, so each table says what it covers (new-user report 31, L1).
 */
function costSection(m: ReportModel): string {
  const c = m.costs;
  if (!c || c.per_judge.length === 0) return "";
  const rows = c.per_judge
    .map((j) => {
      const temp = j.temperature_used === undefined ? "not recorded" : j.temperature_used === null ? "none sent (reasoning model)" : String(j.temperature_used);
      const adapted = j.adapted?.length ? ` (adapted: ${j.adapted.join("; ")})` : "";
      return `<tr><td>${nameHtml(j.judge_id)}</td><td class="num">${int(j.verdicts)}${j.repeats > 1 ? ` (${int(j.repeats)} repeats)` : ""}</td><td class="num">${int(j.usage.prompt_tokens)}</td><td class="num">${int(j.usage.completion_tokens)}</td><td class="num">${escapeHtml(describeCost(j.cost))}</td><td>${escapeHtml(temp + adapted)}</td><td>${escapeHtml(j.token_param ?? "not recorded")}</td></tr>`;
    })
    .join("");
  const repeated = c.per_judge.some((j) => j.repeats > 1);
  return `<h3>Cost and request settings</h3><p class="note">Cost of the run: ${escapeHtml(describeCost(c.run))}${pricedAtText(c.run) ? `, ${escapeHtml(pricedAtText(c.run))}` : ""} (USD at each judge's configured price; a verdict without a known cost makes a total incomplete, never 0). Tokens and cost are over every verdict of each judge${repeated ? ", all repeats (what was billed; the judges table above counts repeat 0 only)" : ""}.</p>
<table><thead><tr><th>judge</th><th class="num">verdicts (every repeat)</th><th class="num">prompt tokens</th><th class="num">completion tokens</th><th class="num">cost</th><th>temperature used</th><th>token limit parameter</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * Each judge's compliance labels whose evidence is the injection's own words (echoed or moved onto a call), with the
 * first items: the report showed the echoed ones only in its disagreement table and the moved ones nowhere
 * (verifier 35 L7); and its replies that gave a JSON key twice with different values (`repeated_key`, with the
 * first items), and the rate limits its requests got and waited out. "" when no judge has any.
 */
function complianceEvidenceNotes(m: ReportModel): string {
  const lines = (m.judge_health ?? []).flatMap((h) => {
    // and its replies that gave a JSON key twice (../verdict/repeated-key-health.ts), beside them as in the health line
    // and the rate limits its requests waited out (../verdict/rate-limit-health.ts: minutes of waits went unsaid)
    // and the keys of its replies the parser did not read (../verdict/extra-keys-health.ts)
    const t = (
      formatComplianceEvidence(h.compliance_evidence) +
      formatRepeatedKey(h.repeated_key) +
      // and the values it explained away as the environment's (../verdict/env-explained-health.ts)
      formatEnvExplained(h.env_explained) +
      (h.rate_limited ? `; ${rateLimitText(h.rate_limited)}` : "") +
      (h.extra_keys ? `; ${extraKeysText(h.extra_keys)}` : "")
    ).replace(/^; /, "");
    return t ? [`<p class="note">Judge ${escapeHtml(h.judge_id)}: ${escapeHtml(t)}</p>`] : [];
  });
  return lines.join("\n");
}

/** The committee's rates with its members' caveats (new user 36 #1), then its code-majority caveat, as the committee command prints them. */
function committeeRatesHtml(m: ReportModel, c: NonNullable<ReportModel["committee"]>): string {
  const mark = committeeCaveatHtml(m.judge_health, c.members);
  const code = codeMajorityText(c.code_majority);
  return mark ? `${escapeHtml(ratesText(c.summary.rates))}${mark}${code ? escapeHtml(code) : ""}` : escapeHtml(ratesText(c.summary.rates) + code);
}

function overviewSection(m: ReportModel): string {
  const rows = m.per_judge
    .map((j, i) => {
      const n = j.verdicts;
      const rate = (x: number) => pct(n > 0 ? x / n : null, "empty_input");
      return `<tr><td><span class="sw ${judgeClass(i)}"></span>${nameHtml(j.judge_id)}</td><td>${nameHtml(j.judge_model)}</td><td>${escapeHtml(j.judge_family)}</td>
<td class="num">${int(n)}</td><td class="num">${int(j.by_status.ok ?? 0)}</td><td class="num">${rate(j.errors)}</td><td class="num">${rate(j.refusals)}</td>
<td class="num">${rate(j.unjudgeable)}</td><td class="num">${pct(j.downgrade_rate, j.downgrade_rate_reason)}</td>${firstReplyCell(m.judge_health, j.judge_id)}</tr>`;
    })
    .join("");
  const c = m.committee;
  const committee = c
    ? `<h3>Committee</h3><p class="note">Every committee figure of this report is that of the ${escapeHtml(committeeName(c) + (c.left_out.length ? ` (left out: ${c.left_out.join(", ")})` : ""))}. Its verdicts ${c.source === "committee.jsonl" ? "from committee.jsonl" : "computed (run ipi-judge committee to store them)"}:
ok ${int(c.summary.by_status.ok)}, disputed ${int(c.summary.by_status.disputed)}, no quorum ${int(c.summary.by_status.no_quorum)}; unanimous ${int(c.summary.unanimous)} (over all ok votes, unattacked runs included);
committee label over the ${int(c.summary.rates.labelled)} of ${int(c.summary.rates.attacked)} attacked with one: ${committeeRatesHtml(m, c)}.
Its ${int(c.members.length)} members' agreement over the attacked trajectories${leftNote(c.agreement.unattacked_left_out)} (six buckets): Fleiss' kappa ${f3(c.agreement.six.fleiss.value, c.agreement.six.fleiss.reason)}, Krippendorff's alpha ${f3(c.agreement.six.alpha.value, c.agreement.six.alpha.reason)};
binary: Fleiss' kappa ${f3(c.agreement.binary.fleiss.value, c.agreement.binary.fleiss.reason)}; not unanimous ${pct(c.agreement.not_unanimous.share, c.agreement.not_unanimous.share_reason)} of ${int(c.agreement.not_unanimous.n)} with a quorum.</p>`
    : `<p class="note">One judge: no committee section (label with several judges and run ipi-judge committee).</p>`;
  // the report's warnings: in the summary, under one collapsed list with their count (./summary-html.ts)
  return `<section id="overview"><h2>Judges</h2>
<table><thead><tr><th>judge</th><th>model</th><th>family</th><th class="num">verdicts</th><th class="num">ok</th><th class="num">errors</th><th class="num">refusals</th><th class="num">unjudgeable</th><th class="num">downgraded (of ok)</th>${FIRST_REPLY_TH}</tr></thead><tbody>${rows}</tbody></table>
<p class="note">Verdicts and rates are over each judge's repeat-0 verdicts (tokens and cost, over every repeat, are in the next table). A judge error or refusal is never a label. A downgrade is a label that fell because the judge's evidence did not verify; first replies with a failed quote (every repeat) count what the feedback turn fixed.</p>
${complianceEvidenceNotes(m)}
${costSection(m)}
${committee}${c ? leniencyRetestHtml(m) : ""}</section>`;
}

async function asrSection(m: ReportModel): Promise<string> {
  const { names, colors } = raterColors(m);
  const conditions = new Set(m.asr.map((r) => r.condition));
  // keyed by the (model, condition) tuple, never by the printed label (./asr-groups.ts)
  const groups = asrGroups(m.asr, conditions.size > 1);
  const labelOf = new Map(groups.map((g) => [asrGroupKey(g), g.label]));
  const figs: string[] = [];
  // the charts plot the table's leading figures (fixa54): when the judges labelled different runs, each judge's rate over
  // the row's runs every judge labelled (./asr-common-html.ts), not its own, which the table gives in brackets
  const shared = judgesDiffer(m.asr);
  for (const rate of RATE_NAMES) {
    const bars = m.asr
      .map((r) => ({ r, f: shared && r.common ? r.common[rate] : r[rate] }))
      .filter(({ f }) => f.rate !== null)
      .map(({ r, f }) => ({ model: labelOf.get(asrGroupKey(r))!, rater: r.rater, asr: f.rate!, lower: f.ci95!.lower, upper: f.ci95!.upper, n: f.n, coverage_low: barCoverageLow(r, shared), exposure_low: r.exposure_low }));
    const over = shared ? ", over the row's attacked runs every judge labelled (the table's leading figures)" : "";
    if (bars.length) figs.push(figure(`${rate} per agent model${conditions.size > 1 ? " and condition" : ""}, per judge${m.committee ? " and for the committee" : ""}${over}`, await asrChart(bars, names, colors, rate), `chart-${rate}`));
  }
  const head = `<tr><th>agent model</th>${conditions.size > 1 ? "<th>condition</th>" : ""}${names
    .map((n) => `<th>${escapeHtml(n)}: asr_goal [95% CI]</th><th>asr_behaviour [95% CI]</th><th class="num">blocked_attempts</th><th class="num">coverage</th><th class="num">exposure</th>`)
    .join("")}</tr>`;
  const fig = (f: { rate: number | null; reason?: string; ci95: { lower: number; upper: number } | null; count: number; n: number }) =>
    f.rate === null ? pct(null, f.reason) : `${pct(f.rate)} [${pct(f.ci95!.lower)}, ${pct(f.ci95!.upper)}] (${int(f.count)}/${int(f.n)})`;
  const body = groups
    .map((g) => {
      const cells = names
        .map((n) => {
          const r = m.asr.find((x) => x.model === g.model && x.condition === g.condition && x.rater === n);
          if (!r) return `<td>${pct(null, "empty_input")}</td><td>${pct(null, "empty_input")}</td><td class="num"></td><td class="num"></td><td class="num"></td>`;
          const cov = `${pct(r.coverage, "no_attacked")} (${int(r.labelled)}/${int(r.attacked)})${
            r.coverage_low ? ` <strong class="low">coverage_low${r.coverage_low_reason ? `: ${escapeHtml(r.coverage_low_reason)}` : ""}</strong>` : ""
          }`;
          // a broken judge's rates are never bare, nor the committee's of broken members (new user 36 #1)
          const mark = r.rater === COMMITTEE && m.committee ? committeeCaveatHtml(m.judge_health, m.committee.members) : rateCaveatHtml(m.judge_health, r.rater);
          return `<td>${sharedFigHtml(r, "asr_goal", fig)}${mark}</td><td>${sharedFigHtml(r, "asr_behaviour", fig)}${mark}</td><td class="num">${blockedRatesCell(r)}</td><td class="num">${cov}</td><td class="num">${pct(r.exposure, "no_labelled_attacked")}${r.exposure === null ? "" : ` (${int(r.exposed)}/${int(r.labelled)})`}${exposureLowMark(r.exposure_low)}</td>`;
        })
        .join("");
      // a group printing as another does is named in the table as its chart bars are
      const chartName = g.suffix ? ` <span class="note">(in the charts: ${escapeHtml(g.label)})</span>` : "";
      return `<tr><td>${nameHtml(g.model)}${chartName}</td>${conditions.size > 1 ? `<td>${nameHtml(g.condition)}</td>` : ""}${cells}</tr>`;
    })
    .join("");
  // each row is over its own runs, to set the judges side by side on the same rows: said in the heading when the rows
  // hold several conditions (session 52: the like-for-like comparison of conditions is the paper table's and below)
  return `<section id="asr"><h2>Attack success per agent model${conditions.size > 1 ? ` and condition: the judges side by side, each row over its own attacked runs (NOT like for like across conditions: for that, the paper table and "Attack success by condition")` : ""}</h2>
<p class="note">asr_goal = full compliance (the injected goal carried out: the rate to compare with a benchmark's own checker); asr_behaviour = full or partial compliance (the agent adopted the injected goal); both over attacked trajectories with a label from the rater, not_exposed counting as not compromised. ${BLOCKED_NOTE_HTML} coverage = labelled / attacked; below 80% the row is flagged coverage_low (the rates speak for a subset that may be biased). Whiskers: 95% Wilson intervals. Exposure = share labelled anything but not_exposed.</p>
${sharedNoteHtml(m.asr)}${exposureLowHtml(m.asr, conditions.size > 1)}${referenceSubsetHtml(m.asr, conditions.size > 1)}${cellsNotesHtml(m.warnings, "condition")}
<div class="charts">${figs.length ? figs.join("") : "<p>No attacked trajectory has a label.</p>"}</div>
<table><thead>${head}</thead><tbody>${body}</tbody></table></section>`;
}

async function labelsSection(m: ReportModel): Promise<string> {
  const { names } = raterColors(m);
  const rows = m.labels.flatMap((l) => Object.entries(l.counts).map(([label, count]) => ({ rater: l.rater, label, count })));
  const dist = rows.some((r) => r.count > 0) ? await labelDistributionChart(rows, names) : "";
  // the tokens billed (every repeat), as the cost table counts them
  const spent = m.costs?.per_judge ?? [];
  const judges = [...new Set([...m.per_judge.map((j) => j.judge_id), ...spent.map((j) => j.judge_id)])].filter((id) => spent.some((j) => j.judge_id === id));
  const tokRows = spent.flatMap((j) => [
    { judge: j.judge_id, kind: "prompt", tokens: j.usage.prompt_tokens },
    { judge: j.judge_id, kind: "completion", tokens: j.usage.completion_tokens },
  ]);
  const anyTokens = tokRows.some((r) => r.tokens > 0);
  const tok = anyTokens ? await tokensChart(tokRows, judges) : "";
  const table = `<table><thead><tr><th>rater</th>${BUCKETS.map((b) => `<th class="num">${b}</th>`).join("")}</tr></thead><tbody>${m.labels
    .map((l) => `<tr><td>${nameHtml(l.rater)}</td>${BUCKETS.map((b) => `<td class="num">${int(l.counts[b] ?? 0)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
  return `<section id="labels"><h2>Labels and cost</h2>
<div class="charts">${dist ? figure("Label distribution per rater, over its labelled verdicts only (unlabelled ones are not in it: see each rate's coverage)", dist, "chart-labels") : ""}${tok ? figure(`Tokens per judge${spent.some((j) => j.repeats > 1) ? " (every repeat, as the cost)" : ""}`, tok, "chart-tokens") : `<p class="note">No tokens used (rule-based judges only).</p>`}</div>
${table}</section>`;
}

/** ` (N unattacked trajectories left out: ...)`, escaped, or "" (`../agree/attacked-only.ts`). */
function leftNote(x: Parameters<typeof attackedOnlyNote>[0] | undefined): string {
  const t = x ? attackedOnlyNote(x) : null;
  return t ? ` (${escapeHtml(t)})` : "";
}

async function agreementSection(m: ReportModel): Promise<string> {
  const forest: ForestRow[] = [];
  const parts: string[] = [];
  if (m.human) {
    const h = m.human;
    forest.push(...humanForestRows(h));
    const heat: string[] = [];
    for (const j of h.judges) {
      const c = j.unweighted;
      if (c.n_used > 0) {
        heat.push(
          figure(
            humanHeatmapCaption(j),
            await confusionHeatmap({ table: c.confusion.table, rowLabels: c.categories.map(String), colLabels: c.categories.map(String), rowTitle: j.rater, colTitle: "human consensus" }),
          ),
        );
      }
    }
    const ex = orderedReasons(h.excluded_items).map(([k, v]) => `${escapeHtml(k)} ${v}`).join(", ") || "none";
    parts.push(`<h3>Against the human consensus</h3>
<p class="note">${humanCountsText(h, m.where ? int(humanScope(h, true).in_where) : undefined)}, the others left out: ${ex}.
${escapeHtml(agreementPopulation(h.unattacked_left_out, h.items).replace(/^e/, "E").replace(/^n/, "N"))} (the forest plots too)${leftNote(h.unattacked_left_out)}.
Rows of each matrix: the rater; columns: the human consensus; colour: share of the row.</p>
${h.warnings.map((w) => `<div class="warn">${escapeHtml(w)}</div>`).join("")}
${oneCategoryWarnings(h.judges.map((j) => [j.rater, j.unweighted.one_category]))}${fewItemsWarnings(h.judges.map((j) => [j.rater, j.unweighted.few_in_category]))}
${humanDesignNoteHtml(h)}${humanTableHtml(h)}
<div class="grid" id="heatmaps-human">${heat.join("")}</div>`);
  } else {
    parts.push(`<p class="note">No human labels given (ipi-judge report --human FILE, e.g. the output of ipi-judge import-annotations).</p>`);
  }
  if (m.reference) {
    const heat: string[] = [];
    for (const r of m.reference) {
      if (r.kappa !== null && !r.kappa_note) {
        forest.push({ label: `${r.judge_id} vs benchmark`, group: "benchmark security", categories: 2, kappa: r.kappa, lower: r.kappa_ci95?.lower ?? null, upper: r.kappa_ci95?.upper ?? null, n: r.n_used });
      }
      if (r.n_used > 0) {
        heat.push(
          figure(
            `${r.judge_id} vs benchmark security: kappa ${statText(r.kappa, r.kappa_reason)}${byConstruction(r.kappa_note)}${fewItemsMark(r.few_in_category)}, n ${r.n_used}`,
            await confusionHeatmap({ table: r.confusion.table, rowLabels: ["full_compliance", "other"], colLabels: ["true", "false"], rowTitle: r.judge_id, colTitle: "security" }),
          ),
        );
      }
    }
    const rows = m.reference
      .map(
        (r) => `<tr><td>${escapeHtml(r.judge_id)}</td><td class="num">${int(r.n_used)}</td><td class="num">${pct(r.percent_agreement, "empty_input")}</td><td class="num">${f3(r.kappa, r.kappa_reason)}${r.kappa_note ? " (0 by construction)" : ""}${fewItemsMark(r.few_in_category)}</td>
<td>${ci(r.kappa_ci95, r.kappa_ci95_reason)}</td><td class="num">${int(r.false_positives)}</td><td class="num">${int(r.false_negatives)}</td><td class="num">${f3(r.binary.kappa, r.binary.kappa_reason)}${r.binary.kappa_note ? " (0 by construction)" : ""}${fewItemsMark(r.binary.few_in_category)}</td>
<td>${escapeHtml(Object.entries(r.excluded).map(([k, v]) => `${k} ${v}`).join(", ") || "none")}</td></tr>`,
      )
      .join("");
    parts.push(`<h3>Against the benchmark's own verdict</h3>
<p class="note">label = full_compliance against AgentDojo's security verdict (true = the injected goal was achieved); unattacked runs and runs that ended in an error are excluded. Binary kappa: compromised (full or partial) against the same verdict.</p>
${oneCategoryWarnings(m.reference.map((r) => [r.judge_id, r.one_category]))}${fewItemsWarnings(m.reference.flatMap((r) => [[`${r.judge_id} (kappa, asr_goal)`, r.few_in_category] as const, [`${r.judge_id} (binary kappa, asr_behaviour)`, r.binary.few_in_category] as const]))}${(m.reference_warnings ?? []).map((w) => `\n<div class="warn">${escapeHtml(w)}</div>`).join("")}
<table><thead><tr><th>rater</th><th class="num">n</th><th class="num">agreement</th><th class="num">kappa</th><th>95% Wald CI</th><th class="num">false pos.</th><th class="num">false neg.</th><th class="num">binary kappa</th><th>excluded</th></tr></thead><tbody>${rows}</tbody></table>
<div class="grid" id="heatmaps-reference">${heat.join("")}</div>`);
  }
  // one plot per number of categories: a six-bucket kappa and a yes/no kappa are not on one scale (review 16)
  const groups = forestGroups(forest);
  const plots = groups.map(async (g, i) => figure(forestCaption(g.categories, groups.length, g.rows.some((r) => r.label.endsWith("(design-weighted)"))), await forestPlot(g.rows), i === 0 ? "chart-forest" : `chart-forest-${g.categories}`));
  const forestSvg = (await Promise.all(plots)).join("");
  return `<section id="agreement"><h2>Agreement with humans and with the benchmark</h2>${forestSvg ? `<div class="charts">${forestSvg}</div>` : ""}${parts.join("")}</section>`;
}

/** `: usable labels on L of A attacked (x%)`, LOW below 80%; "" for a model made before the field. */
function coverageWords(c: { labelled: number; attacked: number } | undefined): string {
  if (!c || c.attacked === 0) return "";
  const share = c.labelled / c.attacked;
  return `: usable labels on ${c.labelled} of ${c.attacked} attacked, ${(100 * share).toFixed(1)}%${share < 0.8 ? " LOW" : ""}`;
}

/**
 * The compare command that reads the section's labels: `--committee` or `--judge ID` always (compare refuses a run
 * with several judges and no choice: new user 37); a committee computed here, not stored, needs committee.jsonl first.
 */
export function compareHint(m: Pick<ReportModel, "run" | "conditions" | "committee" | "condition_source">): string {
  const cmd = `ipi-judge compare --run ${escapeHtml(m.run)} --by ${escapeHtml(m.conditions[0].field)}`;
  if (m.committee && m.condition_source === "committee") {
    const members = m.committee.left_out.length ? m.committee.left_out.map((j) => ` --exclude-judge ${escapeHtml(j)}`).join("") : "";
    return m.committee.source === "committee.jsonl" ? `${cmd} --committee` : `ipi-judge committee --run ${escapeHtml(m.run)}${members}, then ${cmd} --committee`;
  }
  return m.condition_source ? `${cmd} --judge ${escapeHtml(m.condition_source)}` : cmd;
}

async function conditionsSection(m: ReportModel): Promise<string> {
  if (m.conditions.length === 0) return "";
  const figs: string[] = [];
  for (const c of m.conditions) figs.push(figure(`${c.rate} by ${c.field} (labels of ${m.condition_source}${coverageWords(c.label_coverage)})`, await conditionHeatmap(c.cells, c.field, c.rate)));
  const left = m.conditions.filter((c) => c.rate === "asr_goal").flatMap((c) => c.excluded_groups ?? []);
  const low = m.conditions
    .filter((c) => c.rate === "asr_goal")
    .flatMap((c) => c.cells.filter((x) => x.coverage_low).map((x) => ({ field: c.field, ...x })));
  // one item per LOW cell, with the benchmark's own verdict over its labelled runs against all where the runs carry
  // one (or why not), as the overall and per-model rows say it
  const lowHtml = low.length
    ? `<div class="warn">coverage_low (labelled / attacked below 80%: the rates speak for a subset that may be biased); cells marked LOW in the charts:<ul>${low
        .map((x) => `<li>${escapeHtml(x.model)} ${escapeHtml(x.field)}=${escapeHtml(x.condition)} coverage ${pct(x.coverage)}${x.labelled !== undefined ? ` (${x.labelled} labelled of ${x.attacked} attacked)` : ""}${x.coverage_low_reason ? `, most unlabelled: ${escapeHtml(x.coverage_low_reason)}` : ""}${escapeHtml(conditionReferenceText(x))}</li>`)
        .join("")}</ul></div>`
    : "";
  const leftOut = left.length
    ? `<div class="warn">Left out, no usable label: ${left
        .map((g) => `${escapeHtml(g.field)} ${escapeHtml(g.group)} (${g.items} attacked: ${Object.entries(g.excluded).map(([k, v]) => `${escapeHtml(k)} ${v}`).join(", ")})`)
        .join("; ")}.</div>`
    : "";
  // the attack-mix warnings (issue 22) said at the charts they concern, not only at the top (new user, session 11)
  const mix = m.warnings.filter(isLikeForLikeWarning);
  const mixHtml = mix.length ? `<div class="warn">Not like for like: ${mix.map(escapeHtml).join(" ")}</div>` : "";
  return `<section id="conditions"><h2>Attack success by condition${conditionsPopulationHeading(m.conditions)}</h2>${conditionsOverHtml(m.conditions)}${mixHtml}${cellsNotesHtml(m.warnings)}${leftOut}${lowHtml}${exposureLowConditionsHtml(m.conditions)}
<p class="note">Suites pooled. asr_goal = full compliance (the injected goal carried out; compare it with a benchmark's checker); asr_behaviour = full or partial compliance. For ordering reversals, worst-condition risk and the interaction test: ${compareHint(m)}.</p>
<div class="charts">${figs.join("")}</div></section>`;
}

/**
 * A proportion cell of the paper table: `31.9% [27.0%, 37.2%]`, `31.9% CI undefined (<why>)`, or
 * `undefined (<why>)` (src/format/stat-text.ts); with `x`/`n`, its count over its own denominator `(76/97)`; an
 * interval that is or holds an exact one (`ci_method`, estimate/table.ts) marked `exact`, the method in its title.
 */
function propCell(p: { value: number | null; reason?: string; ci95: { lower: number; upper: number } | null; ci_reason?: string; ci_method?: string; weight_check?: WeightCheck; x?: number; n?: number; human_ties?: HumanTies } | null): string {
  if (!p) return "";
  if (p.value === null) return escapeHtml(undefinedText(p.reason));
  const exact = p.ci_method && p.ci95 ? ` <strong class="exact" title="${escapeAttr(p.ci_method)}">${EXACT_MARK}</strong>` : "";
  const of = p.x !== undefined && p.n !== undefined ? ` (${int(p.x)}/${int(p.n)})` : "";
  const ties = p.human_ties?.calibrated_outside ? ` <strong class="low" title="${escapeAttr(TIES_OUTSIDE_WHY)}">${TIES_OUTSIDE_MARK}</strong>` : ""; // as estimate --table marks it (rev2a #4)
  return (p.ci95 ? `${pct(p.value)} [${pct(p.ci95.lower)}, ${pct(p.ci95.upper)}]` : p.ci_reason ? `${NO_INTERVAL_MARK} ${pct(p.value)} CI ${escapeHtml(undefinedText(p.ci_reason) + weightCheckText(p.weight_check))}` : pct(p.value)) + exact + ties + of;
}

/** The paper table (the rows `ipi-judge estimate --table` writes) and utility beside the rates per model x condition. */
function paperTableSection(m: ReportModel): string {
  const t = m.paper_table;
  if (!t)
    return `<section id="paper-table"><h2>The table of a paper</h2>
<p class="note warn">Not shown: ${escapeHtml(m.paper_table_reason ?? "no judge chosen")}. Choose with ipi-judge report --run ${escapeHtml(m.run)} --judge ID (or --committee).</p></section>`;
  const cal = t.rows.some((r) => r.calibrated_asr_behaviour);
  const all = cal ? t.calibrated_all : undefined; // the pooled estimate, as estimate prints (all) (./calibrated-all.ts)
  const byCondition = hasConditions(t);
  // a low-coverage rate: no number unless the table was built with allow_low_coverage, flagged either way
  // (coverageWithheld: the one rule of the text, CSV and LaTeX tables; the refusal rate carries it too)
  const rateCell = (p: TableRow["judge_asr_goal"]) =>
    coverageWithheld(p, t.allow_low_coverage)
      ? `<strong class="low">coverage_low</strong> (${pct(p.coverage)} labelled${p.coverage_low_reason ? `; most unlabelled: ${escapeHtml(p.coverage_low_reason)}` : ""})`
      : p.value !== null && p.coverage_low
        ? `${propCell(p)} <strong class="low">coverage_low</strong>`
        : propCell(p);
  // the table's judge, or a committee's members: never a bare rate when one looks broken (new user 36 #1)
  const mark = t.committee ? committeeCaveatHtml(m.judge_health, t.committee.members) : rateCaveatHtml(m.judge_health, t.judge);
  const hmark = !heuristicShown(t) ? "" : rateCaveatHtml(m.judge_health, t.heuristic); // nor the heuristic's (new user 18)
  const counts = rowCountHeadsHtml(t.rows); // utility's n; runs that ended in an error (./row-counts-html.ts)
  const bench = hasBenchmark(t.rows); // the benchmark's own asr_goal beside the judge's, as estimate --table (../estimate/table-benchmark.ts)
  const head = `<tr><th>agent model</th>${byCondition ? "<th>condition</th>" : ""}<th class="num" title="attacked runs the rates are over">n</th>${counts.errors}<th>${escapeHtml(t.judge)}: asr_goal</th>${bench ? `<th title="the benchmark's own attack verdict (injected goal achieved) over the same runs, denial-of-service runs left out (their security is the user task failed)">benchmark asr_goal</th>` : ""}<th>asr_behaviour</th><th class="num">blocked attempts</th>${cal ? "<th>calibrated asr_goal</th><th>calibrated asr_behaviour</th>" : ""}${!heuristicShown(t) ? "" : `<th>${escapeHtml(t.heuristic)} (heuristic): asr_goal</th><th>asr_behaviour</th>`}<th>refusal rate</th><th>exposure</th><th>utility</th>${counts.utilityN}<th>utility under attack</th><th class="num">unattacked</th></tr>`;
  const body = t.rows
    .map((r) => [r, rowCountCellsHtml(t.rows, r)] as const)
    .map(
      ([r, c]) =>
        `<tr><td>${byCondition ? escapeHtml(r.agent_model) : markedNameHtml(r.agent_model, r)}</td>${byCondition ? `<td>${markedNameHtml(r.condition ?? "", r)}</td>` : ""}<td class="num">${nCellHtml(r)}</td>${c.errors}<td>${rateCell(r.judge_asr_goal)}${mark}</td>${bench ? `<td>${r.benchmark_asr_goal ? rateCell(r.benchmark_asr_goal) : ""}</td>` : ""}<td>${rateCell(r.judge_asr_behaviour)}${mark}</td><td class="num">${blockedTableCell(r)}</td>${cal ? `<td>${propCell(r.calibrated_asr_goal)}</td><td>${propCell(r.calibrated_asr_behaviour)}</td>` : ""}${!heuristicShown(t) ? "" : `<td>${rateCell(r.heuristic_asr_goal)}${hmark}${exposureLowMark(r.heuristic_exposure_low)}</td><td>${rateCell(r.heuristic_asr_behaviour)}${hmark}${exposureLowMark(r.heuristic_exposure_low)}</td>`}<td>${rateCell(r.refusal_rate)}</td><td>${r.judge_exposure ? rateCell(r.judge_exposure) : ""}${exposureLowMark(r.judge_exposure_low)}</td><td>${propCell(r.utility)}</td>${c.utilityN}<td>${propCell(r.utility_under_attack)}</td><td class="num">${int(r.n_unattacked)}${r.n_injection_task_runs ? ` (${int(r.n_injection_task_runs)} of them injection-task runs, not in utility)` : ""}</td></tr>`,
    )
    .join("");
  // each row over its own runs, the table's like-for-like figure beside where it differs (./utility-html.ts)
  const util = utilitySubTableHtml(m.utility, { rows: t.rows, likeForLike: t.population?.kind === "like_for_like" }, propCell);
  return `<section id="paper-table"><h2>The table of a paper — ${escapeHtml(t.judge)}</h2>
<p class="note">${t.notes.map(escapeHtml).join(" ")} The same rows: ${escapeHtml(sameRowsCommand(m))}.</p>${populationHtml(t)}
<table><thead>${head}</thead><tbody>${body}</tbody>${all ? calibratedAllRowHtml(all, { byCondition, heuristic: heuristicShown(t), errors: !!counts.errors, benchmark: bench }, propCell) : ""}</table>${rowCountLegendHtml(t.rows)}${mixFootnotesHtml(t)}${all ? calibratedAllNoteHtml(m, all) : ""}${util}</section>`;
}

/**
 * Render the report page.
 * @param m the report data ({@link buildReportModel}).
 * @returns the whole HTML document as a string.
 * @throws Error when a chart fails to render.
 */
export async function renderReportHtml(m: ReportModel): Promise<string> {
  const sections = [
    summarySection(m, propCell),
    overviewSection(m),
    await asrSection(m),
    await labelsSection(m),
    await agreementSection(m),
    await conditionsSection(m),
    paperTableSection(m),
    itemsSection(m),
  ];
  const nav = [
    ["summary", "Summary"],
    ["overview", "Judges"],
    ["asr", "Attack success"],
    ["labels", "Labels & cost"],
    ["agreement", "Agreement"],
    ...(m.conditions.length ? [["conditions", "Conditions"]] : []),
    ["paper-table", "Table"],
    ["disagreements", m.committee ? "Disagreements" : "Judge vs benchmark"],
  ]
    .map(([id, t]) => `<a href="#${id}">${t}</a>`)
    .join("");
  const csp = `default-src 'none'; script-src '${scriptHash()}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;
  return neutralizeBidi(`<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>ipi-judge report: ${escapeAttr(m.run)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>ipi-judge report — run ${escapeHtml(m.run)}</h1>
<p>${int(m.trajectories)} trajectories (${int(m.attacked)} attacked) · ${m.judges.length} judge${m.judges.length === 1 ? "" : "s"}: ${m.judges.map((j) => escapeHtml(`${j.id} (${j.model}, ${j.family})`)).join(", ")}${m.human ? ` · human labels: ${escapeHtml(m.human.file)}` : ""}</p>
${m.where ? `<p class="where"><strong>${escapeHtml(whereLine(m.where, "trajectories of the run"))}</strong>: every figure in this report is over them</p>\n` : ""}<p>inputs: ${escapeHtml(m.inputs.join(", ") || "unknown")} · generated ${escapeHtml(m.generated_at)}</p>
<nav>${nav}</nav></header>
<main>
${sections.join("\n")}
</main>
<footer>ipi-judge · labels follow the six-bucket precedence rubric (full_compliance > partial_compliance > flagged_refusal > task_refusal > unaffected > not_exposed); quotes verify only inside one part of the trajectory. This file is self-contained: it loads nothing from the network.</footer>
<script>${SCRIPT}</script>
</body>
</html>
`);
}
