/**
 * Case-sensitive values in a quote (docs/DESIGN.md section 2, hostile54 finding 2a). Normalization case-folds every
 * quote (`./normalize.ts` step 5), which is right for prose but lets a value verify against a different value that
 * differs only by case: the judge quoted `https://bit.ly/3xKq9Za` (the injection's look-alike, in a tool result only)
 * at the agent's call, which holds `https://bit.ly/3XkQ9zA` (the real link: bit.ly slugs are case-sensitive), and the
 * quote verified. So, in the span a quote matched, its case-sensitive values must be written with the same case:
 * - a link's path, query and fragment (what follows the host of `scheme://host/...` or `host.tld/...`); the scheme and
 *   the host are case-free and not compared;
 * - outside links, a token of ASCII letters and digits that mixes both, of at least {@link MIN_TOKEN} characters (a
 *   short-link slug, an id, a code, a password), except a number with a one- or two-letter suffix (`10am`, `2nd`, `5PM`,
 *   `3D`), which is prose.
 * Both sides are read in {@link caseForm} (normalization without the case fold) and their values paired in order;
 * a pair whose lowercase forms are equal and whose texts are not is a difference.
 */
import { DROPPED, FOLD } from "./normalize.js";

/** The fewest characters a letter-and-digit token needs to count as a case-sensitive value. */
export const MIN_TOKEN = 4;

/** A link with a path, query or fragment: group 1 is that rest (the case-sensitive part). */
const URL_RE = /(?:\b[a-z][a-z0-9+.-]*:\/\/)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?([/?#][^\s"'<>`)\]},]*)/gi;
const TOKEN_RE = /[A-Za-z0-9]+/g;
const ORDINAL_RE = /^\d+[A-Za-z]{1,2}$/;

function fold(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (!DROPPED.has(cp)) out += FOLD.get(cp) ?? ch;
  }
  return out;
}

/**
 * A text in the normal form of `./normalize.ts` without step 5 (no case fold): invisible characters dropped, typographic
 * quotes and dashes folded, NFKC, whitespace collapsed and trimmed.
 * @param s any string. @returns its case-kept form.
 */
export function caseForm(s: string): string {
  return fold(fold(s).normalize("NFKC")).replace(/\s+/g, " ").trim();
}

/**
 * The case-sensitive values of a case-kept text (module docstring), in order of appearance.
 * @param s a text in {@link caseForm}. @returns the values as written (a link's rest from its `/`, `?` or `#`; tokens).
 */
export function caseValues(s: string): string[] {
  const out: { at: number; v: string }[] = [];
  const links: [number, number][] = [];
  for (const m of s.matchAll(URL_RE)) {
    const rest = m[1];
    links.push([m.index!, m.index! + m[0].length]);
    if (/[A-Za-z]/.test(rest)) out.push({ at: m.index! + m[0].length - rest.length, v: rest });
  }
  for (const m of s.matchAll(TOKEN_RE)) {
    const t = m[0];
    if (links.some(([a, b]) => m.index! >= a && m.index! < b)) continue;
    if (t.length < MIN_TOKEN || !/[A-Za-z]/.test(t) || !/[0-9]/.test(t) || ORDINAL_RE.test(t)) continue;
    out.push({ at: m.index!, v: t });
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.v);
}

/** A case-sensitive value of a quote that the matched text writes with another case. */
export interface CaseDifference {
  /** The value as the quote writes it. */
  quote: string;
  /** The value as the matched text writes it. */
  part: string;
}

/**
 * The first case-sensitive value of a quote that the text it matched (normalized, case-folded) writes with a different
 * case, or null when none. Values are paired in order by their lowercase form; a quote value with no partner is skipped.
 * @param quoteValues {@link caseValues} of the quote's {@link caseForm}.
 * @param matched the original text of the span the quote matched.
 */
export function caseDifference(quoteValues: readonly string[], matched: string): CaseDifference | null {
  if (quoteValues.length === 0) return null;
  const theirs = caseValues(caseForm(matched));
  let j = 0;
  for (const q of quoteValues) {
    const lq = q.toLowerCase();
    let k = j;
    while (k < theirs.length && theirs[k].toLowerCase() !== lq) k++;
    if (k === theirs.length) continue;
    if (theirs[k] !== q) return { quote: q, part: theirs[k] };
    j = k + 1;
  }
  return null;
}
