/** Strict UTF-8 decoding and JSON parsing with positions, shared by the input formats. */
import type { IngestError, Role } from "../types.js";
import { ConvertError, failureText, ingestError } from "./errors.js";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Byte offset of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or -1 when all of `buf` is well formed.
 */
export function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let len: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + len > n) return i;
    const b1 = buf[i + 1];
    if (b1 < lo || b1 > hi) return i;
    for (let k = 2; k < len; k++) {
      const c = buf[i + k];
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += len;
  }
  return -1;
}

/**
 * Result of {@link decodeUtf8Strict}: the text, or why not: `invalid_utf8` with where the first bad byte is;
 * `too_large` when the text is longer than one JavaScript string can be (`ERR_STRING_TOO_LONG`, about 512 Mi
 * UTF-16 units); `decode_error` for any other decoder failure (never reported as invalid UTF-8).
 */
export type Decoded =
  | { ok: true; text: string }
  | { ok: false; kind: "invalid_utf8"; offset: number; line: number; message: string }
  | { ok: false; kind: "too_large" | "decode_error"; message: string };

/**
 * Decode bytes as UTF-8 with `TextDecoder("utf-8", {fatal: true})`: invalid bytes are reported, never replaced
 * with U+FFFD. A leading BOM is dropped.
 *
 * @returns `{ok: true, text}`; or `{ok: false, kind: "invalid_utf8", offset, line, message}` with the 0-based
 *   byte offset and the 1-based line of the first invalid byte (within `buf`), and a message such as
 *   `invalid UTF-8 byte 0xff at byte 1234 (line 5)` (only when such a byte exists); or `{ok: false, kind:
 *   "too_large" | "decode_error", message}` when the decoder failed for another reason (the bytes are valid but
 *   too long for one string, ...). Never throws.
 */
export function decodeUtf8Strict(buf: Uint8Array): Decoded {
  try {
    return { ok: true, text: decoder.decode(buf) };
  } catch (e) {
    const offset = firstInvalidUtf8(buf);
    if (offset < 0) {
      const code = (e as { code?: unknown } | null)?.code;
      const msg = e instanceof Error ? e.message : String(e);
      if (code === "ERR_STRING_TOO_LONG") {
        return { ok: false, kind: "too_large", message: `${buf.length} bytes of text are too long for one string (${msg})` };
      }
      return { ok: false, kind: "decode_error", message: `cannot decode the text: ${msg}` };
    }
    let line = 1;
    for (let i = 0; i < offset; i++) if (buf[i] === 0x0a) line++;
    const hex = `0x${buf[offset].toString(16).padStart(2, "0")}`;
    return { ok: false, kind: "invalid_utf8", offset, line, message: `invalid UTF-8 byte ${hex} at byte ${offset} (line ${line})` };
  }
}

/**
 * The {@link IngestError} for a failed {@link decodeUtf8Strict}: kind `invalid_utf8` (message as given by `where`,
 * default the decoder's message, and its line within the bytes when `at.line` is not given), `too_large`, or
 * `read_error` for any other decoder failure.
 *
 * @param where turns the failure into the message text (lets a line reader say "of the line")
 */
export function decodeFailure(
  d: Exclude<Decoded, { ok: true }>,
  path: string,
  at: { line?: number } = {},
  where: (d: Extract<Decoded, { kind: "invalid_utf8" }>) => string = (x) => x.message,
): IngestError {
  if (d.kind === "invalid_utf8") return ingestError("invalid_utf8", path, where(d), at.line !== undefined ? at : { line: d.line });
  return ingestError(d.kind === "too_large" ? "too_large" : "read_error", path, d.message, at);
}

/** Result of {@link parseJson}. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * `JSON.parse` that never throws: on failure, the parser's message plus the line and column of the position it
 * names (when it names one; only the column when on the first line). Parser stack exhaustion on absurdly deep nesting is reported the same way.
 */
export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (e instanceof RangeError && /call stack/i.test(msg)) return { ok: false, message: `JSON nesting too deep to parse (${msg})` };
    if (!(e instanceof SyntaxError)) return { ok: false, message: `cannot parse the JSON: ${msg}` };
    const m = /at position (\d+)/.exec(msg);
    if (m) {
      const pos = Number(m[1]);
      let line = 1;
      let col = 1;
      for (let i = 0; i < pos && i < text.length; i++) {
        if (text.charCodeAt(i) === 10) {
          line++;
          col = 1;
        } else col++;
      }
      return { ok: false, message: line === 1 ? `${msg} (column ${col})` : `${msg} (line ${line}, column ${col})` };
    }
    return { ok: false, message: text.trim() === "" ? "empty input (no JSON value)" : msg };
  }
}

/** A JSON value's type name for messages: `null`, `array`, `object`, `string`, `number`, `boolean`. */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * `table[key]` when `key` is a string naming an OWN property of `table`, else `undefined`. Use this for every
 * lookup keyed by untrusted text: a plain `table[key]` would return inherited members for keys such as
 * `constructor`, `toString` or `__proto__` (a function or `Object.prototype` instead of "not found").
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined {
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** `JSON.stringify` of tool-call arguments: objects compact, strings verbatim, null/undefined as `{}`. */
export function argumentsString(args: unknown): string {
  if (typeof args === "string") return args;
  if (args === null || args === undefined) return "{}";
  return JSON.stringify(args);
}

/**
 * {@link argumentsString} of the arguments at `field` of message `index`.
 *
 * @throws ConvertError naming the field and the message when they cannot be stringified (nested too deep for
 *   `JSON.stringify`, too long for one string).
 */
export function argumentsAt(args: unknown, field: string, index: number): string {
  try {
    return argumentsString(args);
  } catch (e) {
    throw new ConvertError(field, index, failureText(e));
  }
}

/**
 * Run the conversion of message `index`; any failure that is not already a {@link ConvertError} becomes one
 * naming `messages[index]`.
 *
 * @throws ConvertError
 */
export function atMessage<T>(index: number, convert: () => T): T {
  try {
    return convert();
  } catch (e) {
    if (e instanceof ConvertError) throw e;
    throw new ConvertError(`messages[${index}]`, index, failureText(e));
  }
}

/** Chat roles of both input formats -> canonical roles (`developer` is a system message, `function` a tool result). */
export const ROLE_MAP: Readonly<Record<string, Role>> = {
  system: "system",
  developer: "system",
  user: "user",
  assistant: "assistant",
  tool: "tool",
  function: "tool",
};
