/**
 * Which judges make a command exit 3 (`EXIT.brokenJudge`): the rule `label` applies to a judge of its invocation,
 * applied by every command that prints figures from judges' verdicts (`agree`, `committee`, `report`, `estimate`,
 * `compare`), from the one health computation they all use (`judgeHealth`, ./health.ts). A judge is broken when
 * - its rates carry a caveat (`rateCaveat`, ./rate-caveat.ts: `[JUDGE X LOOKS BROKEN]`, or `STOPPED` for a judge with
 *   no usable verdict): its rates are not its judging; or
 * - most of its verdicts are judge errors or refusals (the `mostly_errors` flag): the judge mostly did not judge, as
 *   `label`'s judge that crashed on most items it was sent (a crash leaves no verdict: its coverage says it).
 * Only the judges behind a command's figures count ({@link brokenJudges}' `used`); another judge of the run is
 * warned about, not the command's failure (new user 18: a run holding a broken judge made every later label exit 3).
 */
import type { JudgeHealth } from "./health.js";
import { rateCaveat } from "./rate-caveat.js";

/** One broken judge and why, in words for stderr. */
export interface BrokenJudge {
  judge_id: string;
  /** e.g. "its rates are marked LOOKS BROKEN (quotes_rarely_verify)", "most of its verdicts are judge errors or refusals (73.0%)". */
  why: string;
}

/** Whether one judge is broken by the module's rule, and why; null when it is not. */
export function brokenJudge(h: JudgeHealth): BrokenJudge | null {
  const c = rateCaveat(h);
  if (c) {
    const stopped = c.flags.includes("no_usable_verdict");
    return { judge_id: h.judge_id, why: stopped ? `its rates are marked STOPPED (${c.flags.join(", ")})` : `its rates are marked LOOKS BROKEN (${c.flags.join(", ")})` };
  }
  if (h.flags.some((f) => f.code === "mostly_errors")) {
    const pct = h.error_share === null ? "" : ` (${(100 * h.error_share).toFixed(1)}% of its ${h.verdicts} verdicts)`;
    return { judge_id: h.judge_id, why: `most of its verdicts are judge errors or refusals${pct}` };
  }
  return null;
}

/**
 * The broken judges among `health`, split by whether the command's figures use them.
 * @param health every judge's health the command computed (over the verdicts its figures are of).
 * @param used the judges behind the command's figures (a judge, a committee's members, every judge shown).
 * @returns `used`: the broken judges among `used`, in its order; `other`: the rest of the broken judges, by id.
 */
export function brokenJudges(health: readonly JudgeHealth[], used: Iterable<string>): { used: BrokenJudge[]; other: BrokenJudge[] } {
  const usedIds = [...new Set(used)];
  const byId = new Map(health.map((h) => [h.judge_id, h]));
  const out: BrokenJudge[] = [];
  for (const id of usedIds) {
    const h = byId.get(id);
    const b = h ? brokenJudge(h) : null;
    if (b) out.push(b);
  }
  const usedSet = new Set(usedIds);
  const other = health
    .filter((h) => !usedSet.has(h.judge_id))
    .map(brokenJudge)
    .filter((b): b is BrokenJudge => b !== null)
    .sort((a, b) => a.judge_id.localeCompare(b.judge_id));
  return { used: out, other };
}
