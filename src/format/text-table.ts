/**
 * Text tables for the terminal: every column as wide as its widest cell, whatever a cell holds (a kappa with its CI or
 * a null with its reason, a long condition name, a count in the millions). The one table printer of text output
 * (agree's rater table, the paper table, compare's rows, sample's strata, the confusion matrices, label's counts):
 * a hand-rolled `padEnd(32)` breaks its columns as soon as one cell is longer (agree's rater table did).
 *
 * Widths count code points (an astral character is one column, as the terminal shows it, not two UTF-16 units);
 * cells are expected one visible line each (`./shown.ts` makes names from the run files so).
 */
import { maxOf } from "../io/extremes.js";

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
  const n = maxOf(rows.map((r) => r.length), 0);
  const widths = Array.from({ length: n }, (_, i) => maxOf(rows.map((r) => (i < r.length ? cellWidth(r[i]) : 0)), opts.minWidths?.[i] ?? 0));
  return rows.map((r) => (indent + r.map((c, i) => padCell(c, widths[i], opts.align?.[i] ?? "left")).join(gap)).trimEnd());
}

/** Options of {@link wrappedTable}. */
export interface WrappedTableOptions extends TextTableOptions {
  /** The widest line wanted (a terminal's columns); undefined: no limit, one block. */
  width?: number;
  /** The first columns every block repeats (the row's names, e.g. model and condition; default 1). */
  keep?: number;
}

/**
 * {@link textTable}, in blocks of columns that each fit `width` when the whole is wider (session 40: the paper table
 * of `estimate --table` ran to 267 columns on AgentDojo + defenses, each row broken across three terminal lines): every block repeats the
 * first `keep` columns, so each line still names its row, and keeps the header row; blocks are separated by an empty
 * line. The columns keep the widths of the whole table, so a column reads the same in every block. A column wider
 * than `width` on its own gets a block of its own. With no `width`, or a table that fits, the lines of `textTable`.
 * @returns the lines, and `blocks`: how many blocks (1 when not wrapped).
 */
export function wrappedTable(rows: readonly (readonly string[])[], opts: WrappedTableOptions = {}): { lines: string[]; blocks: number } {
  const whole = textTable(rows, opts);
  const widest = maxOf(whole.map(cellWidth), 0);
  const n = maxOf(rows.map((r) => r.length), 0);
  const keep = Math.min(opts.keep ?? 1, n);
  if (opts.width === undefined || widest <= opts.width || n <= keep + 1) return { lines: whole, blocks: 1 };
  const gap = cellWidth(opts.gap ?? "  ");
  const widths = Array.from({ length: n }, (_, i) => maxOf(rows.map((r) => (i < r.length ? cellWidth(r[i]) : 0)), opts.minWidths?.[i] ?? 0));
  const base = cellWidth(opts.indent ?? "") + widths.slice(0, keep).reduce((s, w) => s + w + gap, 0);
  const groups: number[][] = [];
  let cur: number[] = [];
  let used = base;
  for (let i = keep; i < n; i++) {
    if (cur.length && used + widths[i] > opts.width) {
      groups.push(cur);
      cur = [];
      used = base;
    }
    cur.push(i);
    used += widths[i] + gap;
  }
  if (cur.length) groups.push(cur);
  const lines: string[] = [];
  groups.forEach((g, k) => {
    const cols = [...Array.from({ length: keep }, (_, i) => i), ...g];
    if (k > 0) lines.push("");
    lines.push(
      ...textTable(
        rows.map((r) => cols.map((i) => r[i] ?? "")),
        { ...opts, align: opts.align && cols.map((i) => opts.align![i] ?? "left"), minWidths: cols.map((i) => widths[i]) },
      ),
    );
  });
  return { lines, blocks: groups.length };
}

/**
 * The line said above a table {@link wrappedTable} split: that it was, into how many blocks, what names each row,
 * and where one line per row is (`--csv`, `--json`); "" when it was not split.
 * @param names what the repeated columns are, e.g. "its model and condition".
 */
export function wrapHint(blocks: number, width: number | undefined, names: string): string {
  return blocks > 1
    ? `(the table is wider than the terminal's ${width} columns: printed in ${blocks} blocks of columns, each line named by ${names}; --csv and --json give one line per row)`
    : "";
}
