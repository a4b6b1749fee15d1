/**
 * Why bytes that fail to decode or parse may have failed: a file in UTF-16, or lines broken by CR alone. Computed
 * only on an error's path (never for a file that reads), and appended to the error's message so the user is told
 * what to convert, not only that line 1 is not JSON (red team 30, L2).
 */

/** How many leading bytes {@link encodingHint} looks at for UTF-16 (its NUL bytes show at once). */
const LOOK = 512;

/**
 * A hint about the encoding or line breaks of bytes that did not decode as UTF-8 or parse as JSON.
 * - UTF-16: a byte-order mark (`FF FE` little-endian, `FE FF` big-endian), or NUL bytes in at least a quarter of the
 *   first 512 bytes, nearly all at even offsets (big-endian) or nearly all at odd ones (little-endian) — ASCII text in
 *   UTF-16 has every other byte 0;
 * - CR line breaks: a CR not followed by LF anywhere in the bytes and no LF (an old Mac file: its lines are one).
 *   Looked for over every byte, not the first 512 only (new user 35: a first record of 857 bytes got only
 *   `Unexpected non-whitespace character after JSON at position 857`); only on an error's path, one pass.
 * @param bytes the bytes of the file or line (UTF-16 is looked for in the first 512).
 * @returns "" when neither shows, else a clause starting with "; " to append to the error's message.
 */
export function encodingHint(bytes: Uint8Array): string {
  const n = Math.min(bytes.length, LOOK);
  if (n >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    return `; the bytes start with a UTF-16 byte-order mark (${bytes[0] === 0xff ? "little" : "big"}-endian): ipi-judge reads UTF-8 text; convert the file (e.g. iconv -f UTF-16 -t UTF-8)`;
  }
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i++) {
    if (bytes[i] !== 0) continue;
    if (i % 2 === 0) even++;
    else odd++;
  }
  const nul = even + odd;
  if (n >= 8 && nul * 4 >= n && Math.max(even, odd) >= 0.9 * nul) {
    return `; every other byte is 0, as in UTF-16 (${odd > even ? "little" : "big"}-endian) text without a byte-order mark: ipi-judge reads UTF-8 text; convert the file (e.g. iconv -f UTF-16${odd > even ? "LE" : "BE"} -t UTF-8)`;
  }
  const crs = loneCRs(bytes);
  if (crs > 0)
    return (
      `; its lines end in CR alone (old Mac line breaks: ${crs} CR break${crs === 1 ? "" : "s"} without LF here), so the whole file reads as one line: ` +
      "JSON Lines needs LF (or CRLF) line breaks; convert the file (e.g. tr '\\r' '\\n' < in.jsonl > out.jsonl)"
    );
  return "";
}

/** How many CRs not followed by LF the bytes hold (a trailing one not counted), or 0 when they hold any LF. */
function loneCRs(bytes: Uint8Array): number {
  if (bytes.indexOf(0x0a) !== -1) return 0;
  let count = 0;
  for (let i = bytes.indexOf(0x0d); i !== -1 && i < bytes.length - 1; i = bytes.indexOf(0x0d, i + 1)) count++;
  return count;
}
