/**
 * Neutralizing untrusted text (trajectory contents, tool names, injected text) before it is placed inside the
 * judge prompt's nonce-tagged blocks.
 *
 * Two reversible escapes, both in the `&...;` entity family so that they stay visible to the judge (the payload
 * is shown, never deleted) but inert:
 *
 * 1. **Tag-like sequences.** Every `<` followed by optional whitespace, an optional `/`, optional whitespace and
 *    a name that starts (case-insensitively) with one of {@link TAG_NAMES} becomes `&lt;`. So
 *    `</untrusted_trajectory>`, `</UNTRUSTED_TRAJECTORY >`, `</ untrusted_trajectory>`, `<judge_instructions>`
 *    and `< /Message_x>` become `&lt;/untrusted_trajectory>` etc. To keep the escape exactly reversible, text
 *    that already looks like an escape, `&` + k×`amp;` + `lt;` before such a name (k ≥ 0, case-insensitive), gets
 *    one more `amp;` (`&lt;system` -> `&amp;lt;system`). Other `<` (`<INFORMATION>`, `a < b`) are left alone.
 * 2. **The nonce.** When a nonce is given, every case-insensitive occurrence of it becomes
 *    `&#x<hex code of its first char>;<rest>` (nonce `3fa9...` -> `&#x33;fa9...`), and existing text of that
 *    shape (`&` + k×`amp;` + `#x..;` + rest) gets one more `amp;`. Limitation: a caller-chosen nonce that
 *    overlaps itself (`aaaa...`) can reappear after escaping; {@link newNonce} is random hex, where this has
 *    probability ~16^-11 per position, and `renderForJudge` redraws a nonce that occurs in the content.
 *
 * `unneutralize(neutralize(s, n), n) === s` for every string `s` (property-tested).
 */
import { randomBytes } from "node:crypto";

/**
 * Name prefixes of the prompt's scaffolding tags (matched case-insensitively as prefixes: `tool` covers
 * `tool_call`, `tool_result`, `tools`; `inject` covers `injected`, `injection`; `instruction` covers
 * `instructions`). Prompt authors: every tag the judge prompt uses must start with one of these.
 */
export const TAG_NAMES = [
  "untrusted",
  "message",
  "msg",
  "tool",
  "inject",
  "judge",
  "system",
  "instruction",
  "rubric",
  "user",
  "assistant",
  "prompt",
] as const;

const NAMES = TAG_NAMES.join("|");
const TAG_RE = new RegExp(`(?:<|&(?:amp;)*lt;)(?=\\s*\\/?\\s*(?:${NAMES}))`, "gi");
const UNTAG_RE = new RegExp(`&(?:amp;)*lt;(?=\\s*\\/?\\s*(?:${NAMES}))`, "gi");
/** {@link TAG_RE} anchored at `lastIndex` (sticky): what {@link escapedAt} tests. */
const TAG_AT_RE = new RegExp(TAG_RE.source, "iy");

/**
 * Whether {@link neutralize} escapes `text` at offset `i`: an ASCII `<`, or `&` + k×`amp;` + `lt;`, before optional
 * whitespace, an optional `/` and a name of {@link TAG_NAMES}. A fullwidth `＜`, or a `<` a zero-width character
 * keeps from the name, is not escaped: the judge saw it as it is (`../evidence/verify.ts` reads a quote cut inside an
 * escape only where this holds).
 */
export function escapedAt(text: string, i: number): boolean {
  TAG_AT_RE.lastIndex = i;
  return TAG_AT_RE.test(text);
}

/**
 * The first two characters of every {@link newNonce}: a digit then a letter, pairs that ordinary text rarely
 * holds. The nonce search finds a nonce by its first two characters with one regex per pair, compiled once and
 * kept (`headRegex`); with any two hex characters first (1,296 regexes over a run, each run cold) rendering
 * cost ~35 µs more per trajectory and warmed up over thousands of them.
 */
const NONCE_HEADS = ["9f", "8e", "7d", "6c", "5b", "4a", "3f", "2e", "1d", "0c", "9b", "8a", "7f", "6e", "5d", "4c"];

/**
 * A fresh random nonce for one judge prompt: 13 lowercase hex characters holding 48 random bits from
 * `crypto.randomBytes` (4 bits pick one of 16 fixed first pairs, {@link NONCE_HEADS}; 44 bits are the 11
 * characters after it).
 */
export function newNonce(): string {
  if (poolAt + 6 > pool.length) {
    pool = randomBytes(6 * 512);
    poolAt = 0;
  }
  const head = NONCE_HEADS[pool[poolAt] & 15];
  const tail = (pool[poolAt] >> 4).toString(16) + pool.toString("hex", poolAt + 1, poolAt + 6);
  poolAt += 6;
  return head + tail;
}
/** Random bytes drawn 3 KiB at a time (one `randomBytes` call per 512 nonces instead of one per nonce). */
let pool = Buffer.alloc(0);
let poolAt = 0;

const NONCE_OK = /^[A-Za-z0-9]{6,64}$/;

/**
 * Per first two characters of a nonce (lower-cased ASCII letters/digits: at most 36 x 36 regexes, compiled once
 * and kept): a regex finding those two (either case) or an already-escaped nonce head `&(amp;)*#x<hex>;` and the
 * second character. The rest of the nonce is compared by hand ({@link restAt}), so a fresh nonce per prompt
 * rarely compiles a regex, and two characters make candidates rare in ordinary text.
 */
const HEADS = new Map<string, RegExp>();

function headRegex(nonce: string): RegExp {
  const k = nonce.slice(0, 2).toLowerCase();
  let re = HEADS.get(k);
  if (!re) {
    re = new RegExp(`${k}|&((?:amp;)*)#x([0-9a-f]{1,6});${k[1]}`, "gi");
    HEADS.set(k, re);
  }
  return re;
}

/**
 * True when `text` holds `rest` at `at`, ASCII letters compared case-insensitively (what a non-unicode `/i`
 * regex does for an ASCII pattern: no non-ASCII character folds to an ASCII one).
 */
function restAt(text: string, at: number, rest: string): boolean {
  if (at + rest.length > text.length) return false;
  for (let j = 0; j < rest.length; j++) {
    const a = text.charCodeAt(at + j);
    const b = rest.charCodeAt(j);
    if (a === b) continue;
    const la = a | 32;
    if (la !== (b | 32) || la < 97 || la > 122) return false;
  }
  return true;
}

/**
 * `text.replace(re, fn)` for the regex `(?:<nonce>|&((?:amp;)*)#x([0-9a-f]{1,6});<rest>)` with flags `gi`
 * (`rest` = the nonce without its first character; {@link headRegex} matches up to its second one): every
 * literal nonce occurrence (any case) or escaped one, left to right, without overlaps; `fn(match, amps, hex)`
 * gets `amps`/`hex` only for an escaped one.
 * @throws Error when `nonce` is not 6-64 ASCII letters/digits.
 */
function replaceNonce(text: string, nonce: string, fn: (m: string, amps: string | undefined, hex: string | undefined) => string): string {
  if (!NONCE_OK.test(nonce)) throw new Error(`invalid nonce ${JSON.stringify(nonce)}: need 6-64 ASCII letters/digits`);
  const re = headRegex(nonce);
  const rest = nonce.slice(2);
  let out = "";
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const at = m.index;
    const end = at + m[0].length;
    if (!restAt(text, end, rest)) {
      re.lastIndex = at + 1; // no match here: the regex would go on at the next character
      continue;
    }
    const whole = text.slice(at, end + rest.length);
    out += text.slice(last, at) + fn(whole, m[1], m[2]);
    last = end + rest.length;
    re.lastIndex = last;
  }
  return last === 0 ? text : out + text.slice(last);
}

function sameChar(code: number, c: string): boolean {
  // `&#x110000;` and above name no character: not an escape of the nonce's head (fromCodePoint would throw)
  if (!(code <= 0x10ffff)) return false;
  return String.fromCodePoint(code).toLowerCase() === c.toLowerCase();
}

/**
 * Neutralize untrusted text (see module docstring for the exact escapes).
 * @param text any string (may be empty).
 * @param nonce optional nonce of the prompt the text goes into; its occurrences are escaped too.
 * @param seen optional counter: `seen.nonce` grows by one per literal (any case) occurrence of the nonce in `text`
 *   (`renderForJudge` draws another nonce when the content holds the one it drew).
 * @throws Error when `nonce` is given but is not 6-64 ASCII letters/digits.
 * @returns the escaped text; the identity on text with no tag-like sequence and no nonce.
 */
export function neutralize(text: string, nonce?: string, seen?: { nonce: number }): string {
  // TAG_RE can only match at `<` or `&`: most texts have neither, and two indexOf scans are far cheaper.
  let out =
    text.indexOf("<") === -1 && text.indexOf("&") === -1
      ? text
      : text.replace(TAG_RE, (m) => (m === "<" ? "&lt;" : `&amp;${m.slice(1)}`));
  if (nonce) {
    out = replaceNonce(out, nonce, (m, _amps, hex) => {
      if (hex === undefined) {
        if (seen) seen.nonce++;
        return `&#x${m.charCodeAt(0).toString(16)};${m.slice(1)}`;
      }
      if (!sameChar(parseInt(hex, 16), nonce[0])) return m;
      return `&amp;${m.slice(1)}`;
    });
  }
  return out;
}

/**
 * Undo {@link neutralize} exactly: `unneutralize(neutralize(s, n), n) === s`. Used on judge quotes so that a
 * quote of the escaped text the judge saw matches the unescaped part text.
 * @param text escaped text (or a fragment of it, e.g. a quote).
 * @param nonce the nonce given to `neutralize`, if any.
 */
export function unneutralize(text: string, nonce?: string): string {
  let out = text;
  if (nonce) {
    out = replaceNonce(out, nonce, (m, amps, hex) => {
      if (hex === undefined || !sameChar(parseInt(hex, 16), nonce[0])) return m;
      if (amps) return `&${m.slice(5)}`;
      return String.fromCodePoint(parseInt(hex, 16)) + m.slice(m.indexOf(";") + 1);
    });
  }
  return out.replace(UNTAG_RE, (m) => (/^&lt;$/i.test(m) ? "<" : `&${m.slice(5)}`));
}
