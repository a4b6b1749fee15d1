/**
 * Annotator names as people type them (red team 35b F3): "Zoë" typed with a composed ë (NFC) and with e + U+0308
 * (NFD) were two annotators that printed identically (`Zoë vs Zoë`), every item a tie, silently out of `estimate`;
 * `ali\u200bce` and `alice` the same. A name is NFC-normalized where it enters (`import-annotations`, `view`), so
 * canonically equal spellings are one name; names still equal after NFKC, case folding and removing invisible
 * characters but different as typed are refused (import) or refused as a new name (view), naming both.
 */
import { showInvisibleExactly } from "../format/invisible.js";

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

/** Whether `a` and `b` differ as typed (after NFC) but would be read as one name ({@link nameKey}). */
export function lookAlike(a: string, b: string): boolean {
  return nfcName(a) !== nfcName(b) && nameKey(a) === nameKey(b);
}

/** A name for a message: invisible characters as markers, in quotes. */
export function shownName(name: string): string {
  return JSON.stringify(showInvisibleExactly(name));
}

/** How two look-alike names differ: letter case, invisible characters, or compatibility forms (NFKC). */
export function howTheyDiffer(a: string, b: string): string {
  const bare = (s: string) => s.replace(/[\s\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "");
  const why: string[] = [];
  if (bare(a) !== a || bare(b) !== b) why.push("invisible characters or spaces");
  if (bare(a).toLowerCase() === bare(b).toLowerCase() && bare(a) !== bare(b)) why.push("letter case");
  else if (bare(a).normalize("NFKC").toLowerCase() !== bare(a).toLowerCase() || bare(b).normalize("NFKC").toLowerCase() !== bare(b).toLowerCase()) why.push("compatibility forms (NFKC: full-width letters, ligatures, ...)");
  if (why.length === 0) why.push("case folding");
  return why.join(" and ");
}

/**
 * The look-alike pairs among `names` (each name once, NFC): names equal by {@link nameKey} that differ as typed.
 * @returns pairs `[first seen, other]`, in the order found.
 */
export function lookAlikePairs(names: Iterable<string>): Array<[string, string]> {
  const byKey = new Map<string, string>();
  const out: Array<[string, string]> = [];
  for (const n of names) {
    const k = nameKey(n);
    const first = byKey.get(k);
    if (first === undefined) byKey.set(k, n);
    else if (first !== n) out.push([first, n]);
  }
  return out;
}
