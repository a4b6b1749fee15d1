/**
 * The place a verified quote is stored with, corrected when the judge cited a tool call that does not exist (red team
 * 31 L3a: `tool_call_index: 7` on a message with no tool calls verified through the message text and was stored
 * unchanged, a locator pointing nowhere). The verifier looks in the cited call first, then in the message's other
 * parts; this names the part it was found in.
 */
import type { PartKind, VerifiedQuote } from "../types.js";
import type { EvidenceContext } from "../evidence/context.js";
import { findQuoteSpan } from "../evidence/verify.js";

/**
 * For a verified quote citing a `tool_call_index` that its message (the corrected one, when corrected) does not have:
 * the tool call the quote is in (its index stored), else none (the message text: the index is dropped), with
 * `locator_note` saying so. Quotes citing a call that exists, or none, are returned as they are. In place; never throws.
 * @param allowed the part kinds the quote's bucket takes.
 */
export function fixToolCallLocator(v: VerifiedQuote, ctx: EvidenceContext, allowed: readonly PartKind[]): VerifiedQuote {
  if (!v.verified || v.tool_call_index === undefined || v.tool_index !== undefined || v.corrected_tool_index !== undefined) return v;
  const m = v.corrected_index ?? v.message_index;
  const cited = v.tool_call_index;
  const parts = ctx.parts.map((p, i) => ({ p, i })).filter(({ p }) => p.kind !== "tool_description" && p.message_index === m);
  if (parts.some(({ p }) => p.tool_call_index === cited)) return v;
  const calls = parts.filter(({ p }) => p.tool_call_index !== undefined).length;
  let found: number | undefined;
  try {
    found = parts.find(({ p, i }) => allowed.includes(p.kind) && p.tool_call_index !== undefined && findQuoteSpan(v.quote, i, ctx) !== null)?.p.tool_call_index;
  } catch {
    found = undefined;
  }
  const what = `tool_call_index ${cited} does not exist in message ${m} (it has ${calls === 0 ? "no tool calls" : `${calls} tool call(s)`})`;
  if (found !== undefined) {
    v.tool_call_index = found;
    v.locator_note = `${what}: the quote is in its tool call ${found}, stored so`;
  } else {
    delete v.tool_call_index;
    v.locator_note = `${what}: the quote is in its text, stored without a tool_call_index`;
  }
  return v;
}
