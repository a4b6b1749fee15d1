/**
 * Annotator names as people type them (red team 35b F3): "Zoë" typed with a composed ë (NFC) and with e + U+0308
 * (NFD) were two annotators that printed identically (`Zoë vs Zoë`), every item a tie, silently out of `estimate`;
 * `ali\u200bce` and `alice` the same. A name is NFC-normalized where it enters (`import-annotations`, `view`), so
 * canonically equal spellings are one name; names still equal after NFKC, case folding and removing invisible
 * characters but different as typed are refused (import) or refused as a new name (view), naming both; so are names
 * with equal Unicode TR39 confusable skeletons, before or after case folding (../format/homoglyphs.ts: a Cyrillic `Zое` and
 * `Zoe`, fixM 6; an all-Cyrillic `еѵе` and `eve`, `aǀice` with U+01C0 and `alice`, `ᴋim` and `kim`, and within Latin
 * `Ian` and `lan`, fix 39), and a name that mixes scripts is said ({@link mixedScriptNote}).
 */
import { showInvisibleExactly } from "../format/invisible.js";
import { foldSmallCapitals, lookAlikeLetters, nameScripts, scriptOf, skeleton, smallCapitals } from "../format/homoglyphs.js";

/** A name as it is kept: trimmed, NFC. */
export function nfcName(name: string): string {
  return name.trim().normalize("NFC");
}

/** What two names that would be read as one person share: NFKC, case-folded, without control or invisible characters or spaces (NUL included: red team 39b). */
export function nameKey(name: string): string {
  return name
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .replace(/[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "")
    .normalize("NFC");
}

/**
 * What two annotator names that would be read as one person share, case folded first: the TR39 skeleton
 * (../format/homoglyphs.ts) of the name's {@link nameKey}, folded again (small capitals read as their letter, before and after: TR39
 * gives some letters a small capital as prototype, Cherokee `ᏼ` is `ʙ`) (`Bob`, `bob`;
 * `ΑΝΝΑ` in Greek capitals and `anna`; `еѵе` in Cyrillic and `eve`).
 */
export function confusableKey(name: string): string {
  return nameKey(foldSmallCapitals(skeleton(nameKey(foldSmallCapitals(name.normalize("NFKC"))))));
}

/**
 * The second key two look-alike names may share ({@link confusableKeys}): the TR39 skeleton of the name as typed, then
 * case folded, as a capital can look like another letter's small form (`I` and `l`: `Ian` and `lan`), which folding
 * first would have made `i`.
 */
export function caseSkeletonKey(name: string): string {
  return nameKey(foldSmallCapitals(skeleton(foldSmallCapitals(name.normalize("NFKC")))));
}

/** Both keys of a name: two names sharing either would be read as one ({@link confusableKey}, {@link caseSkeletonKey}). */
export function confusableKeys(name: string): [string, string] {
  return [confusableKey(name), caseSkeletonKey(name)];
}

/** Whether `a` and `b` differ as typed (after NFC) but would be read as one name (either of {@link confusableKeys}). */
export function lookAlike(a: string, b: string): boolean {
  if (nfcName(a) === nfcName(b)) return false;
  const [ka, kb] = [confusableKeys(a), confusableKeys(b)];
  return ka[0] === kb[0] || ka[1] === kb[1];
}

/** A character for a message: its script, itself in quotes and its code point (`Cyrillic "е" U+0435`). */
function charNamed(c: string): string {
  return `${scriptOf(c)} "${showInvisibleExactly(c)}" U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** A name for a message: invisible characters as markers, in quotes. */
export function shownName(name: string): string {
  return JSON.stringify(showInvisibleExactly(name));
}

/**
 * How two look-alike names differ: invisible characters, Unicode composition (NFC vs NFD: names not NFC-normalized
 * where they enter, e.g. rating categories), letter case, compatibility forms (NFKC), or look-alike letters of another script.
 */
export function howTheyDiffer(a: string, b: string): string {
  const bare = (s: string) => s.replace(/[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "");
  const [A, B] = [bare(a), bare(b)];
  const [cA, cB] = [A.normalize("NFC"), B.normalize("NFC")];
  const why: string[] = [];
  if (A !== a || B !== b) why.push("invisible characters or spaces");
  // one holds a composed character where the other holds a letter and a combining mark (they print alike)
  if ((A !== cA && B !== B.normalize("NFD")) || (B !== cB && A !== A.normalize("NFD"))) why.push("Unicode composition (NFC vs NFD: an accent as one code point or as a letter and a combining mark)");
  if (cA.toLowerCase() === cB.toLowerCase() && cA !== cB) why.push("letter case");
  else if (cA.normalize("NFKC").toLowerCase() !== cA.toLowerCase() || cB.normalize("NFKC").toLowerCase() !== cB.toLowerCase()) why.push("compatibility forms (NFKC: full-width letters, ligatures, ...)");
  // the characters TR39 reads as others, of one name and not the other: of another script than Latin, or Latin ones
  const nfd = (s: string) => s.normalize("NFKC").normalize("NFD");
  const [dA, dB] = [nfd(a), nfd(b)];
  // (none when case folding alone makes them one: `ALICE` and `alice` differ in case, not in a look-alike `I`)
  const folded = nameKey(a) === nameKey(b);
  const letters = folded ? [] : [...new Set([...lookAlikeLetters(a).filter((c) => !dB.includes(c)), ...lookAlikeLetters(b).filter((c) => !dA.includes(c))])];
  const foreign = letters.filter((c) => scriptOf(c) !== "Latin" && /\p{L}/u.test(c));
  const latin = letters.filter((c) => !foreign.includes(c));
  // a letter read as a Latin one, or as a letter of a third script (Katakana `カ` reads as Han `力`)
  const readsLatin = (c: string) => [...skeleton(c)].every((x) => !/\p{L}/u.test(x) || scriptOf(x) === "Latin");
  const asLatin = foreign.filter(readsLatin);
  const asOther = foreign.filter((c) => !readsLatin(c));
  if (asLatin.length) why.push(`letters of another script that look like Latin ones (${asLatin.map(charNamed).join(", ")})`);
  if (asOther.length) why.push(`letters that look like letters of another script (${asOther.map((c) => `${charNamed(c)} reads as ${[...skeleton(c)].length === 1 ? charNamed(skeleton(c)) : JSON.stringify(skeleton(c))}`).join(", ")})`);
  if (latin.length) why.push(`characters that look like others (Unicode TR39 confusables: ${latin.map((c) => `${charNamed(c)} reads as "${skeleton(c)}"`).join(", ")})`);
  const small = folded ? [] : [...new Set([...smallCapitals(a), ...smallCapitals(b)])];
  if (small.length) why.push(`small capitals (${small.map(charNamed).join(", ")})`);
  if (why.length === 0) why.push("case folding");
  return why.join(" and ");
}

/**
 * The look-alike pairs among `names` (each name once, NFC): names sharing either of {@link confusableKeys} that
 * differ as typed.
 * @returns pairs `[first seen, other]`, in the order found.
 */
export function lookAlikePairs(names: Iterable<string>): Array<[string, string]> {
  const byKey = [new Map<string, string>(), new Map<string, string>()];
  const out: Array<[string, string]> = [];
  for (const n of names) {
    const keys = confusableKeys(n);
    const first = byKey.map((m, i) => m.get(keys[i])).find((f) => f !== undefined && f !== n);
    if (first !== undefined) out.push([first, n]);
    keys.forEach((k, i) => {
      if (!byKey[i].has(k)) byKey[i].set(k, n);
    });
  }
  return out;
}

/**
 * A note for a name whose letters mix scripts (../format/homoglyphs.ts `nameScripts`, TR39 mixed-script: `Zое` is a Latin Z
 * with Cyrillic о and е), or undefined: such a name prints like another that is typed in one script.
 * @param where where the name is first used (for the message).
 */
export function mixedScriptNote(name: string, where: string): string | undefined {
  const { scripts, mixed } = nameScripts(name);
  if (!mixed) return undefined;
  return `${where}: annotator ${shownName(name)} mixes scripts (${scripts.join(", ")}): it may print like a name typed in one script; check that it is the name as the annotator writes it`;
}
