/**
 * The width text tables are fitted to (`wrappedTable` of ../format/text-table.ts): the terminal's columns when stdout
 * is a terminal, else the `COLUMNS` environment variable when it holds a positive integer (a script that wants the
 * terminal's layout in a file), else none: a file or a pipe gets each row on one line, for grep and the CSV-minded.
 */

/** The columns to fit, or undefined for no limit (module docstring). */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout, env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (stream.isTTY && typeof stream.columns === "number" && stream.columns > 0) return stream.columns;
  const c = env.COLUMNS;
  return c !== undefined && /^[1-9][0-9]*$/.test(c.trim()) ? Number(c.trim()) : undefined;
}
