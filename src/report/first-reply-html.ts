/**
 * The report's judge-table cell of what the feedback turns fixed (new user 30, M2; `../verdict/first-reply.ts`): of
 * the judge's first replies with evidence (every repeat), how many cited a quote that did not verify, with the quotes
 * that failed before feedback and the verdicts that needed a feedback turn as the tooltip. Verdicts that do not record
 * their first reply are said as not known, never as 0; a judge with no model reply (the offline signature judge:
 * `first_reply` null) as `no model reply`, with the reason as the tooltip.
 */
import type { JudgeHealth } from "../verdict/health.js";
import { firstReplyUnknownWhy } from "../verdict/first-reply.js";
import { escapeAttr, escapeHtml } from "./escape.js";

/** The table's header cell. */
export const FIRST_REPLY_TH = `<th class="num" title="the judge's first reply, before any feedback turn showed it the quotes that failed; every repeat">first replies with a failed quote</th>`;

/**
 * `<td>` of one judge: `49 of 575 (8.5%)`, `not known` (no verdict records it), `none with evidence`, `no model reply`
 * (figures null: nothing to check), or `-` when the
 * judge has no health figures; a part not known is said in the tooltip and with a `+ N not known` suffix.
 * @param health every judge's health (`ReportModel.judge_health`); @param judgeId the row's judge.
 */
export function firstReplyCell(health: readonly JudgeHealth[] | undefined, judgeId: string): string {
  const h = health?.find((x) => x.judge_id === judgeId);
  if (h?.first_reply === null) return `<td class="num" title="${escapeAttr(h.first_reply_reason ?? "")}">no model reply</td>`;
  const f = h?.first_reply;
  if (!f || f.known + f.unknown === 0) return `<td class="num">-</td>`;
  const unknown = f.unknown ? `not known for ${f.unknown} verdict(s), ${firstReplyUnknownWhy(f, false)}` : "";
  if (f.known === 0) return `<td class="num" title="${escapeAttr(unknown)}">not known</td>`;
  const text =
    f.with_evidence === 0 ? "none with evidence" : `${f.with_failed_quote} of ${f.with_evidence} (${((100 * f.with_failed_quote) / f.with_evidence).toFixed(1)}%)`;
  const title = `${f.quotes_failed} of ${f.quotes} quotes failed before feedback; ${f.needed_feedback} of ${f.known} verdicts needed a feedback turn${unknown ? `; ${unknown}` : ""}`;
  return `<td class="num" title="${escapeAttr(title)}">${escapeHtml(text)}${f.unknown ? ` + ${f.unknown} not known` : ""}</td>`;
}
