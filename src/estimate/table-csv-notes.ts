/**
 * The paper table's last CSV columns (`tableCsv` of ./table.ts): `judge_caveat`, always present (empty when no judge
 * behind the figures is broken), `heuristic_caveat` when one is, and `notes`, always present: the table's warnings and
 * run-state notes (the lines the LaTeX keeps as `% WARNING: ...` comments), the same text on every row. Break51
 * finding 5: the CSV dropped `tool_arguments_invalid`, `compliance_unrelated` and `same_file_other_cell`, which the text
 * and the LaTeX carry, and had no caveat column at all unless a judge looked broken, so a plot made from it lost them.
 */

import { joinCsvNotes } from "../format/csv-notes.js";

export { CSV_NOTE_SEPARATOR } from "../format/csv-notes.js";

/**
 * The `notes` cell: every note of the table that is a warning or a note on the run (`WARNING: ...`, `note: ...`), in
 * table order, joined by {@link CSV_NOTE_SEPARATOR}; the table's description and legends (said by its columns) are left
 * out. Line breaks become spaces. "" when there is none.
 * @param notes the table's notes (`PaperTable.notes`).
 */
export function csvNotesCell(notes: readonly string[]): string {
  return joinCsvNotes(notes.filter((n) => /^(WARNING|note):/.test(n)));
}

/**
 * The header and the cells of the last columns: `judge_caveat`, `heuristic_caveat` (only when `hcav`), `notes`.
 * @param cav the judge's caveat text ("" when none); @param hcav the heuristic's ("" when none).
 */
export function csvCaveatColumns(notes: readonly string[], cav: string, hcav: string): { header: string[]; cells: string[] } {
  return {
    header: ["judge_caveat", ...(hcav ? ["heuristic_caveat"] : []), "notes"],
    cells: [cav, ...(hcav ? [hcav] : []), csvNotesCell(notes)],
  };
}
