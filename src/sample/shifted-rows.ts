/**
 * Rows of a filled `tasks.csv` whose `item_id` is not the item their `trajectory` cell shows (break50 finding 1).
 * `sample` writes each row's `trajectory` cell beginning with `# Item <item id>` (./export.ts `renderTask`), the same id
 * as the row's `item_id`. A spreadsheet sort or paste of one column moves ids against the texts the labels were given
 * for: 10 of 60 rows shifted were imported as "60 of 60" and moved kappa 0.734 -> 0.568 in silence. Since a shift
 * means the file cannot be trusted row by row, `import-annotations` refuses the whole file, naming every such row.
 * A row with no `trajectory` cell, or one that does not begin with `# Item ` (a label file keyed by item_id alone,
 * or a cell the user cleared), is not checked.
 */

/** A row whose item_id and trajectory cell name different items. */
export interface ShiftedRow {
  /** `tasks.csv row 3 (line 120)`. */
  where: string;
  item_id: string;
  /** The id the row's `trajectory` cell shows (`# Item <id>`). */
  shown_item_id: string;
}

/** The item id a `trajectory` cell shows: the rest of its first line after `# Item `, or undefined. */
export function shownItemId(cell: string | undefined): string | undefined {
  if (cell === undefined) return undefined;
  const first = cell.replace(/^\ufeff/, "").trimStart().split(/\r?\n|\r/, 1)[0];
  const m = /^# Item (.+)$/.exec(first.trimEnd());
  return m ? m[1].trim() : undefined;
}

/**
 * The row, when its `item_id` cell (trimmed, as the importer reads it) is set and is not the id its `trajectory` cell
 * shows; else undefined.
 */
export function shiftedRow(where: string, itemCell: string | undefined, trajectoryCell: string | undefined): ShiftedRow | undefined {
  const shown = shownItemId(trajectoryCell);
  const id = itemCell?.trim();
  if (shown === undefined || !id || id === shown) return undefined;
  return { where, item_id: id, shown_item_id: shown };
}

/**
 * The refusal's summary and its problems (one per row: file, row, line, both ids) for the shifted rows of one file.
 * @param file the file's name; @param shifted its shifted rows (non-empty); @param rows the data rows it has.
 */
export function shiftedRowsRefusal(file: string, shifted: readonly ShiftedRow[], rows: number): { summary: string; problems: string[] } {
  const summary =
    `${file}: ${shifted.length} of ${rows} row${rows === 1 ? "" : "s"} have an item_id that is not the item their trajectory cell shows ("# Item <id>"): ` +
    `the columns were shifted against each other (a spreadsheet sort or paste of one column), so no row of the file can be trusted to put its label on the trajectory it was given for; nothing was written. ` +
    `Fix: undo the sort (or sort the whole table, all columns together) so that every row's item_id is the id in its trajectory cell, or write each label in the row whose trajectory it judges, and import again`;
  return { summary, problems: shifted.map((s) => `${s.where}: item_id "${s.item_id}", but its trajectory cell shows item "${s.shown_item_id}"`) };
}
