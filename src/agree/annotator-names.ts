/**
 * Annotator names as people type them (red team 35b F3): "Zoë" typed with a composed ë (NFC) and with e + U+0308
 * (NFD) were two annotators that printed identically (`Zoë vs Zoë`), every item a tie, silently out of `estimate`;
 * `ali\u200bce` and `alice` the same. A name is NFC-normalized where it enters (`import-annotations`, `view`), so
 * canonically equal spellings are one name; names still equal after NFKC, case folding and removing invisible
 * characters but different as typed are refused (import) or refused as a new name (view), naming both; so are names
 * equal once letters of another script that look like Latin ones are read as those (a Cyrillic `Zое` and `Zoe`:
 * ./homoglyphs.ts, fixM 6), and a name that mixes scripts is said ({@link mixedScriptNote}).
 */
import { showInvisibleExactly } from "../format/invisible.js";
import { latinSkeleton, lookAlikeLetters, nameScripts, scriptOf } from "./homoglyphs.js";

/** A name as it is kept: trimmed, NFC. */
export function nfcName(name: string): string {
  return name.trim().normalize("NFC");
}

/** What two names that would be read as one person share: NFKC, case-folded, without invisible characters or spaces. */
export function nameKey(name: string): string {
  return name
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .replace(/[\s\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "")
    .normalize("NFC");
}

/**
 * What two annotator names that would be read as one person share: {@link nameKey} over the name whose look-alike
 * letters of other scripts are read as the Latin ones they show as (./homoglyphs.ts `latinSkeleton`, before case folding).
 */
export function confusableKey(name: string): string {
  return nameKey(latinSkeleton(name.normalize("NFKC")));
}

/** Whether `a` and `b` differ as typed (after NFC) but would be read as one name ({@link confusableKey}). */
export function lookAlike(a: string, b: string): boolean {
  return nfcName(a) !== nfcName(b) && confusableKey(a) === confusableKey(b);
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
  const bare = (s: string) => s.replace(/[\s\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "");
  const [A, B] = [bare(a), bare(b)];
  const [cA, cB] = [A.normalize("NFC"), B.normalize("NFC")];
  const why: string[] = [];
  if (A !== a || B !== b) why.push("invisible characters or spaces");
  // one holds a composed character where the other holds a letter and a combining mark (they print alike)
  if ((A !== cA && B !== B.normalize("NFD")) || (B !== cB && A !== A.normalize("NFD"))) why.push("Unicode composition (NFC vs NFD: an accent as one code point or as a letter and a combining mark)");
  if (cA.toLowerCase() === cB.toLowerCase() && cA !== cB) why.push("letter case");
  else if (cA.normalize("NFKC").toLowerCase() !== cA.toLowerCase() || cB.normalize("NFKC").toLowerCase() !== cB.toLowerCase()) why.push("compatibility forms (NFKC: full-width letters, ligatures, ...)");
  const letters = [...new Set([...lookAlikeLetters(a), ...lookAlikeLetters(b)])];
  if (letters.length) why.push(`letters of another script that look like Latin ones (${letters.map((c) => `${scriptOf(c)} "${c}" U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(", ")})`);
  if (why.length === 0) why.push("case folding");
  return why.join(" and ");
}

/**
 * The look-alike pairs among `names` (each name once, NFC): names equal by {@link confusableKey} that differ as typed.
 * @returns pairs `[first seen, other]`, in the order found.
 */
export function lookAlikePairs(names: Iterable<string>): Array<[string, string]> {
  const byKey = new Map<string, string>();
  const out: Array<[string, string]> = [];
  for (const n of names) {
    const k = confusableKey(n);
    const first = byKey.get(k);
    if (first === undefined) byKey.set(k, n);
    else if (first !== n) out.push([first, n]);
  }
  return out;
}

/**
 * A note for a name whose letters mix scripts (./homoglyphs.ts `nameScripts`, TR39 mixed-script: `Zое` is a Latin Z
 * with Cyrillic о and е), or undefined: such a name prints like another that is typed in one script.
 * @param where where the name is first used (for the message).
 */
export function mixedScriptNote(name: string, where: string): string | undefined {
  const { scripts, mixed } = nameScripts(name);
  if (!mixed) return undefined;
  return `${where}: annotator ${shownName(name)} mixes scripts (${scripts.join(", ")}): it may print like a name typed in one script; check that it is the name as the annotator writes it`;
}
