/**
 * The one CSV reader and writer of every command (ratings tables, human labels, annotation files, the sample's
 * `tasks.csv`), over csv-parse / csv-stringify (RFC 4180).
 *
 * Reading rules, the same for every command:
 * - comma-separated; a field may be in double quotes, a quote inside is doubled (`""`); a quoted field may hold
 *   commas and line breaks (so a "row" written inside attacker text is never a record: `../shared/cases/D12`);
 * - rows end with CRLF, LF or a lone CR (old Mac exports), mixed in one file too;
 * - a leading UTF-8 BOM is dropped;
 * - a row whose every field is empty (a blank line, `""`, `,,`) is not a record;
 * - text after a closing quote (`"ab"cd`), a quote inside an unquoted field (`ab"cd`) and a quoted field that is
 *   never closed are errors naming the file and line, never guessed at.
 * Line numbers are physical lines (what an editor shows), 1-based, each record's number being the line where it
 * starts.
 */
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";

/** A CSV file that cannot be read. The message names the file and the line. */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number | null,
  ) {
    super(message);
    this.name = "CsvError";
  }
}

/** One record of a CSV file: its fields and the 1-based line where it starts. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

const WHY: Record<string, string> = {
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote (a field holding a quote must be quoted whole, the inner quote doubled: "ab""cd")',
  CSV_QUOTE_NOT_CLOSED: "a quoted field is never closed (it runs to the end of the file)",
  CSV_INVALID_OPENING_QUOTE: 'a quote inside an unquoted field (quote the whole field and double the inner quote: "ab""cd")',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field (quote the whole field and double the inner quote: "ab""cd")',
};

/** Byte offsets where each physical line starts (CRLF, LF and lone CR each end one line). */
function lineStarts(buf: Buffer): number[] {
  const starts = [0];
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x0a) starts.push(i + 1);
    else if (c === 0x0d) {
      if (buf[i + 1] === 0x0a) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** 1-based line of a byte offset. */
function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** The first byte of a record that starts at `from`: skip the row ends csv-parse left before it. */
function skipBreaks(buf: Buffer, from: number): number {
  let i = from;
  while (i < buf.length && (buf[i] === 0x0a || buf[i] === 0x0d)) i++;
  return i;
}

/**
 * Parse CSV text (rules in the module docstring).
 * @param text the file's text (a string or the raw bytes, UTF-8).
 * @param file the file name used in error messages.
 * @returns the records, blank ones left out, each with the line where it starts.
 * @throws CsvError naming the file and line on malformed quoting.
 */
export function parseCsv(text: string | Buffer, file = "CSV"): CsvRecord[] {
  let buf = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  const starts = lineStarts(buf);
  let parsed: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    parsed = parse(buf, { info: true, relax_column_count: true, record_delimiter: ["\r\n", "\n", "\r"] }) as unknown as typeof parsed;
  } catch (e) {
    const err = e as Error & { code?: string; lines?: number; bytes?: number };
    // An unclosed quote is reported by csv-parse at the end of the file; name the line its record starts on.
    const line =
      err.code === "CSV_QUOTE_NOT_CLOSED" && typeof err.bytes === "number"
        ? lineAt(starts, skipBreaks(buf, err.bytes))
        : typeof err.lines === "number"
          ? err.lines
          : null;
    const why = (err.code && WHY[err.code]) || err.message;
    throw new CsvError(`${file}${line !== null ? ` line ${line}` : ""}: ${why}`, file, line);
  }
  const out: CsvRecord[] = [];
  let offset = 0;
  for (const { record, info } of parsed) {
    const start = skipBreaks(buf, offset);
    offset = info.bytes;
    if (record.every((f) => f === "")) continue;
    out.push({ line: lineAt(starts, start), fields: record });
  }
  return out;
}

/** A parsed CSV table: the header (names trimmed) and the data records. */
export interface CsvTable {
  header: string[];
  headerLine: number;
  rows: CsvRecord[];
}

/**
 * Parse a CSV file with a header row. A data row with more fields than the header is an error (a misquoted
 * field usually causes it); shorter rows are kept (their missing cells read as absent).
 * @throws CsvError for malformed quoting, an empty file or a row longer than the header, naming file and line.
 */
export function parseCsvTable(text: string | Buffer, file = "CSV"): CsvTable {
  const records = parseCsv(text, file);
  if (records.length === 0) throw new CsvError(`${file}: empty file (expected a header row)`, file, null);
  const [head, ...rows] = records;
  const header = head.fields.map((h) => h.trim());
  for (const r of rows) {
    if (r.fields.length > header.length) {
      throw new CsvError(
        `${file} line ${r.line}: ${r.fields.length} fields but the header (line ${head.line}) has ${header.length}; a field holding a comma or a line break must be in double quotes`,
        file,
        r.line,
      );
    }
  }
  return { header, headerLine: head.line, rows };
}

/** A text that reads as a number (a spreadsheet cannot take it for a formula): `-1.5`, `+2`, `3e-4`. */
const NUMBER_TEXT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?%?$/i;

/**
 * A text field a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or CR: red team 36 M1,
 * an agent model named `=cmd|' /C calc'!A0` was the first cell of `estimate --table --csv` rows) with a `'` before it,
 * as OWASP's CSV-injection guidance says; a number written as text (`-1.5`) is left as it is.
 */
export function inertCell(f: string): string {
  return /^[=+\-@\t\r]/.test(f) && !NUMBER_TEXT.test(f) ? `'${f}` : f;
}

/**
 * Write rows as CSV (RFC 4180): a text field a spreadsheet would take for a formula gets a `'` before it
 * ({@link inertCell}); every field holding a comma, a double quote, CR or LF, or leading/trailing
 * spaces is quoted with inner quotes doubled; rows end with CRLF (what spreadsheet apps expect), including the
 * last.
 * @param rows rows of fields (the first is usually the header); numbers are written as `String(n)`.
 * @param opts.rowEnd the row end: `"\r\n"` (default) or `"\n"` (the `estimate --table --csv` file).
 */
export function writeCsv(rows: readonly (readonly (string | number)[])[], opts: { rowEnd?: "\r\n" | "\n" } = {}): string {
  const safe = rows.map((r) => r.map((f) => (typeof f === "string" ? inertCell(f) : f)));
  return stringify(safe as (string | number)[][], {
    record_delimiter: opts.rowEnd ?? "\r\n",
    quoted_match: [/[",\r\n]/, /^\s|\s$/],
  });
}
