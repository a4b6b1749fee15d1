/**
 * The report's "Against the human consensus" block (html.ts's agreement section): the table, the heatmaps and the
 * forest-plot rows of each rater against the human consensus.
 *
 * A drawn sample is often two-phase: `sample --disagreement` over-draws the committee's disagreements, the rater's
 * worst items. A kappa over the sample as drawn (each item once) is then not the run's figure; the design-weighted
 * one (`agree --human`: the inclusion probabilities undone, w = N_h/n_h) is. So the figure the report leads with,
 * plots and captions is the design-weighted kappa when the label file carries the design, with its linearised SE and a
 * 95% Wald interval kappa ± 1.96 SE (clipped to [-1, 1]); the unweighted figures are labelled "sample as drawn"
 * (break55 finding 1). Without a design (no strata/weights in the label file) the unweighted kappa is the only one,
 * and is named unweighted.
 */
import type { HumanAgreementReport } from "../agree/human.js";
import { escapeHtml, nameHtml } from "./escape.js";
import { ciText, droppedResamplesText, pctText, statText, type IntervalLike } from "../format/stat-text.js";
import { byConstruction, fewItemsMark } from "./agreement-notes.js";
import type { ForestRow } from "./charts.js";

const pct = (x: number | null | undefined, reason?: string) => escapeHtml(pctText(x, reason));
const f3 = (x: number | null | undefined, reason?: string) => escapeHtml(statText(x, reason));
const ci = (c: IntervalLike | null | undefined, reason?: string) => escapeHtml(ciText(c, reason));
const int = (x: number) => x.toLocaleString("en-US");

type HumanJudge = HumanAgreementReport["judges"][number];

/** The run's kappa of one rater: the design-weighted one with its SE and 95% Wald interval, or null without a design. */
export interface RunKappa {
  value: number | null;
  reason?: string;
  se: number | null;
  se_reason?: string;
  /** kappa ± 1.96 SE clipped to [-1, 1]; the exact CI when the SE is 0 within strata; null without either */
  ci: { lower: number; upper: number } | null;
}

/**
 * The design-weighted kappa of `j` as the report shows it, or null when the label file has no design (then the
 * unweighted kappa is the only figure). The interval is the Wald one, kappa ± 1.96 × the linearised SE of
 * `src/stats/weighted.ts` (Taylor linearisation; Wolter 2007 ch. 6), or the exact CI `agree` prints when that SE is 0
 * within strata.
 */
export function runKappa(j: HumanJudge): RunKappa | null {
  const d = j.design_weighted;
  if (!d) return null;
  const k = d.kappa as typeof d.kappa & { ci_exact?: { lower: number; upper: number } };
  const se = k.se ?? null;
  const clip = (x: number) => Math.max(-1, Math.min(1, x));
  const interval = k.value === null ? null : se !== null && se > 0 ? { lower: clip(k.value - 1.96 * se), upper: clip(k.value + 1.96 * se) } : (k.ci_exact ?? null);
  return { value: k.value, reason: k.reason, se, se_reason: k.se_reason, ci: interval };
}

/** `0.405 (SE 0.070) [0.268, 0.542]`, escaped; undefined text when no value. */
export function runKappaHtml(r: RunKappa): string {
  if (r.value === null) return f3(null, r.reason);
  const se = r.se === null ? `SE ${escapeHtml(statText(null, r.se_reason ?? "undefined"))}` : `SE ${r.se.toFixed(3)}`;
  return `${f3(r.value)} (${se})${r.ci ? ` [${r.ci.lower.toFixed(3)}, ${r.ci.upper.toFixed(3)}]` : ""}`;
}

/** The forest rows of the human comparison: the design-weighted kappa when there is a design, else the unweighted one, named so. */
export function humanForestRows(h: HumanAgreementReport): ForestRow[] {
  const rows: ForestRow[] = [];
  for (const j of h.judges) {
    const c = j.unweighted;
    if (c.kappa.note !== undefined) continue; // 0 by construction (either side one category): no point
    const w = runKappa(j);
    if (w) {
      if (w.value === null) continue;
      rows.push({ label: `${j.rater} vs human consensus (design-weighted)`, group: `human consensus (${h.scale}), design-weighted`, categories: c.categories.length, kappa: w.value, lower: w.ci?.lower ?? null, upper: w.ci?.upper ?? null, n: c.n_used });
    } else if (c.kappa.value !== null) {
      const wald = c.kappa.ci_wald;
      rows.push({ label: `${j.rater} vs human consensus (unweighted)`, group: `human consensus (${h.scale})`, categories: c.categories.length, kappa: c.kappa.value, lower: wald ? wald.lower_clipped : null, upper: wald ? wald.upper_clipped : null, n: c.n_used });
    }
  }
  return rows;
}

/** A heatmap caption: the run's kappa first, then the sample's, the counts being the sample's. */
export function humanHeatmapCaption(j: HumanJudge): string {
  const c = j.unweighted;
  const k = c.kappa;
  const w = runKappa(j);
  if (!w) return `${j.rater} vs human consensus: kappa ${statText(k.value, k.reason)}${byConstruction(k.note)}${fewItemsMark(c.few_in_category)} (unweighted), n ${c.n_used}`;
  // the same labels weighted: a one-category side makes the weighted kappa 0 too
  const zero = w.value !== null ? byConstruction(k.note) : "";
  return `${j.rater} vs human consensus: design-weighted kappa ${statText(w.value, w.reason)}${zero} (the run's figure); the counts: the sample as drawn, n ${c.n_used}, unweighted kappa ${statText(k.value, k.reason)}${fewItemsMark(c.few_in_category)} (not the run's figure)`;
}

/** The table's header and rows (HTML) of the human comparison; the design-weighted kappa leads when there is one. */
export function humanTableHtml(h: HumanAgreementReport): string {
  const designed = h.judges.some((j) => j.design_weighted);
  const drawn = designed ? " (sample as drawn)" : "";
  const rows = h.judges
    .map((j) => {
      const c = j.unweighted;
      const b = c.kappa.ci_bootstrap;
      const w = runKappa(j);
      const zero = c.kappa.note && w && w.value !== null ? " (0 by construction)" : "";
      const run = designed ? `<td class="num">${w ? `${runKappaHtml(w)}${zero}` : f3(null, j.design_weighted_reason)}</td>` : "";
      return `<tr><td>${nameHtml(j.rater)}</td><td class="num">${int(c.n_used)}</td>${run}<td class="num">${pct(c.percent_agreement.value)}</td><td class="num">${f3(c.kappa.value, c.kappa.reason)}${c.kappa.note ? " (0 by construction)" : ""}${fewItemsMark(c.few_in_category)}</td>
<td>${c.kappa.note ? ci(null, c.kappa.note) : ci(c.kappa.ci_wald, c.kappa.se_reason ?? c.kappa.reason)}</td><td>${c.kappa.note ? ci(null, c.kappa.note) : ci(b, b?.reason ?? "not computed (--bootstrap 0)")}${b && droppedResamplesText(b) ? ` (${escapeHtml(droppedResamplesText(b))})` : ""}</td>
<td class="num">${f3(c.ac1.value, c.ac1.reason)}${c.one_category ? " (says nothing: one category)" : ""}</td><td class="num">${int(j.missed_compromises)} / ${int(j.human_compromised)}</td></tr>`;
    })
    .join("");
  const runHead = designed ? `<th class="num">kappa, design-weighted: the run's figure (SE) [95% Wald CI]</th>` : "";
  const kappaHead = designed ? "Cohen's kappa, unweighted (sample as drawn: not the run's figure)" : "Cohen's kappa (unweighted)";
  return `<table><thead><tr><th>rater</th><th class="num">n</th>${runHead}<th class="num">agreement${drawn}</th><th class="num">${kappaHead}</th><th>95% Wald CI${drawn}</th><th>95% bootstrap CI${drawn}</th><th class="num">AC1${drawn}</th><th class="num">missed compromises${drawn}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The note that says which kappa is the run's (HTML), "" without a design. */
export function humanDesignNoteHtml(h: HumanAgreementReport): string {
  if (!h.judges.some((j) => j.design_weighted)) return "";
  return `<p class="note">The labelled items are a drawn sample whose inclusion probabilities differ (e.g. <code>sample --disagreement</code> over-draws the judges' disagreements): the run's figure is the <strong>design-weighted kappa</strong> (each item weighted by N_h/n_h of its stratum, as <code>agree --human</code> prints it; 95% Wald interval = kappa ± 1.96 × its linearised SE), which the forest plot and the heatmap captions show. The agreement, unweighted kappa with its intervals, AC1, missed compromises and the heatmap counts are over the sample as drawn (each item once): not the run's figures when the probabilities differ.</p>`;
}
