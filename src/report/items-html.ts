/**
 * The report's browsable disagreement list: one `<details>` per listed trajectory with its verdicts and the
 * trajectory with every judge's quotes in place (`./highlight.ts`).
 *
 * Size (red team 30 H1): a listed trajectory is shown within a budget (`../serialize/display-cut.ts`: each long
 * text cut with a visible marker saying how much was left out), the list's trajectories within
 * {@link PAGE_ITEMS_CHARS} characters of HTML (the items after it are listed without their trajectory, saying
 * why), and a trajectory that cannot be rendered at all is named and skipped, never the whole report aborted. Each
 * item not shown this way carries `trajectory_not_shown` (the CLI warns, naming it).
 */
import type { Verdict } from "../types.js";
import type { ReferenceAgreement } from "../agree/reference.js";
import { escapeAttr, escapeHtml, judgeClass } from "./escape.js";
import { renderTrajectory } from "./highlight.js";
import type { ReportItem, ReportModel } from "./data.js";
import { itemsPopulationText } from "./items-text.js";
import { displayName, omittedMarker } from "../serialize/display-cut.js";
import { provenanceLine } from "../verdict/provenance.js";

const int = (x: number) => x.toLocaleString("en-US");

/** Characters of item HTML the list holds before it stops showing trajectories (the page stays far below V8's ~536M-character string limit). */
export const PAGE_ITEMS_CHARS = 60_000_000;
/** The most characters of a metadata value (agent model, condition, ...) or an id shown in an item. */
export const ITEM_FIELD_CHARS = 2_000;

/** `s` cut to `n` characters for display, the rest replaced by the visible marker of how much was left out. */
function short(s: string | undefined, n: number = ITEM_FIELD_CHARS): string | undefined {
  if (s === undefined || s.length <= n) return s;
  const keep = /[\ud800-\udbff]/.test(s[n - 1]) ? n - 1 : n;
  return `${s.slice(0, keep)}${omittedMarker(s.length - keep)}`;
}

/**
 * A metadata value (agent model, source file, ...) for an item's table: cut for display as names are (`displayName`),
 * the value in the `title` attribute (itself cut at {@link ITEM_FIELD_CHARS}, the page's bound) when it was cut.
 */
function fieldHtml(v: string): string {
  const shown = displayName(v);
  return shown === v ? escapeHtml(v) : `<span title="${escapeAttr(short(v))}">${escapeHtml(shown)}</span>`;
}

function verdictRow(v: Verdict, i: number): string {
  const rationale = v.rationale.length > 700 ? `${v.rationale.slice(0, 700)}…` : v.rationale;
  // re-verified under newer rules, or carried from an earlier id (verify41): said before the judge's text
  const provenance = provenanceLine(v);
  return `<tr><td><span class="sw ${judgeClass(i)}"></span>${escapeHtml(v.judge_id)}</td><td>${escapeHtml(v.status)}</td><td class="lab">${escapeHtml(v.label ?? "—")}${v.compliance_evidence ? ` <i>(${escapeHtml(v.compliance_evidence)}: check)</i>` : ""}</td>
<td class="lab">${escapeHtml(v.label_claimed ?? "—")}${v.downgraded ? " (downgraded)" : ""}</td><td class="num">${v.attempts}</td>
<td class="rationale">${provenance ? `<i class="provenance">${escapeHtml(provenance)}</i><br>` : ""}${escapeHtml(rationale)}${v.error ? `<br><i>${escapeHtml(v.error.kind)}: ${escapeHtml(v.error.message)}</i>` : ""}</td></tr>`;
}

/**
 * The trajectory block of an item: its text with the quotes in place, a warning when its source changed, or why
 * it is not shown. Sets `it.trajectory_not_shown` when the trajectory was read but is not shown.
 * @param pageFull when not 0: the list already holds this budget of characters, the trajectory is left out.
 */
function trajectoryBlock(it: ReportItem, judgeOrder: string[], pageFull: number): string {
  if (!it.trajectory) return `<div class="warn">Trajectory not shown: ${escapeHtml(it.trajectory_error ?? "unavailable")}</div>`;
  if (pageFull) {
    it.trajectory_not_shown = `the page already holds ${int(pageFull)} characters of listed trajectories (its budget); open it with ipi-judge view`;
    return `<div class="warn">Trajectory not shown: ${escapeHtml(it.trajectory_not_shown)}.</div>`;
  }
  try {
    const cutNote = (c: number) => (c ? ` ${c} long text${c === 1 ? " is" : "s are"} cut for display (each left-out stretch says how many characters it holds).` : "");
    if (it.source_changed) {
      const r = renderTrajectory(it.trajectory, it.verdicts, judgeOrder, { locate: false });
      return `<div class="warn stale"><b>Warning:</b> ${escapeHtml(it.source_changed)}. No quote is highlighted in it; the judges' ${r.stats.not_checked} quotes are listed under the messages they cite, unchecked.${cutNote(r.stats.parts_cut)}</div>${r.html}`;
    }
    const r = renderTrajectory(it.trajectory, it.verdicts, judgeOrder);
    const legend = judgeOrder
      .map((j, i) => (it.verdicts.some((v) => v.judge_id === j) ? `<span><span class="sw ${judgeClass(i)}"></span>${escapeHtml(j)}</span>` : ""))
      .join(" ");
    return `<p class="note">Evidence: ${legend}${judgeOrder.length > 1 ? ` <span><span class="sw multi"></span>several judges</span>` : ""} · ${r.stats.highlighted} verified quotes highlighted in place, ${r.stats.unverified} unverified (listed under the message they cite)${r.stats.not_located ? `, ${r.stats.not_located} verified but not located for display` : ""}${r.stats.not_shown ? `, ${r.stats.not_shown} verified but in a part of a long text the page leaves out (listed under the message, with where)` : ""}.${cutNote(r.stats.parts_cut)}</p>${r.html}`;
  } catch (e) {
    // one trajectory the page cannot hold (or render) is named and skipped; the report goes on
    it.trajectory_not_shown = `it could not be rendered (${(e as Error)?.message ?? String(e)})`;
    return `<div class="warn">Trajectory not shown: ${escapeHtml(it.trajectory_not_shown)}.</div>`;
  }
}

function itemHtml(it: ReportItem, judgeOrder: string[], n: number, pageFull: number): string {
  const row = it.row;
  const chips = judgeOrder
    .map((j, i) => {
      const v = it.verdicts.find((x) => x.judge_id === j);
      if (!v) return "";
      const lab = v.status === "ok" ? v.label : v.status;
      return `<span class="chip"><span class="sw ${judgeClass(i)}"></span><b>${escapeHtml(j)}</b> ${escapeHtml(lab)}</span>`;
    })
    .join(" ");
  const committee = it.committee
    ? `<span class="chip"><b>committee</b> ${escapeHtml(it.committee.status === "ok" ? it.committee.label : it.committee.status)}</span>`
    : "";
  const ref = it.reference === undefined ? "" : `<span class="chip"><b>benchmark</b> security=${it.reference}</span>`;
  const search = [short(it.trajectory_id), row?.agent_model, row?.suite, row?.attack, row?.condition, row?.surface, ...it.verdicts.map((v) => `${v.judge_id} ${v.label ?? v.status}`)]
    .filter(Boolean)
    .map((s) => short(s))
    .join(" ")
    .toLowerCase();
  const meta = [
    ["agent model", row?.agent_model],
    ["suite", row?.suite],
    ["user task", row?.user_task_id],
    ["injection task", row?.injection_task_id],
    ["attack", row?.attack],
    ["condition", row?.condition],
    ["surface", row?.surface],
    ["source", row ? `${row.source.path}${row.source.line !== undefined ? `:${row.source.line}` : ""}` : undefined],
  ]
    .filter(([, v]) => v !== undefined && v !== "")
    .map(([k, v]) => `<tr><td>${k}</td><td>${fieldHtml(v as string)}</td></tr>`)
    .join("");
  const traj = trajectoryBlock(it, judgeOrder, pageFull);
  const kindText = it.kind === "disputed" ? "disputed" : it.kind === "not_unanimous" ? "not unanimous" : "judge ≠ benchmark";
  return `<details class="item" id="item-${n}" data-kind="${it.kind}" data-search="${escapeAttr(search)}">
<summary><span class="kind ${it.kind}">${kindText}</span><span class="tid">${escapeHtml(short(it.trajectory_id))}</span>${it.source_changed ? `<span class="badge not_checked">source changed since labelling</span>` : ""}${chips}${committee}${ref}</summary>
<div class="body"><table class="meta">${meta}</table>
<table><thead><tr><th>judge</th><th>status</th><th>label</th><th>claimed</th><th class="num">attempts</th><th>rationale</th></tr></thead><tbody>${judgeOrder
    .map((j, i) => {
      const v = it.verdicts.find((x) => x.judge_id === j);
      return v ? verdictRow(v, i) : "";
    })
    .join("")}</tbody></table>${traj}</div></details>`;
}

/**
 * The items' HTML, trajectories shown until the list holds `pageChars` characters (default {@link PAGE_ITEMS_CHARS});
 * sets `trajectory_not_shown` on the items whose trajectory is read but not shown.
 */
export function itemsHtml(items: ReportItem[], judgeOrder: string[], pageChars: number = PAGE_ITEMS_CHARS): string {
  const out: string[] = [];
  let used = 0;
  items.forEach((it, n) => {
    const h = itemHtml(it, judgeOrder, n, used >= pageChars ? pageChars : 0);
    used += h.length;
    out.push(h);
  });
  return out.join("\n");
}

/**
 * The sentence of an empty judge-vs-benchmark list: on how many of the attacked trajectories with a benchmark
 * verdict (the run less its unattacked, run_error and no_reference ones) the judge was compared, and why the others
 * were not (judge-side exclusions by reason), so "agrees on every comparable trajectory" never reads as all.
 */
function referenceAllAgreeText(r: ReferenceAgreement | undefined): string {
  if (!r) return "The judge agrees with the benchmark's verdict on every comparable trajectory.";
  const benchSide = new Set(["unattacked", "run_error", "no_reference"]);
  const ex = Object.entries(r.excluded).filter(([, n]) => (n ?? 0) > 0);
  const of = r.n_total - ex.filter(([k]) => benchSide.has(k)).reduce((a, [, n]) => a + n!, 0);
  const why = ex.filter(([k]) => !benchSide.has(k)).map(([k, n]) => `${k} ${int(n!)}`).join(", ");
  return (
    `The judge agrees with the benchmark's verdict on every trajectory it could be compared on: ${int(r.n_used)} of the ${int(of)} attacked trajectories with a benchmark verdict` +
    (r.n_used < of ? ` (the other ${int(of - r.n_used)} have no usable judge label${why ? `: ${why}` : ""}).` : ".")
  );
}

/**
 * The disagreement list section. Sets `trajectory_not_shown` on each item whose trajectory it does not show (over
 * the page's budget, or not renderable).
 */
export function itemsSection(m: ReportModel): string {
  const judgeOrder = m.judges.map((j) => j.id);
  if (m.items_total === 0) {
    const why = m.committee
      ? "Every trajectory with a quorum was labelled the same by every judge."
      : m.reference
        ? referenceAllAgreeText(m.reference[0])
        : "With one judge and no benchmark verdicts there is nothing to compare.";
    return `<section id="disagreements"><h2>${m.committee ? "Committee disagreements" : "Judge vs benchmark disagreements"}</h2><p class="note">${why}</p></section>`;
  }
  const filters = m.committee
    ? `<button type="button" data-filter="all" aria-pressed="true">all</button><button type="button" data-filter="disputed" aria-pressed="false">disputed</button><button type="button" data-filter="not_unanimous" aria-pressed="false">not unanimous</button>`
    : `<button type="button" data-filter="all" aria-pressed="true">all</button>`;
  const capped = m.items_total > m.items.length ? ` (the first ${m.items.length} of ${int(m.items_total)}; raise --max-items to list more)` : "";
  return `<section id="disagreements"><h2>${m.committee ? "Committee disagreements" : "Judge vs benchmark disagreements"}</h2>
<p class="note">${m.committee ? "Disputed trajectories (the judges split evenly between compromised and not) first, then every trajectory where the judges did not all give the same label" + (itemsPopulationText(m) ? ` (${escapeHtml(itemsPopulationText(m))})` : "") : "Trajectories where the judge's full_compliance and the benchmark's security verdict differ"}${capped}. Open one to read it with each judge's quotes highlighted where they occur.</p>
<div class="controls">${filters}<input id="item-search" type="search" placeholder="filter by id, model, suite, label…" aria-label="filter"><button type="button" id="expand-all">expand all</button><button type="button" id="collapse-all">collapse all</button><span id="item-count" class="note"></span></div>
<div id="items">${itemsHtml(m.items, judgeOrder)}</div></section>`;
}

