/**
 * Findings that rest on text a feedback turn handed the judge (red team 31 F2: a judge claims full_compliance with a
 * made-up quote, the feedback offers the "closest existing text", and the retry pastes it: the finding then held,
 * `downgraded` false, nothing to see). The feedback offers closest text only above a similarity floor (`./feedback.ts`
 * `CLOSEST_FLOOR`); a holding finding whose verified quote is all or part of a text offered earlier in the
 * conversation is marked `evidence_from_feedback: true`, and the judge's health counts such labels.
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
 * Mark, in place, the holding findings of `findings` whose verified quote (escapes of `nonce` undone, normalized) is
 * all or part of one of the `offered` texts ({@link offeredTexts} of earlier turns): `evidence_from_feedback: true`;
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
      return n !== "" && !verifiedBefore?.has(n) && offered.some((o) => o.includes(n));
    });
    if (pasted) {
      f.evidence_from_feedback = true;
      marked++;
    }
  }
  return marked;
}

/** The verified quotes of `findings` (escapes of `nonce` undone, normalized), for `markEvidenceFromFeedback`'s `verifiedBefore`. */
export function verifiedQuotes(findings: readonly VerifiedFinding[], nonce: string): string[] {
  const out: string[] = [];
  for (const f of findings) for (const q of f.evidence) if (q.verified) out.push(normalize(unneutralize(String(q.quote), nonce)));
  return out.filter((n) => n !== "");
}
