/**
 * Strings from UTF-16 code units written into typed arrays, and the scratch arrays to write them in: the text
 * builders of the offline judge's hot paths (`./normalize.ts` `run`, the signature judge's loose form) write their
 * output as code units into a buffer reused across calls and decode it once (issue 26: a fresh `Uint16Array` per
 * call and `String.fromCharCode` over 8 Ki-unit chunks were a fifth of the signature worker's allocation).
 */

/** Whether this machine stores a `Uint16Array` little-endian (the layout `Buffer`'s `utf16le` decoding reads). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

let bytes = Buffer.allocUnsafe(1 << 12);

/**
 * The string of the first `len` code units of `units` (lone surrogates kept as they are, as `String.fromCharCode`
 * does): decoded as latin1 (a one-byte string) when every unit is below U+0100, else as UTF-16.
 * @param units code units; only `[0, len)` is read. @param len 0 <= len <= units.length.
 */
export function unitsToString(units: Uint16Array, len: number): string {
  let wide = false;
  for (let k = 0; k < len; k++) {
    if (units[k] > 0xff) {
      wide = true;
      break;
    }
  }
  if (!wide) {
    if (bytes.length < len) bytes = Buffer.allocUnsafe(Math.max(len, bytes.length * 2));
    for (let k = 0; k < len; k++) bytes[k] = units[k];
    return bytes.toString("latin1", 0, len);
  }
  if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, len * 2).toString("utf16le");
  const parts: string[] = [];
  for (let k = 0; k < len; k += 8192) parts.push(String.fromCharCode.apply(null, units.subarray(k, Math.min(len, k + 8192)) as unknown as number[]));
  return parts.join("");
}

let scratch = new Uint16Array(1 << 12);

/**
 * A scratch array of at least `n` code units, reused across calls (its content is garbage). The caller fills it and
 * turns it into a string ({@link unitsToString}) before the next call: one thread runs one builder at a time.
 */
export function unitScratch(n: number): Uint16Array {
  if (scratch.length < n) scratch = new Uint16Array(Math.max(n, scratch.length * 2));
  return scratch;
}
