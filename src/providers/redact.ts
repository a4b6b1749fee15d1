/**
 * Keeping provider text in error messages safe and short: API keys (and pieces of them) removed, long text clipped.
 */

/** Longest provider text kept in an error message (characters); the rest is cut with a note of its length. */
export const MAX_PROVIDER_MESSAGE_CHARS = 500;

/** `s` cut to `max` characters with a note of how many were left out. */
export function clipMessage(s: string, max = MAX_PROVIDER_MESSAGE_CHARS): string {
  if (s.length <= max) return s;
  let cut = max;
  const c = s.charCodeAt(cut);
  if (c >= 0xdc00 && c <= 0xdfff) cut--;
  return `${s.slice(0, cut)}[... ${s.length - cut} more characters]`;
}

/**
 * Remove secrets from a text: every occurrence of a secret (4+ characters), and every run of 8+ key-like
 * characters (`[A-Za-z0-9_.-]`) that is a piece of a secret (providers echo keys partly masked: `sk-proj-****abcd`).
 * @returns the text with each such piece replaced by `[redacted]`.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 4) continue;
    out = out.split(s).join("[redacted]");
    out = redactPieces(out, s);
  }
  return out;
}

/** Whether a UTF-16 code unit is one of `[A-Za-z0-9_.-]`. */
function keyLike(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

/**
 * Every run of 8+ key-like characters of `text` that is a substring of `secret` replaced by `[redacted]`; a
 * linear scan (no regex: a regex replace over a run of ~10M key-like characters overflowed the stack), and a run
 * longer than the secret is never a piece of it, so it is not compared.
 */
function redactPieces(text: string, secret: string): string {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (!keyLike(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && keyLike(text.charCodeAt(j))) j++;
    const len = j - i;
    if (len >= 8 && len <= secret.length && secret.includes(text.slice(i, j))) {
      parts.push(text.slice(last, i), "[redacted]");
      last = j;
    }
    i = j;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join("");
}
