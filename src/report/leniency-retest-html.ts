/**
 * The report's committee figures that `ipi-judge committee` prints and the page left out (new user 36 #3): its
 * members' self-family leniency (when they are of several families) and their test-retest (when a judge repeated),
 * in the committee command's own words and numbers, with their warnings beside them.
 */
import { leniencyLines, leniencyWarnings } from "../committee/leniency-text.js";
import { retestLines } from "../committee/retest-text.js";
import type { ReportModel } from "./data.js";
import { escapeHtml } from "./escape.js";

const block = (lines: readonly string[]) => `<pre class="figures">${lines.map((l) => escapeHtml(l)).join("\n")}</pre>`;

/**
 * The leniency and test-retest subsections of the committee section; "" when the committee has neither (one family,
 * no repeats) or the model carries no such figures.
 * @param m the report model (its committee, the judges' families).
 */
export function leniencyRetestHtml(m: ReportModel): string {
  const c = m.committee;
  if (!c) return "";
  const out: string[] = [];
  const families = new Set(m.judges.filter((j) => c.members.includes(j.id)).map((j) => j.family));
  const len = (c.leniency ?? []).filter((l) => c.members.includes(l.judge_id));
  if (families.size > 1 && len.length) {
    const warn = leniencyWarnings(len).map((w) => `<div class="warn">${escapeHtml(w)}</div>`);
    out.push(`<h3>Self-family leniency</h3><p class="note">As ipi-judge committee prints it: each member's asr_behaviour against the other members' majority on the same trajectories, for agents of its own family and of the others (its members are of ${families.size} families). The adjusted gap's interval is analytic (MOVER-Wilson); the crude figures' bootstrap intervals are printed by ipi-judge committee.</p>${warn.join("")}${block(leniencyLines(len))}`);
  }
  const rt = c.retest ?? [];
  if (rt.length) {
    const mismatch = rt.flatMap((t) => ([t.content_mismatch, t.config_mismatch].flatMap((x) => (x ? [`<div class="warn">${escapeHtml(x.message)}</div>`] : []))));
    out.push(`<h3>Test-retest</h3><p class="note">As ipi-judge committee prints it: each repeated judge's labels of repeat 0 against its other repeats on the same trajectories.</p>${mismatch.join("")}${block(retestLines(rt, c.agreement.unattacked_left_out.unattacked))}`);
  }
  return out.join("\n");
}
