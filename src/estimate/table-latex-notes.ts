/**
 * The paper table's notes in the LaTeX file, rendered under the tabular, not only as `%` comment lines (break53 #10,
 * newuser53 #1: a committee's split-vote range (DISPUTED, 17.0% to 32.4% beside a printed 20.3 [16.2, 25.2]), the
 * annotator-tie ranges, "calibrated asr_goal above asr_behaviour", the key to `(x/n)` and the EXPOSURE LOW note a
 * visible `$^\circ$` footnote pointed to ("see the EXPOSURE LOW note above") were comments only, so a compiled paper
 * lost every caveat the text table prints).
 *
 * Every note of the table but its first (the columns' definitions, kept as a comment) is a numbered note: `$^{1}$`,
 * `$^{2}$` ... A note that names rows (`model | condition` followed by a rate, `:` or ` (`, as the per-row notes write
 * them: `gpt-4o | tool_filter asr_goal: 2 tied, 7.0% to 18.1%`) puts its number on each of those rows' name cell, so
 * the row points to its caveat; a note naming no row is rendered with its number and marks no cell.
 */
import { latexEscape } from "./table.js";

/** A row as the notes name it. */
interface NamedRow {
  agent_model: string;
  condition: string | null;
}

/** The numbered notes and the marks of each row (by its position in `rows`). */
export interface LatexNotes {
  /** Per row (as `rows`): the LaTeX marks of the notes naming it, e.g. `$^{1,3}$`, or "". */
  rowMarks: string[];
  /** The rendered note lines (`\noindent $^{1}$ ...\par`), in the notes' order. */
  lines: string[];
}

const esc = (s: string) => latexEscape(s.replace(/[\r\n]/g, " ")).replace(/--/g, "-{}-"); // "--" kept two hyphens

/** Does `note` name the row called `name` (at a word's start, followed by a rate, `:` or ` (`)? */
function names(note: string, name: string): boolean {
  for (let i = note.indexOf(name); i >= 0; i = note.indexOf(name, i + 1)) {
    const before = i === 0 ? " " : note[i - 1];
    const after = note.slice(i + name.length);
    if (/[\s(;:"]/.test(before) && /^(:| \(| asr_| calibrated| human)/.test(after)) return true;
  }
  return false;
}

/**
 * Number the notes and mark the rows they name (module docstring).
 * @param notes the notes to render (plain text, escaped here), in order.
 * @param rows the table's rows, in body order; @param conds the table has a condition column (rows named `model | condition`).
 * @returns each row's marks and the rendered lines.
 */
export function latexNotes(notes: readonly string[], rows: readonly NamedRow[], conds: boolean): LatexNotes {
  const rowName = (r: NamedRow) => `${r.agent_model}${conds ? ` | ${r.condition}` : ""}`;
  const marks: number[][] = rows.map(() => []);
  const lines = notes.map((n, k) => {
    const named = rows.map((r, i) => (names(n, rowName(r)) ? i : -1)).filter((i) => i >= 0);
    for (const i of named) marks[i].push(k + 1);
    return `\\noindent $^{${k + 1}}$ ${esc(n)}\\par`;
  });
  return { rowMarks: marks.map((m) => (m.length ? `$^{${m.join(",")}}$` : "")), lines };
}
