/**
 * Letters of other scripts that look like Latin ones (fixM 6: a Cyrillic `Zое` and a Latin `Zoe` were two
 * annotators that print alike). A partial Unicode TR39 skeleton: the Cyrillic, Greek, Armenian and Latin-variant
 * letters whose confusables.txt prototype is one Latin letter, each mapped to it, so that two names built of such
 * letters compare equal ({@link latinSkeleton}); and the TR39 mixed-script test ({@link nameScripts}): a name whose
 * letters come from two scripts or more (Latin with Han, Hiragana and Katakana, with Han and Bopomofo, or with Han
 * and Hangul excepted, TR39 "Highly Restrictive") is likely such a look-alike.
 *
 * Why not a library: the npm package found that carries TR39's confusables.txt (`unhomoglyph`) was last released in
 * 2020, with Unicode 13's data, so not a maintained one; a hand-kept table of the letters that matter for names typed
 * in Latin script, and the mixed-script test, are used instead. Digits and Latin look-alikes within Latin (`rn`/`m`, `l`/`I`/`1`)
 * are deliberately not mapped: two people may well be `Arnie` and `Amie`.
 */

/** Look-alike letter -> the Latin letter it shows as (TR39 confusables.txt prototypes; applied before case folding). */
const TO_LATIN: Readonly<Record<string, string>> = {
  // Cyrillic
  "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
  "\u0455": "s", "\u0456": "i", "\u0458": "j", "\u04bb": "h", "\u0501": "d", "\u051b": "q", "\u051d": "w",
  "\u04cf": "l", "\u04af": "y",
  "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O",
  "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0423": "Y", "\u0405": "S", "\u0406": "I",
  "\u0408": "J", "\u051a": "Q", "\u051c": "W", "\u04c0": "I", "\u04ae": "Y",
  // Greek
  "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
  "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
  "\u03bf": "o", "\u03b1": "a", "\u03bd": "v", "\u03c1": "p", "\u03b9": "i", "\u03c5": "u", "\u03b3": "y",
  "\u03f2": "c", "\u03f3": "j",
  // Armenian
  "\u0585": "o", "\u057d": "u", "\u0570": "h", "\u0578": "n", "\u0566": "q", "\u0581": "g",
  // Latin letters that NFKC keeps apart from the plain ones
  "\u0131": "i", "\u0261": "g", "\u0251": "a", "\u0269": "i",
};

const LOOK_ALIKE = new RegExp(`[${Object.keys(TO_LATIN).join("")}]`, "gu");

/**
 * `text` with every letter of {@link TO_LATIN} replaced by the Latin letter it looks like, in canonical decomposition
 * (NFD, so a Cyrillic `ё` is `e` + diaeresis like a Latin `ë`), recomposed (NFC).
 */
export function latinSkeleton(text: string): string {
  return text.normalize("NFD").replace(LOOK_ALIKE, (c) => TO_LATIN[c]).normalize("NFC");
}

/** The look-alike letters of `text` ({@link TO_LATIN}), each once, in order. */
export function lookAlikeLetters(text: string): string[] {
  return [...new Set(text.normalize("NFD").match(LOOK_ALIKE) ?? [])];
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
