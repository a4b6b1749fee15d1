/**
 * A small RFC 4180 CSV reader for label and ratings files: comma-separated, fields optionally in double
 * quotes (a quote inside is doubled), CRLF or LF line ends, a UTF-8 BOM ignored, blank lines skipped.
 */

/** A CSV file that cannot be read. The message names the line. */
export class CsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CsvError";
  }
}

/**
 * Parse CSV text into rows of fields.
 * @param text the file's text.
 * @returns rows (arrays of raw field strings, unquoted), blank lines left out; `lines[i]` is the 1-based line
 *   where row i starts.
 * @throws CsvError on an unterminated quoted field or text after a closing quote.
 */
export function parseCsv(text: string): { rows: string[][]; lines: number[] } {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows: string[][] = [];
  const lines: number[] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let line = 1;
  let rowLine = 1;
  let quoted = false;
  let afterQuote = false;
  const endField = () => {
    row.push(field);
    field = "";
    afterQuote = false;
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === "" )) {
      rows.push(row);
      lines.push(rowLine);
    }
    row = [];
  };
  while (i < s.length) {
    const c = s[i];
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        afterQuote = true;
        i++;
        continue;
      }
      if (c === "\n") line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "" && !afterQuote) {
      quoted = true;
      i++;
      continue;
    }
    if (c === ",") {
      endField();
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") {
      endRow();
      if (c === "\r" && s[i + 1] === "\n") i++;
      i++;
      line++;
      rowLine = line;
      continue;
    }
    if (afterQuote) throw new CsvError(`line ${line}: text after a closing quote`);
    field += c;
    i++;
  }
  if (quoted) throw new CsvError(`line ${rowLine}: unterminated quoted field`);
  if (field !== "" || row.length > 0 || afterQuote) endRow();
  return { rows, lines };
}
