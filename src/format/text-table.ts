/**
 * Text tables for the terminal: every column as wide as its widest cell, whatever a cell holds (a kappa with its CI or
 * a null with its reason, a long condition name, a count in the millions). The one table printer of text output
 * (agree's rater table, the paper table, compare's rows, sample's strata, the confusion matrices, label's counts):
 * a hand-rolled `padEnd(32)` breaks its columns as soon as one cell is longer (agree's rater table did).
 *
 * Widths count code points (an astral character is one column, as the terminal shows it, not two UTF-16 units);
 * cells are expected one visible line each (`./shown.ts` makes names from the run files so).
 */

/** How one column is aligned: text left, numbers right. */
export type ColumnAlign = "left" | "right";

/** Options of {@link textTable}. */
export interface TextTableOptions {
  /** Alignment per column (default: left for every column). */
  align?: readonly ColumnAlign[];
  /** Between two columns (default two spaces). */
  gap?: string;
  /** Before every line (default none). */
  indent?: string;
  /** Fewest characters per column (default 0 each), e.g. a column as wide as its header would be without a header row. */
  minWidths?: readonly number[];
}

/** A cell's width in columns: its code points. */
export function cellWidth(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s` padded with spaces to `width` columns, on the right (`left`) or the left (`right`). */
export function padCell(s: string, width: number, align: ColumnAlign = "left"): string {
  const fill = " ".repeat(Math.max(0, width - cellWidth(s)));
  return align === "right" ? fill + s : s + fill;
}

/**
 * Align `rows` (the header row first, when there is one) into lines: column i as wide as its widest cell, cells
 * padded by its alignment, joined by `gap`, trailing spaces removed. A row shorter than the others leaves its last
 * columns empty; the last column of a row is never padded beyond its text.
 */
export function textTable(rows: readonly (readonly string[])[], opts: TextTableOptions = {}): string[] {
  const gap = opts.gap ?? "  ";
  const indent = opts.indent ?? "";
  const n = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: n }, (_, i) => Math.max(opts.minWidths?.[i] ?? 0, ...rows.map((r) => (i < r.length ? cellWidth(r[i]) : 0))));
  return rows.map((r) => (indent + r.map((c, i) => padCell(c, widths[i], opts.align?.[i] ?? "left")).join(gap)).trimEnd());
}
