/**
 * The `notes` cell of a figures CSV (`compare --csv`, `estimate --table --csv`): the warnings and notes the text
 * output prints, the same text on every row, so a plot made from the CSV keeps them (break51 finding 5; session 51
 * left compare's CSV without the column).
 */

/** Separator between two notes in the `notes` cell (a note's own text holds `;` and `,`). */
export const CSV_NOTE_SEPARATOR = " | ";

/**
 * The notes joined by {@link CSV_NOTE_SEPARATOR}, in the order given, each on one line (line breaks become spaces).
 * @param notes the lines as the text prints them (`WARNING: ...`, `note: ...`); "" when there is none.
 */
export function joinCsvNotes(notes: readonly string[]): string {
  return notes.map((n) => n.replace(/[\r\n]+/g, " ")).join(CSV_NOTE_SEPARATOR);
}
