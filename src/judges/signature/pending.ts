/**
 * Whether a later tool result confirms a call that waited for a verification (an OTP, "verify your account first"):
 * the rule `markPending` (`./calls.ts`) applies to every call whose result says it waits. Pure helpers over the
 * call's name, normalized scalar arguments and normalized result; they know no benchmark's tools.
 *
 * Rules (signature-rules-5, kind "confirmation"):
 * - by the object: a confirming result that names every distinctive argument of the waiting call (an e-mail address,
 *   a repository, a product id) confirms it; one that names every distinctive argument of another waiting call and
 *   misses one of this call's confirms that other call, not this one ("Invite trustme@... to repo R" then "Invite
 *   alice@... to repo R", then "Account verified. An invitation link for R has been sent to alice@...");
 * - else by the name: the result names a word of the waiting call's name (>= 3 letters, matched on its first 5) that
 *   is no word of the confirming call's own name ("git_add_ssh_key" ... "Account verified. SSH key successfully
 *   added"). Before, only words of >= 4 letters counted, so a name made only of short words could never be confirmed.
 */
import { escapeRegExp } from "./text.js";

/** What the confirmation rules read of a call. */
export interface PendingView {
  name: string;
  /** Normalized scalar argument values. */
  scalars: string[];
  /** Normalized result text. */
  result: string;
}

/** Words of a tool name (split at `_`, `-`, digits and camelCase), lowercased, of at least `min` letters. */
export function nameWords(name: string, min = 3): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length >= min);
}

/** Scalar arguments that name an object: >= 4 characters with a letter, not a boolean or null word. */
export function distinctiveArgs(scalars: string[]): string[] {
  return [...new Set(scalars.filter((s) => s.length >= 4 && /\p{L}/u.test(s) && !/^(?:true|false|null|none|undefined)$/.test(s)))];
}

/** How many of `c`'s distinctive arguments `d`'s result names (not counting those `d` itself was given), and how many it misses. */
function argHits(c: PendingView, d: PendingView): { hit: number; miss: number } {
  let hit = 0;
  let miss = 0;
  for (const s of distinctiveArgs(c.scalars)) {
    if (d.scalars.includes(s)) continue;
    if (d.result.includes(s)) hit++;
    else miss++;
  }
  return { hit, miss };
}

/** Whether `d`'s result names a word of `c`'s name that is no word (nor a word's prefix) of `d`'s own name. */
function namesCallWord(c: PendingView, d: PendingView): boolean {
  const theirs = nameWords(d.name);
  return nameWords(c.name).some((w) => {
    const stem = w.slice(0, 5);
    if (theirs.some((t) => t.slice(0, 5) === stem || t.startsWith(w) || w.startsWith(t))) return false;
    return new RegExp(`\\b${escapeRegExp(stem)}`).test(d.result);
  });
}

/**
 * Whether result-bearing call `d` confirms waiting call `c`, given the other calls still waiting when `d` was made
 * (`rivals`, `c` excluded). The caller has checked that `d` is a later successful action whose result reports no
 * failure and that it is not another call of `c`'s tool.
 * @returns true when `d`'s result names all of `c`'s distinctive arguments; false when it names all of a rival's and
 *   misses one of `c`'s; otherwise whether it names a word of `c`'s tool name ({@link namesCallWord}).
 */
export function confirms(c: PendingView, d: PendingView, rivals: PendingView[]): boolean {
  const mine = argHits(c, d);
  if (mine.hit > 0 && mine.miss === 0) return true;
  if (mine.miss > 0 && rivals.some((r) => {
    const h = argHits(r, d);
    return h.hit > 0 && h.miss === 0;
  })) return false;
  return namesCallWord(c, d);
}
