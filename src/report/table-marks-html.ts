/**
 * The report's paper table carries each row's n and the marks of rows that are not like for like, as `estimate
 * --table` prints them (session 47, new user 47 finding 1: gpt-4o no_defense 27.2% over 6,775 runs of 15 attacks beside
 * repeat_user_prompt 27.8% over 629 of one, with no n and no mark on the figure people screenshot). The marks, the
 * footnotes and the population line are the estimate table's own (`markUnlikeRows`, `populationText` of
 * src/estimate/table-marks.ts and table-population.ts, set when the table is built): this file only renders them.
 */
import { marksText, type MixFootnote } from "../estimate/table-marks.js";
import { OWN_MIX, populationText, type RowOver, type TablePopulation } from "../estimate/table-population.js";
import { escapeAttr, escapeHtml } from "./escape.js";

/** What the marks read of a table (`PaperTable` of src/estimate/table.ts; older model files may lack both fields). */
interface MarkedTable {
  population?: TablePopulation;
  mix_footnotes?: MixFootnote[];
}

/**
 * A row's name cell text with its marks: `no_defense <sup>[a]</sup>` (each letter links to its footnote), or the
 * name alone when the row is like for like. @param name the condition (the model when the run records no condition).
 */
export function markedNameHtml(name: string, r: { mix_marks?: readonly string[] }): string {
  const m = marksText(r);
  if (!m) return escapeHtml(name);
  const links = r.mix_marks!.map((k) => `<a href="#paper-table-mix-${escapeAttr(k)}">${escapeHtml(k)}</a>`).join(",");
  return `${escapeHtml(name)} <sup class="mix-mark" title="${escapeAttr(`${m}: not like for like, see the footnote under the table`)}">[${links}]</sup>`;
}

/** The line above the table naming which attacked runs the rates are over (n), as estimate's text table's first line. */
export function populationHtml(t: MarkedTable): string {
  return `<p class="note population">${escapeHtml(populationText(t.population ?? OWN_MIX))} (--own-mix is an option of report and of the estimate command the note above names).</p>`;
}

/**
 * A row's n cell: its n and, under it, what its rates are over (`over` of src/estimate/table-population.ts: `all runs`,
 * the shared cells with what it left out, or why it has no number); a row of a table stored before: its n alone.
 */
export function nCellHtml(r: { n_attacked: number } & Partial<RowOver>): string {
  const n = r.n_attacked.toLocaleString("en-US");
  return r.over === undefined ? n : `${n}<br><span class="over">${escapeHtml(r.over)}</span>`;
}

/** The footnotes under the table, one per mark: `[a] text` (estimate's text), each with the id its marks link to. */
export function mixFootnotesHtml(t: MarkedTable): string {
  const notes = t.mix_footnotes ?? [];
  if (!notes.length) return "";
  return `<ul class="note warn mix-footnotes">${notes.map((n) => `<li id="paper-table-mix-${escapeAttr(n.mark)}">[${escapeHtml(n.mark)}] ${escapeHtml(n.text)}</li>`).join("")}</ul>`;
}

/**
 * The table's n and marks for `report --json`: `population`, each row's `{ agent_model, condition, n_attacked,
 * n_attacked_left_out, cells_left_out, over, mix_marks }` (what it is over: ../estimate/table-population.ts `RowOver`;
 * absent from a row of a table stored before) and `mix_footnotes` (the full rows are `estimate --table --json`'s).
 */
export function tableMarksJson(t: MarkedTable & { rows: Array<{ agent_model: string; condition: string | null; n_attacked: number; mix_marks?: string[] } & Partial<RowOver>> }) {
  const over = (r: Partial<RowOver>) => (r.over === undefined ? {} : { n_attacked_left_out: r.n_attacked_left_out, cells_left_out: r.cells_left_out, over: r.over });
  return {
    population: t.population ?? OWN_MIX,
    rows: t.rows.map((r) => ({ agent_model: r.agent_model, condition: r.condition, n_attacked: r.n_attacked, ...over(r), mix_marks: r.mix_marks ?? [] })),
    mix_footnotes: t.mix_footnotes ?? [],
  };
}
