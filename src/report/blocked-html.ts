/**
 * The report's blocked-attempts cells (DESIGN section 1, "Blocked attempt"): the total of partial compliance whose
 * attacker call was refused or failed, with its kinds (`refused` by a policy or defense, `unavailable` a tool the
 * agent did not have, `failed` the call ran and failed), so a defense's column does not read as "what the defense
 * blocked" when it is the environment's own failures (new user 29). Used by the attack-success table and the paper
 * table of `./html.ts`.
 */
import type { AttackRates } from "../stats/rates.js";
import { BLOCKED_MEANS, blockedByText } from "../format/rates-text.js";
import { blockedByCellText, blockedCellText, type RowBlocked } from "../estimate/table-blocked.js";
import { escapeAttr, escapeHtml, escapeText } from "./escape.js";

const int = (x: number) => x.toLocaleString("en-US");

/** The kinds under a count: `<br><small>refused 0, unavailable 0, failed 9</small>` (or why unknown); none when 0 blocked. */
const kindsLine = (n: number, text: string) => (n > 0 ? `<br><small>${escapeText(text)}</small>` : "");

/** An attack-success row's cell: `9 of 21` and its kinds, or `unknown` with the reason as a tooltip. */
export function blockedRatesCell(r: Pick<AttackRates, "blocked_attempts" | "blocked_attempts_reason" | "blocked_attempts_by" | "blocked_attempts_by_reason" | "partial_compliance">): string {
  if (r.blocked_attempts === null) return `<span title="${escapeAttr(r.blocked_attempts_reason ?? "not recorded")}">unknown</span>`;
  return `${int(r.blocked_attempts)} of ${int(r.partial_compliance)}${kindsLine(r.blocked_attempts, blockedByText(r))}`;
}

/** A paper-table row's cell: `9 of 21` and its kinds, `unknown`, or `undefined (<why>)` (`blockedCellText`). */
export function blockedTableCell(r: RowBlocked): string {
  if (r.judge_blocked_attempts === null) return escapeHtml(blockedCellText(r));
  const kinds = blockedByCellText(r) ?? `kinds unknown (${r.judge_blocked_attempts_by_reason ?? "not recorded"})`;
  return `${int(r.judge_blocked_attempts)} of ${int(r.judge_partial_compliance)}${kindsLine(r.judge_blocked_attempts, kinds)}`;
}

/** What the column means, for the attack-success table's note (HTML). */
export const BLOCKED_NOTE_HTML = escapeText(`blocked_attempts = ${BLOCKED_MEANS}.`);
