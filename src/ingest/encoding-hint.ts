/**
 * Why bytes that fail to decode or parse may have failed: a file in UTF-16, or lines broken by CR alone. Computed
 * only on an error's path (never for a file that reads), and appended to the error's message so the user is told
 * what to convert, not only that line 1 is not JSON (red team 30, L2).
 */

/** How many leading bytes {@link encodingHint} looks at. */
const LOOK = 512;

/**
 * A hint about the encoding or line breaks of bytes that did not decode as UTF-8 or parse as JSON.
 * - UTF-16: a byte-order mark (`FF FE` little-endian, `FE FF` big-endian), or NUL bytes in at least a quarter of the
 *   first 512 bytes, nearly all at even offsets (big-endian) or nearly all at odd ones (little-endian) — ASCII text in
 *   UTF-16 has every other byte 0;
 * - CR line breaks: a CR not followed by LF in the first 512 bytes and no LF (an old Mac file: its lines are one).
 * @param bytes the bytes of the file or line (only the first 512 are read).
 * @returns "" when neither shows, else a clause starting with "; " to append to the error's message.
 */
export function encodingHint(bytes: Uint8Array): string {
  const n = Math.min(bytes.length, LOOK);
  if (n >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    return `; the bytes start with a UTF-16 byte-order mark (${bytes[0] === 0xff ? "little" : "big"}-endian): ipi-judge reads UTF-8 text; convert the file (e.g. iconv -f UTF-16 -t UTF-8)`;
  }
  let even = 0;
  let odd = 0;
  let cr = false;
  let lf = false;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) {
      if (i % 2 === 0) even++;
      else odd++;
    } else if (b === 0x0a) lf = true;
    else if (b === 0x0d && bytes[i + 1] !== 0x0a) cr = true;
  }
  const nul = even + odd;
  if (n >= 8 && nul * 4 >= n && Math.max(even, odd) >= 0.9 * nul) {
    return `; every other byte is 0, as in UTF-16 (${odd > even ? "little" : "big"}-endian) text without a byte-order mark: ipi-judge reads UTF-8 text; convert the file (e.g. iconv -f UTF-16${odd > even ? "LE" : "BE"} -t UTF-8)`;
  }
  if (cr && !lf) return "; its lines end in CR alone (old Mac line breaks), so the whole file reads as one line: JSON Lines needs LF (or CRLF) line breaks";
  return "";
}
