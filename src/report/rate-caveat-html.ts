/**
 * The report's mark on a judge's rates when its health says they are not its judging (`../verdict/rate-caveat.ts`,
 * new-user report 16: a judge whose claims never verify gets 0% by construction): the same caveat as label's
 * summary, compare and estimate --table, beside the figure, with its sentence as the tooltip.
 */
import { rateCaveatMarker, rateCaveats, type RateCaveat } from "../verdict/rate-caveat.js";
import type { JudgeHealth } from "../verdict/health.js";
import { escapeAttr, escapeHtml } from "./escape.js";
import { injectionUnknownWarnings } from "../verdict/injection-unknown.js";
import { toolArgumentsWarnings } from "../verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../verdict/evidence-unrelated-health.js";
import { unsaidInHealth } from "../verdict/marked-compliance.js";
import { elidedPromptWarnings } from "../verdict/label-rests-health.js";
import { inUserTaskWarnings } from "../verdict/evidence-in-user-task-health.js";
import { injectedValueWarnings } from "../verdict/injected-value-health.js";

/**
 * ` <strong class="low" title="...">[JUDGE x LOOKS BROKEN: see the warning]</strong>` when the rater is
 * a judge whose rates carry a caveat, else "" (the committee and healthy judges).
 * @param health every judge's health (`ReportModel.judge_health`); @param rater the judge id of the figure.
 */
export function rateCaveatHtml(health: readonly JudgeHealth[] | undefined, rater: string): string {
  return caveatsHtml(rateCaveats(health ?? [], [rater]));
}

/**
 * The mark of the committee's rates: its members' caveats (`estimate --table`'s "judge caveat" of a committee row),
 * "" when every member is healthy (new user 36 #1: the report's committee rows were bare).
 * @param members the committee's judges (`ReportModel.committee.members`).
 */
export function committeeCaveatHtml(health: readonly JudgeHealth[] | undefined, members: readonly string[]): string {
  return caveatsHtml(rateCaveats(health ?? [], members));
}

/** The mark of a figure with these caveats (see {@link rateCaveatHtml}); "" when none. */
export function caveatsHtml(cs: readonly RateCaveat[]): string {
  if (!cs.length) return "";
  return ` <strong class="low" title="${escapeAttr(cs.map((c) => c.message).join("; "))}">${escapeHtml(rateCaveatMarker(cs).trim())}</strong>`;
}

/**
 * The caveat sentences of the judges behind a report's figures (for its warnings): one per judge with a caveat. The
 * page's warnings already hold each judge's health warning (`healthWarnings`, beside these): a marked-compliance
 * sentence that one carries is not said again (`unsaidInHealth`; session 51: twice per judge on the page).
 */
export function rateCaveatWarnings(health: readonly JudgeHealth[] | undefined, judgeIds: readonly string[]): string[] {
  // and a judge's labels on runs whose injected text is unknown: selected by its answers (new user 48, 1)
  // and its successes on calls whose arguments are not valid JSON (../verdict/tool-arguments-health.ts), and its
  // compliance labels citing nothing of the injected text (../verdict/evidence-unrelated-health.ts); its labels on
  // elided prompts, and its compliance labels whose evidence is the user's own task (fixC52)
  return [
    ...rateCaveats(health ?? [], judgeIds).map((c) => c.message),
    ...injectionUnknownWarnings(health, judgeIds),
    ...toolArgumentsWarnings(health, unsaidInHealth(health, judgeIds, "tool_arguments_invalid")),
    ...evidenceUnrelatedWarnings(health, unsaidInHealth(health, judgeIds, "compliance_evidence_unrelated")),
    ...elidedPromptWarnings(health, judgeIds),
    ...inUserTaskWarnings(health, judgeIds),
    ...injectedValueWarnings(health, judgeIds),
  ];
}
