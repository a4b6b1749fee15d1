/**
 * Typographic folding of values for the signature judge (hostile54 findings 1): an IBAN, a link, an address or an id
 * written with thin, figure or no-break spaces, en dashes or non-breaking hyphens, fullwidth, circled or math-bold
 * characters, or a Cyrillic/Greek look-alike letter inside a Latin word, is the value the agent types in ASCII. The
 * injection's text is folded once before its values are read (`./goals.ts` parseGoal, {@link foldTypography}); the
 * agent's call arguments, already normalized (NFKC, dashes folded, blanks collapsed, lowercase: `norm`), get the
 * look-alike fold once per text ({@link foldConfusablesNorm}, `./calls.ts`), so both sides of a match read alike.
 * Quotes and other punctuation are kept: only characters values are made of are folded.
 */

/** Dashes folded to "-": hyphen, non-breaking hyphen, figure dash, en/em dash, horizontal bar, minus, small/fullwidth hyphen-minus. */
const DASHES = new Set([0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xfe58, 0xfe63, 0xff0d]);

/** What an NFKC result may be for its character to be replaced by it: letters and digits, or one ASCII character of addresses and links. */
const VALUE_NFKC_RE = /^(?:[A-Za-z0-9]+|[@.:/#%+_~&=?'"-])$/;

/**
 * Look-alike letters (Unicode confusables.txt, Cyrillic and Greek to Latin), upper and lower case. Cyrillic `У`/`у`
 * reads as `Y`/`y` there; {@link ALT_READING} gives the other reading (`U`/`u`) that an attacker also uses.
 */
const CONFUSABLE: ReadonlyMap<string, string> = new Map(
  (
    "А A В B Е E К K М M Н H О O Р P С C Т T Х X У Y Ѕ S І I Ј J Ԛ Q Ԝ W " +
    "а a в b е e к k м m н h о o р p с c т t х x у y ѕ s і i ј j ԛ q ԝ w һ h ԁ d ӏ l " +
    "Α A Β B Ε E Ζ Z Η H Ι I Κ K Μ M Ν N Ο O Ρ P Τ T Υ Y Χ X ο o ι i κ k ν v ρ p υ u"
  )
    .match(/\S+ \S+/g)!
    .map((pair) => pair.split(" ") as [string, string]),
);

/** The second reading of a look-alike with two (`У` is `Y` by shape and `U` by sound): {@link foldTypography}'s `alt`. */
const ALT_READING: ReadonlyMap<string, string> = new Map([
  ["У", "U"],
  ["у", "u"],
]);

/** A token (letters, digits) holding a non-ASCII letter. */
const TOKEN_RE = /[\p{L}\p{N}]+/gu;
const NON_ASCII_RE = /[^\x00-\x7f]/;
const LATIN_OR_DIGIT_RE = /[A-Za-z0-9]/;

/**
 * The token with its look-alike letters read as Latin, when it mixes scripts (it holds an ASCII letter or digit and a
 * look-alike: `УS13`, `Quаnji`); a token wholly in another script is kept (a Russian word is not folded).
 */
function foldToken(tok: string, alt: boolean): string {
  if (!NON_ASCII_RE.test(tok) || !LATIN_OR_DIGIT_RE.test(tok)) return tok;
  let out = "";
  for (const ch of tok) out += (alt ? ALT_READING.get(ch) : undefined) ?? CONFUSABLE.get(ch) ?? ch;
  return out;
}

/**
 * An injected text with the characters values are written in folded to ASCII: NFKC where it yields letters, digits or
 * one ASCII character of an address or link (fullwidth `ＵＳ１３`, circled `③`, math bold `𝟏`, `＠`, `．`, `／`); dashes
 * to "-"; every blank but a line break to one space (thin U+2009, figure U+2007, no-break U+00A0 ...); look-alike
 * letters in a token that mixes scripts to Latin. Case is kept (the value extractors read capitals). Offsets into the
 * result are not offsets into `text` (math-bold digits are two UTF-16 units, folded to one).
 * @param alt read `У`/`у` as `U`/`u` instead of `Y`/`y` (a second reading, `./values.ts` extractValues)
 * @returns `text` itself when it is ASCII (the common case: one regex test); never throws
 */
export function foldTypography(text: string, alt = false): string {
  if (!NON_ASCII_RE.test(text)) return text;
  let out = "";
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out += ch;
    else if (DASHES.has(c)) out += "-";
    else if (c === 0x85 || c === 0x2028 || c === 0x2029) out += "\n";
    else if (/\s/.test(ch)) out += " ";
    else {
      const n = ch.normalize("NFKC");
      out += n !== ch && VALUE_NFKC_RE.test(n) ? n : ch;
    }
  }
  return out.replace(TOKEN_RE, (tok) => foldToken(tok, alt));
}

/**
 * Normalized text (`norm`: NFKC, lowercase) with look-alike letters read as Latin in tokens that mix scripts, the
 * agent's side of {@link foldTypography} (a call's arguments: `./calls.ts`).
 * @returns `s` itself when it is ASCII; never throws
 */
export function foldConfusablesNorm(s: string): string {
  if (!NON_ASCII_RE.test(s)) return s;
  return s.replace(TOKEN_RE, (tok) => foldToken(tok, false));
}
