/**
 * A stored LLM verdict verified again under today's rules (`../rubric/verify-rules.ts`), with no judge call: what the judge
 * said is on the verdict line (its claimed label, its findings with their quotes and cited places, the nonce of the
 * prompt it saw), and the trajectory is the one it judged (the caller checks the content hash). The label is
 * decided again by `decide` (`./decide.ts`) as if the judge's last reply had come now:
 * - the reply: the claimed label and the findings of the last reply (those without `from_reply`, less the unsupported
 *   claim code added), each quote with the place the judge cited (a `tool_call_index` the locator corrected is stored
 *   corrected: `./locator.ts`; it names the call the quote is in, or none, so the quote is searched where it was found);
 * - the findings an earlier reply verified and the last one kept (`from_reply`, `./carry.ts`): their quotes are checked
 *   again, and those that still hold are carried as the conversation carried them;
 * - the evidence context: the trajectory rendered again with the verdict's nonce (`renderForJudge`, deterministic for
 *   a given nonce); the minimum quote length the judge had.
 * The record is the stored one with the decision's fields replaced (status, label, claim, findings, basis, exposure
 * marks, blocked attempt, the rationale's code note), `verify_rules` set to today's, and `reverified` keeping the
 * rules, label and status before. Usage, cost, raw replies, attempts and `created_at` are the original's.
 *
 * Not possible (the reason is returned, the verdict left as stored): a verdict without a decided reply; one whose
 * judge saw an elided trajectory (`truncated`: which text it saw depends on its budget and any context-window
 * elision, not stored); one without a nonce (stored before the nonce was); one whose record cut a quote or dropped
 * findings or quotes to bound its size (`./record.ts` `VERDICT_CAPS`). A feedback turn today's rules would send is not
 * sent: the label is what the stored reply supports under today's rules.
 */
import { EVIDENCE_KINDS } from "../rubric/buckets.js";
import type { Bucket, EvidenceQuote, Finding, JudgeReply, Trajectory, Verdict, VerifiedFinding, VerifiedQuote } from "../types.js";
import { evidenceContext } from "../evidence/context.js";
import { verifyQuote } from "../evidence/verify.js";
import { renderForJudge } from "../serialize/render.js";
import { decide, UNSUPPORTED_CLAIM } from "./decide.js";
import { buildVerdict } from "./record.js";
import { VERIFY_RULES_VERSION } from "../rubric/verify-rules.js";
import { LABEL_NOTE_PREFIX } from "./label-note.js";
import { firstReplyAgain } from "./first-reply-again.js";

/** What re-verifying one stored verdict came to: the new record, or why it cannot be re-verified. */
export type Reverified = { verdict: Verdict } | { impossible: string };

/** The fields of a verdict that its decision gives (replaced on re-verification; absent in the new record: removed). */
const DECIDED_FIELDS = [
  "status",
  "label",
  "label_claimed",
  "compromised",
  "downgraded",
  "findings",
  "error",
  "label_basis",
  "injection_absent",
  "injection_unchecked",
  "compliance_evidence",
  "compliance_unrelated",
  "compliance_in_user_task",
  "injected_value_in_call",
  "relabel",
  "blocked_attempt",
  "blocked_call",
  "attacked",
  "surface",
  "injection_source",
  "tool_arguments_invalid",
] as const;

/** How a text cut to bound a verdict's size ends (`capText`). */
const CUT = /\[\.\.\. \d+ more characters cut\]$/;
/** The note a record adds when it dropped findings or quotes (`capFindings`). */
const DROPPED = "dropped to bound its size]";

/** Why the stored verdict cannot be re-verified (module docstring), or undefined. */
function impossible(old: Verdict): string | undefined {
  if (old.status !== "ok" && old.status !== "unverified") return "no decided reply";
  if (old.truncated) return "the judge saw an elided trajectory (which text is not stored)";
  if (typeof old.nonce !== "string" || old.nonce === "") return "no nonce stored (an older build)";
  if (!Array.isArray(old.findings)) return "no findings stored";
  if (typeof old.rationale === "string" && old.rationale.includes(DROPPED)) return "findings or quotes were dropped to bound the record";
  for (const f of old.findings) {
    if (!f || !Array.isArray(f.evidence)) return "a finding without its evidence list";
    if (f.evidence.some((q) => typeof q?.quote === "string" && CUT.test(q.quote))) return "a quote was cut to bound the record";
  }
  return undefined;
}

/** How `buildVerdict` appends the last attempt's error to an unverified verdict's reason (`./record.ts`). */
const LAST_ATTEMPT = / \(last attempt: ([^\s:]+): ([\s\S]*)\)$/;

/** The last attempt's error an unverified verdict's error message carries, or undefined. */
function lastAttemptOf(e: Verdict["error"]): { kind: string; message: string } | undefined {
  const m = typeof e?.message === "string" ? LAST_ATTEMPT.exec(e.message) : null;
  return m ? { kind: m[1], message: m[2] } : undefined;
}

/** A stored quote as the judge's reply gave it (the place it cited; verification results left out). */
function asGiven(q: VerifiedQuote): EvidenceQuote {
  const out: EvidenceQuote = { message_index: q.message_index, quote: q.quote };
  if (q.tool_call_index !== undefined && q.tool_call_index !== null) out.tool_call_index = q.tool_call_index;
  if (q.tool_index !== undefined && q.tool_index !== null) out.tool_index = q.tool_index;
  return out;
}

/**
 * Re-verify one stored verdict (module docstring).
 * @param old the stored verdict (status `ok` or `unverified`).
 * @param t the trajectory it judged, prepared as `label` gives it to the judge (the caller checks its content hash).
 * @param o.minQuoteChars the minimum quote length the judge had; `now` the time recorded in `reverified.at`;
 *   `parseReply` the judge's reply parser (its output mode), for the first decided reply's check (`./first-reply-again.ts`).
 * @returns the new record, or why it cannot be re-verified. Never throws.
 */
export function reverifyVerdict(old: Verdict, t: Trajectory, o: { minQuoteChars: number; now?: Date; parseReply?: (raw: string) => JudgeReply | null }): Reverified {
  const why = impossible(old);
  if (why) return { impossible: why };
  try {
    const rendered = renderForJudge(t, { nonce: old.nonce, budgetChars: Number.MAX_SAFE_INTEGER });
    if (rendered.truncated) return { impossible: "the trajectory no longer renders whole" };
    const ctx = evidenceContext(t, { minQuoteChars: o.minQuoteChars, parts: rendered.parts, nonce: old.nonce });
    const own: Finding[] = [];
    const carried: VerifiedFinding[] = [];
    for (const f of old.findings) {
      if (f.from_reply !== undefined) {
        // verified by an earlier reply: checked again, carried only when it still holds (./carry.ts)
        const evidence = f.evidence.map((q) => verifyQuote(asGiven(q), EVIDENCE_KINDS[f.bucket] ?? [], ctx, { closest: false }));
        carried.push({ ...f, evidence, holds: f.bucket !== "not_exposed" && evidence.some((q) => q.verified) });
      } else if (!(f.explanation === UNSUPPORTED_CLAIM && f.evidence.length === 0)) {
        own.push({ bucket: f.bucket, evidence: f.evidence.map(asGiven), explanation: f.explanation ?? "" });
      }
    }
    const reply: JudgeReply = { label: old.label_claimed as Bucket, findings: own, rationale: "" };
    const decision = decide(reply, ctx, carried);
    // a finding resting on text a feedback turn offered stays marked (the turns are not replayed)
    for (const f of decision.findings)
      if (f.holds && old.findings.some((g) => g.bucket === f.bucket && g.evidence_from_feedback)) f.evidence_from_feedback = true;
    const built = buildVerdict({
      trajectory: t,
      judge: { id: old.judge_id, model: old.judge_model, family: old.judge_family, rubricVersion: old.rubric_version, promptSha256: old.prompt_sha256 },
      repeat: old.repeat,
      status: "ok",
      decision,
      attempts: old.attempts,
      // an unverified verdict's error is the old decision's reason, with the last attempt's after it when there was
      // one (kept: before, a verdict labelled now lost it); an ok one's is the last attempt's (kept)
      error: old.status === "ok" ? old.error : lastAttemptOf(old.error),
      nonce: old.nonce,
    });
    const out = { ...old } as unknown as Record<string, unknown>;
    for (const k of DECIDED_FIELDS) {
      const v = (built as unknown as Record<string, unknown>)[k];
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    const moved = built.status !== old.status || built.label !== old.label;
    out.rationale = rationaleAfter(built.rationale, old, moved);
    // the first decided reply's check is today's too, or not known (./first-reply-again.ts): never the older rules'
    const first = firstReplyAgain(old, decision.findings, ctx, o.parseReply);
    // (kept as stored when it records none: an earlier re-verification's first_reply_unknown stays with its reason)
    if ("first_reply" in first) {
      out.first_reply = first.first_reply;
      delete out.first_reply_unknown;
    } else if ("unknown" in first) {
      delete out.first_reply;
      out.first_reply_unknown = first.unknown;
    }
    out.verify_rules = VERIFY_RULES_VERSION;
    out.reverified = { from_rules: typeof old.verify_rules === "number" ? old.verify_rules : null, label_before: old.label, status_before: old.status, at: (o.now ?? new Date()).toISOString() };
    return { verdict: out as unknown as Verdict };
  } catch (e) {
    return { impossible: `re-verification failed: ${(e as Error).message}` };
  }
}

/**
 * The rationale after re-verification, so that it never starts with a note today's decision would not write:
 * - the label moved: code's note for the new label (when it is not the claim), a sentence naming the label before,
 *   then the stored rationale (the judge's text, after the note the older rules wrote);
 * - the label stands and today's decision writes no note, or the stored rationale already starts with it: as stored;
 * - the label stands but today's note is not how the stored rationale starts (the reason changed, e.g. a downgrade
 *   now a refused call, or the older build wrote no note; verify41): today's note, a sentence saying the label is
 *   unchanged and the older rules' text follows, then the stored rationale.
 * @param builtRationale what `buildVerdict` wrote with no judge text: code's note, or "".
 */
function rationaleAfter(builtRationale: string, old: Verdict, moved: boolean): string {
  const note = builtRationale.startsWith(LABEL_NOTE_PREFIX) ? builtRationale : "";
  const stored = typeof old.rationale === "string" ? old.rationale : "";
  const rules = `${LABEL_NOTE_PREFIX} Re-verified under verification rules ${VERIFY_RULES_VERSION} with no judge call:`;
  if (moved) return [note, `${rules} the label was ${old.label ?? `none (${old.status})`} under the older rules; the stored rationale follows.`, stored].filter((s) => s !== "").join(" ");
  if (note === "" || stored.startsWith(note)) return stored;
  return [note, `${rules} the label is unchanged, its reason is the note before; the stored rationale (with the older rules' note, if any) follows.`, stored].filter((s) => s !== "").join(" ");
}
