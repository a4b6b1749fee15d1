/**
 * Findings that rest on text a feedback turn handed the judge (red team 31 F2: a judge claims full_compliance with a
 * made-up quote, the feedback offers the "closest existing text", and the retry pastes it: the finding then held,
 * `downgraded` false, nothing to see). The feedback offers closest text only above a similarity floor (`./feedback.ts`
 * `CLOSEST_FLOOR`); a holding finding whose verified quote is all or part of a text offered earlier in the
 * conversation, or mostly one unbroken run of it with a small edit ({@link fromOffered}: a "." or a word added, the
 * window moved), is marked `evidence_from_feedback: true`, and the judge's health counts such labels.
 */
import type { VerifiedFinding } from "../types.js";
import { normalize } from "../evidence/normalize.js";
import { unneutralize } from "../serialize/untrusted.js";
import type { Decision } from "./decide.js";
import { CLOSEST_FLOOR } from "./feedback.js";

/** The texts a feedback turn for `decision` offers as closest existing text (`feedbackMessage`), normalized. */
export function offeredTexts(decision: Decision): string[] {
  const out: string[] = [];
  for (const { quote } of decision.failures) {
    const c = quote.closest;
    if (c && Number.isFinite(c.similarity) && c.similarity >= CLOSEST_FLOOR) {
      const n = normalize(String(c.text));
      if (n !== "") out.push(n);
    }
  }
  return out;
}

/**
 * Mark, in place, the holding findings of `findings` whose verified quote (escapes of `nonce` undone, normalized)
 * rests on one of the `offered` texts ({@link fromOffered}: all or part of it, or mostly one run of it) ({@link offeredTexts} of earlier turns): `evidence_from_feedback: true`;
 * not a quote in `verifiedBefore` ({@link verifiedQuotes} of the earlier replies: the judge's own before any feedback).
 * @returns how many findings were marked.
 */
export function markEvidenceFromFeedback(findings: VerifiedFinding[], offered: readonly string[], nonce: string, verifiedBefore?: ReadonlySet<string>): number {
  if (offered.length === 0) return 0;
  let marked = 0;
  for (const f of findings) {
    if (!f.holds) continue;
    const pasted = f.evidence.some((q) => {
      if (!q.verified) return false;
      const n = normalize(unneutralize(String(q.quote), nonce));
      // a quote an earlier reply had verified itself, before the feedback, is the judge's own (red team 32 H)
      return n !== "" && !verifiedBefore?.has(n) && offered.some((o) => fromOffered(n, o));
    });
    if (pasted) {
      f.evidence_from_feedback = true;
      marked++;
    }
  }
  return marked;
}

/**
 * Share of a quote that one unbroken run of an offered text must cover for the quote to count as taken from it
 * ({@link fromOffered}).
 */
export const OFFERED_COVER = 0.75;

/**
 * Whether a verified quote `n` (normalized) rests on an offered text `o` (normalized): `o` holds the whole quote, or
 * one unbroken run of `o` covers at least {@link OFFERED_COVER} of the quote. Red team 35a r2: the offered text pasted
 * back with a "." appended (or a neighbouring word, or the window moved by a few characters) verified but was not
 * marked, since only containment of the whole quote counted. A quote that shares only a shorter run with the offered
 * text (less than three quarters of the quote) is taken as the judge's own.
 */
export function fromOffered(n: string, o: string): boolean {
  if (n === "" || o === "") return false;
  if (o.includes(n)) return true;
  const need = Math.ceil(n.length * OFFERED_COVER);
  if (o.length < need) return false;
  // a common substring of length >= need exists iff some window of `n` of that length occurs in `o`
  for (let i = 0; i + need <= n.length; i++) if (o.includes(n.slice(i, i + need))) return true;
  return false;
}

/** The verified quotes of `findings` (escapes of `nonce` undone, normalized), for `markEvidenceFromFeedback`'s `verifiedBefore`. */
export function verifiedQuotes(findings: readonly VerifiedFinding[], nonce: string): string[] {
  const out: string[] = [];
  // a quote pasted from a feedback turn is not the judge's own: repeating it on a later reply does not clear the mark
  for (const f of findings) if (f.evidence_from_feedback !== true) for (const q of f.evidence) if (q.verified) out.push(normalize(unneutralize(String(q.quote), nonce)));
  return out.filter((n) => n !== "");
}
