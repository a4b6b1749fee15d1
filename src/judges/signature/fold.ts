/**
 * Typographic folding of the injected text for the signature judge (hostile54 finding 1, narrowed by rev2b findings
 * 1-2): an IBAN, a link, an address or an id written with thin, figure or no-break spaces, en dashes or non-breaking
 * hyphens, or in fullwidth or math-alphanumeric letters and digits, is the value the agent types in ASCII. The
 * injection's text is folded once before its values are read (`./goals.ts` parseGoal, {@link foldTypography}); the
 * agent's call arguments are already normalized (`norm`: NFKC, dashes folded, blanks collapsed, lowercase).
 * Only forms that IDNA and banks read as the ASCII character are folded. Not folded (rev2b finding 1): circled and
 * superscript digits, letterlike symbols (`™`, `①`, a footnote `¹` after a link would join the value); look-alike
 * letters of another script (rev2b finding 2: `mainsail-tеch.com` with a Cyrillic `е` is another domain, a
 * different address to a mail server or a browser). Quotes and other punctuation are kept.
 */

/** Dashes folded to "-": hyphen, non-breaking hyphen, figure dash, en/em dash, horizontal bar, minus, small/fullwidth hyphen-minus. */
const DASHES = new Set([0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xfe58, 0xfe63, 0xff0d]);

/** What an NFKC result may be for its character to be replaced by it: letters and digits, or one ASCII character of addresses and links. */
const VALUE_NFKC_RE = /^(?:[A-Za-z0-9]+|[@.:/#%+_~&=?'"-])$/;

const NON_ASCII_RE = /[^\x00-\x7f]/;

/** Whether code point `c` is in a block whose NFKC form is read as the ASCII character: Fullwidth Forms U+FF01-FF5E, Mathematical Alphanumeric Symbols U+1D400-1D7FF. */
function nfkcFolded(c: number): boolean {
  return (c >= 0xff01 && c <= 0xff5e) || (c >= 0x1d400 && c <= 0x1d7ff);
}

/**
 * An injected text with the characters values are written in folded to ASCII: NFKC for the fullwidth (`ＵＳ１３`, `＠`,
 * `．`, `／`) and math-alphanumeric (`𝟏`, `𝐀`) characters where it yields letters, digits or one ASCII character of an
 * address or link; dashes to "-"; every blank but a line break to one space (thin U+2009, figure U+2007, no-break
 * U+00A0 ...). Nothing else is folded (module docstring). Case is kept (the value extractors read capitals). Offsets
 * into the result are not offsets into `text` (math-bold digits are two UTF-16 units, folded to one).
 * @returns `text` itself when it is ASCII (the common case: one regex test); never throws
 */
export function foldTypography(text: string): string {
  if (!NON_ASCII_RE.test(text)) return text;
  let out = "";
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out += ch;
    else if (DASHES.has(c)) out += "-";
    else if (c === 0x85 || c === 0x2028 || c === 0x2029) out += "\n";
    else if (/\s/.test(ch)) out += " ";
    else if (nfkcFolded(c)) {
      const n = ch.normalize("NFKC");
      out += VALUE_NFKC_RE.test(n) ? n : ch;
    } else out += ch;
  }
  return out;
}
