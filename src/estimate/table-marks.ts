/**
 * The marks on the paper table's rows that are not like for like (session 47, new user finding 1): gpt-4o's no_defense
 * row over 6,775 runs of 15 attacks printed 27.2% beside its repeat_user_prompt row's 27.8% over 629 runs of one, and
 * the only signs were a WARNING paragraph under the table and a CSV column. Now each such row carries a letter
 * (`[a]` in the text and CSV, `$^{\mathrm{a}}$` in the LaTeX) on its condition (its model when the run records no
 * condition), and a footnote per letter names the group and each of its rows' n and attacks.
 *
 * One letter per group a like-for-like warning names (`UnlikeGroups` of src/stats/like-for-like.ts, as the rows'
 * `like_for_like` flag): a model whose conditions differ, a condition whose models differ, model names that differ
 * only in spelling. Model and condition names are quoted (JSON.stringify, `quoted` of ../format/quote-name.ts), as
 * the other messages name them (session 51; the shared WARNING texts of ../stats/like-for-like.ts are still bare).
 */
import { NO_VALUE } from "../stats/no-value.js";
import { quoted } from "../format/quote-name.js";
import type { UnlikeGroups } from "../stats/like-for-like.js";

/** What the marks read of a row (`TableRow` of ./table.ts). */
interface MarkRow {
  agent_model: string;
  /** null: the run records no condition. */
  condition: string | null;
  n_attacked: number;
  /** Attacked runs (those the rates are over) by attack, and by suite. */
  attacks: Record<string, number>;
  suites?: Record<string, number>;
  mix_marks?: string[];
}

/** One footnote: its letter and text. */
export interface MixFootnote {
  mark: string;
  text: string;
}

/** The k-th letter: a ... z, then a27, a28 ... (never two groups one letter). */
const letter = (k: number) => (k < 26 ? String.fromCharCode(97 + k) : `a${k + 1}`);
const int = (n: number) => n.toLocaleString("en-US");

/**
 * A row's attacks as a footnote names them: `1 attack (important_instructions)`, `3 attacks (a 400, b 300, c 100)`
 * (by count, most first), `no attacked run`.
 */
export function attacksText(attacks: Record<string, number>, what = "attack"): string {
  const a = Object.entries(attacks).sort(([x, p], [y, q]) => q - p || (x < y ? -1 : 1));
  if (a.length === 0) return "no attacked run";
  if (a.length === 1) return `1 ${what} (${a[0][0]})`;
  return `${a.length} ${what}s (${a.map(([k, n]) => `${k} ${int(n)}`).join(", ")})`;
}

/**
 * A row's attacked runs counted by attack and by suite (`(none)` when a run has none).
 * @param positions the runs' positions; @param row a position's index row (no list of a million rows is made).
 */
export function rowMix(positions: readonly number[], row: (i: number) => { attack?: string; suite?: string }): { attacks: Record<string, number>; suites: Record<string, number> } {
  const attacks: Record<string, number> = {};
  const suites: Record<string, number> = {};
  for (const i of positions) {
    const r = row(i);
    attacks[r.attack ?? NO_VALUE] = (attacks[r.attack ?? NO_VALUE] ?? 0) + 1;
    suites[r.suite ?? NO_VALUE] = (suites[r.suite ?? NO_VALUE] ?? 0) + 1;
  }
  return { attacks, suites };
}

/** A row's attacks as the CSV's `attacks` cell: `name count` joined by `; `, most first. */
export function attacksCsv(attacks: Record<string, number>): string {
  return Object.entries(attacks).sort(([x, p], [y, q]) => q - p || (x < y ? -1 : 1)).map(([k, n]) => `${k} ${n}`).join("; ");
}

/**
 * Set each row's `mix_marks` and return the footnotes (module docstring).
 * @param rows the table's rows (changed: `mix_marks` set on each, `[]` when like for like).
 * @param unlike the groups the rates' like-for-like warnings name. @param likeForLike the rows are like for like (not `--own-mix`).
 */
export function markUnlikeRows(rows: MarkRow[], unlike: UnlikeGroups, likeForLike: boolean): MixFootnote[] {
  for (const r of rows) r.mix_marks = [];
  const notes: MixFootnote[] = [];
  // each row's n and attacks, and its suites when they are what differs
  const each = (rs: MarkRow[], name: (r: MarkRow) => string | null, kind: string) =>
    rs.map((r) => `${name(r) === null ? NO_VALUE : quoted(name(r)!)} n ${int(r.n_attacked)} over ${attacksText(r.attacks)}${kind.includes("suites") && r.suites ? ` on ${attacksText(r.suites, "suite")}` : ""}`).join("; ");
  const rated = rows.filter((r) => r.n_attacked > 0); // a row without attacked runs has no rate to compare
  const mark = (rs: MarkRow[], text: string) => {
    const m = letter(notes.length);
    for (const r of rs) r.mix_marks!.push(m);
    notes.push({ mark: m, text });
  };
  for (const [model, kind] of [...unlike.models].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rs = rated.filter((r) => r.agent_model === model);
    if (rs.length < 2) continue;
    mark(
      rs,
      `${quoted(model)}: its conditions ran ${kind} (${each(rs, (r) => r.condition, kind)}): its rows do not compare like with like` +
        (likeForLike ? " (its conditions could not be put on shared cells: see the population line)" : "; without --own-mix the table builds them over the cells its conditions share, as compare --by condition does"),
    );
  }
  for (const [cond, kind] of [...unlike.conditions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rs = rated.filter((r) => (r.condition ?? NO_VALUE) === cond);
    if (rs.length < 2) continue;
    const under = rs[0].condition === null ? "the agent models" : `under ${quoted(cond)}, the agent models`;
    mark(rs, `${under} ran ${kind} (${each(rs, (r) => r.agent_model, kind)}): per-model rates are not like for like; compare --common-tasks compares them on the tasks every model ran`);
  }
  const spelled = rated.filter((r) => unlike.spellings.has(r.agent_model));
  if (spelled.length) mark(spelled, `agent model names that differ only in spelling (${[...new Set(spelled.map((r) => quoted(r.agent_model)))].join(", ")}): kept apart, one row each (see the WARNING note)`);
  return notes;
}

/** A row's marks as the text and CSV give them: `[a]`, `[a,c]`, or "" (none). */
export function marksText(r: { mix_marks?: readonly string[] }): string {
  return r.mix_marks?.length ? `[${r.mix_marks.join(",")}]` : "";
}

/** A row's marks in LaTeX: `$^{\mathrm{a,c}}$`, or "". */
export function marksLatex(r: { mix_marks?: readonly string[] }): string {
  return r.mix_marks?.length ? `$^{\\mathrm{${r.mix_marks.join(",")}}}$` : "";
}

/** The footnote lines under the text table: `[a] text`. */
export function footnoteLines(notes: readonly MixFootnote[]): string[] {
  return notes.map((n) => `[${n.mark}] ${n.text}`);
}
