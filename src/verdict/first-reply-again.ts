/**
 * A re-verified verdict's `first_reply` (`./first-reply.ts`: the first decided reply's quote check, which feeds judge
 * health's first-reply figures) checked again under today's rules, so those figures never mix the rule sets: the
 * re-verified label is today's, and its first reply's check must be too (verify41: it kept the older rules' count).
 *
 * From what the verdict line stores (`./reverify.ts` calls it with the evidence context it decided on):
 * - `feedback_turns` 0: the first decided reply is the last one, whose findings were just decided again: their check;
 * - otherwise the first of `raw_replies` that parses as a reply with a label (the caller's parser, the judge's output
 *   mode: what the conversation decided, `../judges/conversation.ts`), decided again with nothing carried (a first
 *   decided reply has no earlier one) and checked.
 * Either way the count of checked quotes must be the stored one (which quotes are checked does not depend on the
 * verification rules, only whether they verify): a different count means the reply found is not the one the judge
 * gave first (a raw entry that was no decided reply parsed, a server's refused output), and nothing is guessed.
 *
 * Not possible, said with the reason (the verdict then records `first_reply_unknown` and no `first_reply`; health
 * counts it as not known, never as the older rules' figure): a raw reply cut or dropped to bound the record (which one
 * was first is not known), no raw reply that parses, no parser given (feedback turns were sent), or the count differs.
 * A verdict that records no `first_reply` (no decided reply recorded, or stored before the field) is left as it is.
 */
import type { JudgeReply } from "../types.js";
import type { EvidenceContext } from "../evidence/context.js";
import { decide } from "./decide.js";
import { quoteCheck } from "./first-reply.js";

/** How a raw reply cut to bound a verdict's size ends (`capText` of `./record.ts`), or the note of dropped ones. */
const CUT = /\[\.\.\. \d+ more characters cut\]$/;
const DROPPED = /^\[\.\.\. \d+ raw replies dropped to bound the verdict's size\]$/;

/** The first reply's check again, or why it cannot be given (module docstring); `keep`: nothing recorded to redo. */
export type FirstReplyAgain = { first_reply: { quotes: number; quotes_failed: number } } | { unknown: string } | { keep: true };

/** What of the stored verdict the check reads. */
export interface FirstReplyInputs {
  first_reply?: { quotes: number; quotes_failed: number };
  feedback_turns?: number;
  raw_replies?: readonly string[];
}

/**
 * The first decided reply's quote check under today's rules (module docstring).
 * @param old the stored verdict; @param lastFindings the findings today's rules gave its last reply (`decide`'s).
 * @param ctx the evidence context the verdict was decided again on (its nonce, its trajectory).
 * @param parse the judge's reply parser (its output mode): the reply, or null when the text is no decided reply.
 */
export function firstReplyAgain(
  old: FirstReplyInputs,
  lastFindings: Parameters<typeof quoteCheck>[0],
  ctx: EvidenceContext,
  parse: ((raw: string) => JudgeReply | null) | undefined,
): FirstReplyAgain {
  const stored = old.first_reply;
  if (!stored || typeof stored.quotes !== "number") return { keep: true };
  const same = (c: { quotes: number; quotes_failed: number }): FirstReplyAgain =>
    c.quotes === stored.quotes
      ? { first_reply: c }
      : { unknown: `its first reply could not be told among its stored raw replies (the one found has ${c.quotes} checked quote(s), the record ${stored.quotes})` };
  if (old.feedback_turns === 0) return same(quoteCheck(lastFindings));
  if (!parse) return { unknown: "its first reply is not parsed again here (feedback turns were sent)" };
  const raw = Array.isArray(old.raw_replies) ? old.raw_replies : [];
  for (const r of raw) {
    if (typeof r !== "string") continue;
    if (DROPPED.test(r) || CUT.test(r)) return { unknown: "a raw reply was cut or dropped to bound the record (which reply came first is not known)" };
    let reply: JudgeReply | null;
    try {
      reply = parse(r);
    } catch {
      reply = null;
    }
    if (!reply) continue;
    return same(quoteCheck(decide(reply, ctx).findings));
  }
  return { unknown: "none of its stored raw replies parses as a decided reply" };
}
