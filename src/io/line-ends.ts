/**
 * The line rules every JSON Lines reader shares (input chat JSONL `../ingest/lines.ts` and `../ingest/chat-jsonl.ts`;
 * the run's journals and small label files, `./jsonl.ts`), so that no two read one file differently:
 * - a line ends at LF; a CR right before the LF is part of the break (CRLF), dropped from the line. A CR anywhere
 *   else (a "lone CR") ends no line (jsonlines.org: the separator is `\n`; CR is whitespace to JSON): a file whose
 *   lines end in CR alone reads as one line, and its parse error says so (`../ingest/encoding-hint.ts`);
 * - a UTF-8 byte order mark (U+FEFF, bytes EF BB BF) at the start of line 1 is the file's mark ("UTF-8 with BOM"),
 *   dropped;
 * - one at the start of a later line is an error of that line, naming it ({@link midFileBom}): it is what two files
 *   joined end to end leave (`cat a.jsonl b.jsonl`, b saved with a mark), so the input is not the one file it claims
 *   to be; the line is not read (loud) rather than read in silence, and the message says how to fix the file.
 */

/** The byte order mark as text. */
export const BOM = "\ufeff";

/** Why a line is not read when a byte order mark starts it and it is not line 1. */
export function midFileBom(line: number): string {
  return `a UTF-8 byte order mark (U+FEFF) starts line ${line}, not the file: files joined end to end (e.g. cat a.jsonl b.jsonl, b saved as "UTF-8 with BOM")? remove the mark from the line`;
}

/**
 * One line's text under the module's rules: a trailing CR (of a CRLF) dropped; a byte order mark at its start dropped
 * on line 1, an error on any other line.
 * @param raw the line's text without its LF; @param line its 1-based number.
 */
export function lineText(raw: string, line: number): { text: string; error?: undefined } | { error: string } {
  const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (!text.startsWith(BOM)) return { text };
  return line === 1 ? { text: text.slice(1) } : { error: midFileBom(line) };
}

/** A line's bytes without the CR of a CRLF (the framing part of the rules: a reader that yields raw lines). */
export function withoutCr(raw: Uint8Array): Uint8Array {
  return raw.length > 0 && raw[raw.length - 1] === 0x0d ? raw.subarray(0, raw.length - 1) : raw;
}

/** {@link lineText} on bytes (a line read as bytes, to decode strictly): the same rules, the bytes' view returned. */
export function lineBytes(raw: Uint8Array, line: number): { bytes: Uint8Array; error?: undefined } | { error: string } {
  const end = withoutCr(raw).length;
  const bom = end >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
  if (!bom) return { bytes: raw.subarray(0, end) };
  return line === 1 ? { bytes: raw.subarray(3, end) } : { error: midFileBom(line) };
}

/** A text's lines under the module's rules, before {@link lineText}: split at LF (a last empty piece after a final LF kept). */
export function splitLines(text: string): string[] {
  return text.split("\n");
}
