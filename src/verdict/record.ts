/**
 * The verdict record builder (docs/DESIGN.md section 3, "Verdict"): one per trajectory per judge per
 * repeat, one JSON line in `verdicts.jsonl`.
 */
import { surfaceOfTrajectory } from "../serialize/surface.js";
import { isCompromised } from "../rubric/buckets.js";
import type { InjectionSource, Trajectory, Verdict, VerdictStatus, VerifiedFinding, VerifiedQuote } from "../types.js";
import type { Decision } from "./decide.js";
import { isAttacked } from "./exposure.js";
import { blockedAttempt, type BlockedCall } from "./blocked.js";
import { labelNote, type BlockedNote } from "./label-note.js";
import { VERIFY_RULES_VERSION } from "../rubric/verify-rules.js";

/**
 * Caps that keep one verdict line bounded whatever the judge sent (a 200 reply of 84 MB kept 7 times made
 * `JSON.stringify` throw RangeError). Lengths are UTF-16 characters; a cut text ends with a marker saying how
 * much was left out. Worst case about 2.3 MB of strings per verdict.
 */
export const VERDICT_CAPS = {
  /** Characters kept of each raw reply. */
  rawReplyChars: 64 * 1024,
  /** Raw replies kept (the first half and the last ones, a note in between). */
  rawReplies: 32,
  /** Characters kept of the rationale, of each finding's explanation, and of the error message. */
  textChars: 8 * 1024,
  /** Findings kept (holding findings first, then the rest, each in their order). */
  findings: 50,
  /** Quotes kept per finding. */
  quotesPerFinding: 20,
  /** Characters kept of each quote, closest text and reason. */
  quoteChars: 2 * 1024,
} as const;

/** `s` cut to `max` characters (not inside a surrogate pair) with a note of how many were left out. */
export function capText(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = max;
  const c = s.charCodeAt(cut);
  if (c >= 0xdc00 && c <= 0xdfff) cut--;
  return `${s.slice(0, cut)}[... ${s.length - cut} more characters cut]`;
}

function capQuote(q: VerifiedQuote, scrub: (s: string) => string): VerifiedQuote {
  const out: VerifiedQuote = { ...q, quote: capText(scrub(q.quote), VERDICT_CAPS.quoteChars) };
  if (q.closest) out.closest = { ...q.closest, text: capText(q.closest.text, VERDICT_CAPS.quoteChars) };
  if (typeof q.reason === "string") out.reason = capText(q.reason, VERDICT_CAPS.quoteChars);
  return out;
}

/** Findings within the caps, and a note of what was dropped ("" when nothing was). */
function capFindings(findings: readonly VerifiedFinding[], scrub: (s: string) => string): { findings: VerifiedFinding[]; note: string } {
  let kept: readonly VerifiedFinding[] = findings;
  let droppedFindings = 0;
  if (findings.length > VERDICT_CAPS.findings) {
    // holding findings first (they carry the label), each group in the judge's order
    const chosen = new Set<VerifiedFinding>();
    for (const f of findings) if (f.holds && chosen.size < VERDICT_CAPS.findings) chosen.add(f);
    for (const f of findings) if (!f.holds && chosen.size < VERDICT_CAPS.findings) chosen.add(f);
    kept = findings.filter((f) => chosen.has(f));
    droppedFindings = findings.length - kept.length;
  }
  let droppedQuotes = 0;
  const out = kept.map((f) => {
    // verified quotes first (they carry the finding), each group in the judge's order (red team 26: a holding finding
    // kept 20 unverified quotes and dropped the one that verified)
    const ev = f.evidence.length > VERDICT_CAPS.quotesPerFinding ? [...f.evidence.filter((q) => q.verified), ...f.evidence.filter((q) => !q.verified)].slice(0, VERDICT_CAPS.quotesPerFinding) : f.evidence;
    droppedQuotes += f.evidence.length - ev.length;
    const g: VerifiedFinding = { ...f, evidence: ev.map((q) => capQuote(q, scrub)) };
    if (typeof f.explanation === "string") g.explanation = capText(scrub(f.explanation), VERDICT_CAPS.textChars);
    return g;
  });
  const parts: string[] = [];
  if (droppedFindings) parts.push(`${droppedFindings} of ${findings.length} findings`);
  if (droppedQuotes) parts.push(`${droppedQuotes} quotes (over ${VERDICT_CAPS.quotesPerFinding} per finding)`);
  return { findings: out, note: parts.length ? `[verdict record: ${parts.join(" and ")} dropped to bound its size]` : "" };
}

/** Raw replies within the caps: each cut, and beyond the count the middle ones replaced by one note. */
function capRaw(raw: readonly string[]): string[] {
  const cut = (r: string) => capText(r, VERDICT_CAPS.rawReplyChars);
  if (raw.length <= VERDICT_CAPS.rawReplies) return raw.map(cut);
  const head = Math.floor(VERDICT_CAPS.rawReplies / 2);
  const tail = VERDICT_CAPS.rawReplies - head - 1;
  return [
    ...raw.slice(0, head).map(cut),
    `[... ${raw.length - head - tail} raw replies dropped to bound the verdict's size]`,
    ...raw.slice(raw.length - tail).map(cut),
  ];
}

/** A token count as a finite non-negative integer; anything else (a string, a negative, NaN) is 0. */
function count(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? Math.floor(x) : 0;
}

/** Who judged: the fields of `Judge` a verdict records. */
export interface JudgeIdentity {
  id: string;
  model: string;
  family: string;
  rubricVersion: string;
  promptSha256: string;
}

/** Everything `buildVerdict` needs. */
export interface BuildVerdictArgs {
  trajectory: Trajectory;
  judge: JudgeIdentity;
  repeat: number;
  status: VerdictStatus;
  /** The last attempt's decision; `null` when no reply could be decided (errors, refusals). */
  decision: Decision | null;
  /** Requests made to the judge for this verdict (>= 0). */
  attempts: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  raw_replies?: string[];
  /** The serialized trajectory was shortened to fit the budget. */
  truncated?: boolean;
  /** Times the prompt was elided further after a context-length error (`Verdict.context_elided`); 0 or absent: none. */
  context_elided?: number;
  error?: { kind: string; message: string };
  rationale?: string;
  /**
   * Applied to every text the judge wrote before it is stored (rationale, explanations, quotes, raw replies, the
   * error message): the OpenAI judge removes its API key with it, should a server echo the key into a reply.
   */
  redact?: (text: string) => string;
  /** Clock for `created_at` (tests); default `new Date()`. */
  now?: Date;
  /** The nonce of the prompt the judge saw (recorded so the report undoes its escapes in quotes as the verifier did). */
  nonce?: string;
  /** The first decided reply's quote check (`quoteCheck` of `./first-reply.ts`), when a reply was decided. */
  first_reply?: { quotes: number; quotes_failed: number };
  /** Feedback turns the conversation sent (recorded when given). */
  feedback_turns?: number;
}

/**
 * Assemble a verdict record.
 *
 * - `status` `ok` with a decision that has no label (`decision.label` null: no finding held and code could not
 *   establish exposure, `./decide.ts`) is recorded as `unverified`: label and compromised null, `label_claimed`
 *   and `downgraded` kept, `error` = the decision's reason (`decision.unverified`; a retry error given in `error`
 *   is appended to its message). DESIGN section 1: excluded from ASR, kappa and votes.
 * - `label_basis` = `decision.basis` when there is a decision (where the label came from: a verified finding,
 *   or what code established about exposure); `relabel` = `decision.relabel` on a labelled verdict (an unattacked
 *   run's label set to `not_exposed` by the rule, `../rubric/unattacked.ts`).
 * - `label`, `label_claimed`, `downgraded`, `findings` come from `decision` when `status` is `ok`; for
 *   `judge_error`, `judge_refused` and `unjudgeable`, `label`, `label_claimed` and `compromised` are null and
 *   `downgraded` false (a judge error is never a label); findings of a decision given anyway are kept.
 * - `compromised` = `isCompromised(label)` when the label is set, else null.
 * - `agent_model`, `agent_family`, `suite`, `attack`, `condition` are copied from the trajectory when set, and
 *   `surface` = `surfaceOfTrajectory(t, t.surfaces)` when there is one (the run's `label` sets `t.surfaces`);
 *   `attacked` = `isAttacked(t)` (`./exposure.ts`: injections, or an `attack` name other than `none`).
 * - `blocked_attempt` on every labelled verdict, `blocked_call` when true: `blockedAttempt` (`./blocked.ts`,
 *   DESIGN section 1), decided by code from the evidence's tool call and its result.
 * - `compliance_evidence` = `decision.complianceEvidence` on a labelled verdict (`./compliance-evidence.ts`: a
 *   compliance label resting on injected text echoed by the agent or moved onto a call).
 * - `created_at` = ISO-8601 time (`Date.toISOString`); `verify_rules` = `VERIFY_RULES_VERSION` (`../rubric/verify-rules.ts`).
 * - `first_reply` and `feedback_turns` as given (`./first-reply.ts`: what the feedback turn fixed); absent when not given.
 * - `rationale` = the judge's rationale, after a note written by code when the final label is not the claimed one
 *   (`labelNote` of `./label-note.ts`: the final label, the claim, and why: downgraded, refused call, unattacked rule,
 *   a higher finding, unverified), so a rationale never names a label the verdict does not carry without saying so.
 * - Size: every text the judge controls is cut to {@link VERDICT_CAPS} (raw replies, rationale, explanations,
 *   error message, quotes), and findings and quotes beyond the caps are dropped with a note appended to the
 *   rationale; `label`, `downgraded` etc. come from the whole decision. So a verdict line is always bounded.
 * - `usage` counts are finite non-negative integers (anything else is recorded as 0).
 * @throws Error when `status` is `ok` but `decision` is null (an ok verdict must have a label).
 */
export function buildVerdict(args: BuildVerdictArgs): Verdict {
  const { trajectory: t, judge, decision } = args;
  if (args.status === "ok" && !decision) throw new Error("buildVerdict: status ok needs a decision");
  let status = args.status;
  let error = args.error;
  if (status === "ok" && decision && decision.label === null) {
    status = "unverified";
    const why = decision.unverified ?? { kind: "unverified", message: "no finding of the judge holds and code cannot establish exposure" };
    error = { kind: why.kind, message: error ? `${why.message} (last attempt: ${error.kind}: ${error.message})` : why.message };
  }
  const labelled = decision !== null && (status === "ok" || status === "unverified");
  const label = labelled && status === "ok" ? decision.label : null;
  const scrub = args.redact ?? ((x: string) => x);
  const capped = capFindings(decision ? decision.findings : [], scrub);
  // from the whole decision (not the capped findings): the same answer whatever the caps dropped
  const blocked = label !== null && decision ? blockedAttempt(t, label, decision.findings, decision.basis) : null;
  const v: Verdict = {
    trajectory_id: t.id,
    judge_id: judge.id,
    judge_model: judge.model,
    judge_family: judge.family,
    repeat: args.repeat,
    rubric_version: judge.rubricVersion,
    prompt_sha256: judge.promptSha256,
    status,
    label,
    label_claimed: labelled ? decision.label_claimed : null,
    compromised: label === null ? null : isCompromised(label),
    downgraded: labelled ? decision.downgraded : false,
    findings: capped.findings,
    rationale: withLabelNote(labelled ? labelNote(decision, label, blockedNote(t, blocked, scrub)) : null, capText(scrub(args.rationale ?? ""), VERDICT_CAPS.textChars) + (capped.note ? (args.rationale ? " " : "") + capped.note : "")),
    attempts: args.attempts,
    // finite non-negative integers whatever a provider sent (the Batch API path reads result lines as they are)
    usage: { prompt_tokens: count(args.usage?.prompt_tokens), completion_tokens: count(args.usage?.completion_tokens) },
    truncated: args.truncated ?? false,
    raw_replies: capRaw((args.raw_replies ?? []).map(scrub)),
    created_at: (args.now ?? new Date()).toISOString(),
    // the rules this label was verified under (../rubric/verify-rules.ts): an older one is re-verified by `label`
    verify_rules: VERIFY_RULES_VERSION,
  };
  if (error) v.error = { kind: capText(error.kind, 200), message: capText(scrub(error.message), VERDICT_CAPS.textChars) };
  if (decision) v.label_basis = decision.basis;
  if (decision?.injectionAbsent) v.injection_absent = true;
  if (decision?.injectionUnchecked) v.injection_unchecked = true;
  if (label !== null && decision?.complianceEvidence) v.compliance_evidence = decision.complianceEvidence;
  if (label !== null && decision?.complianceUnrelated) v.compliance_unrelated = true;
  if (label !== null && decision?.complianceInUserTask) v.compliance_in_user_task = true;
  if (label !== null && decision?.injectedValueInCall) v.injected_value_in_call = decision.injectedValueInCall;
  if (label !== null && decision?.relabel) v.relabel = decision.relabel;
  if (args.context_elided) v.context_elided = args.context_elided;
  if (args.nonce) v.nonce = args.nonce;
  if (args.first_reply) v.first_reply = { quotes: args.first_reply.quotes, quotes_failed: args.first_reply.quotes_failed };
  if (args.feedback_turns !== undefined) v.feedback_turns = args.feedback_turns;
  for (const k of ["agent_model", "agent_family", "suite", "attack", "condition"] as const) {
    const val = t[k];
    if (typeof val === "string" && val !== "") v[k] = val;
  }
  const surface = surfaceOfTrajectory(t, t.surfaces ?? {});
  if (surface !== undefined) v.surface = surface;
  v.attacked = isAttacked(t);
  const source = injectionSourceOf(t);
  if (source) v.injection_source = source;
  // a call of the trajectory no tool could have parsed (../ingest/tool-arguments.ts): on every verdict, any judge
  if (Array.isArray(t.tool_arguments_invalid) && t.tool_arguments_invalid.length > 0) v.tool_arguments_invalid = true;
  if (label !== null && decision) {
    v.blocked_attempt = blocked !== null;
    if (blocked) v.blocked_call = blocked;
  }
  return v;
}

/**
 * Where a trajectory's injected text came from (issue 24): its `injection_source` when ingest or the run recovered
 * it (instructing tool descriptions, a sibling run), `{kind: "recorded"}` when the input records a non-empty
 * injected text, else undefined (unattacked, or no text known).
 */
export function injectionSourceOf(t: Trajectory): InjectionSource | undefined {
  if (t.injection_source) return { kind: t.injection_source.kind, ...(t.injection_source.from ? { from: [...t.injection_source.from] } : {}) };
  if (Object.values(t.injections ?? {}).some((x) => typeof x === "string" && x.trim() !== "")) return { kind: "recorded" };
  return undefined;
}

/** The blocked call of a `refused_call` label for its note: its kind and its result's text (error, then text), redacted. */
function blockedNote(t: Trajectory, b: BlockedCall | null, scrub: (s: string) => string): BlockedNote | undefined {
  if (!b) return undefined;
  const m = t.messages[b.result_message_index];
  // the tool's error beside an empty content (AgentDojo) is what the agent got: said first
  const c = [m?.error, m?.text].filter((x): x is string => typeof x === "string" && x.trim() !== "").join(" ");
  return { ...(b.kind ? { kind: b.kind } : {}), ...(c ? { result: scrub(c.slice(0, 400)) } : {}) };
}

/** The rationale with code's label note ({@link labelNote}) before the judge's text, when there is one. */
function withLabelNote(note: string | null, rationale: string): string {
  if (!note) return rationale;
  return rationale === "" ? note : `${note} ${rationale}`;
}
