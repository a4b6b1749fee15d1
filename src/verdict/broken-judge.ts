/**
 * Which judges make a command exit 3 (`EXIT.brokenJudge`): the rule `label` applies to a judge of its invocation,
 * applied by every command that prints figures from judges' verdicts (`agree`, `committee`, `report`, `estimate`,
 * `compare`), from the one health computation they all use (`judgeHealth`, ./health.ts). A judge is broken when
 * - its rates carry a caveat (`rateCaveat`, ./rate-caveat.ts: `[JUDGE X LOOKS BROKEN]`, or `STOPPED` for a judge with
 *   no usable verdict): its rates are not its judging; or
 * - most of its verdicts are judge errors or refusals (the `mostly_errors` flag): the judge mostly did not judge; or
 * - it crashed on more than {@link CRASH_BROKEN_SHARE} of the trajectories it was given (its stored `judge_crash`
 *   errors against its verdicts: a crash leaves no verdict, so its figures are over the few it did not crash on), the
 *   share at which `label` calls a judge of its invocation broken.
 * Only the judges behind a command's figures count ({@link brokenJudges}' `used`); another judge of the run is
 * warned about, not the command's failure (new user 18: a run holding a broken judge made every later label exit 3).
 */
import type { JudgeHealth } from "./health.js";
import { rateCaveat } from "./rate-caveat.js";
import { quoted } from "../format/quote-name.js";

/** A judge whose crashes are above this share of its crashes and verdicts together is broken (label's rule too). */
export const CRASH_BROKEN_SHARE = 0.5;

/** A judge's stored crashes beside its verdicts (`../store/stored-crashes.ts`). */
export interface JudgeCrashes {
  crashed: number;
  verdicts: number;
}

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

/** Whether a judge's stored crashes make it broken ({@link CRASH_BROKEN_SHARE}), and why; null when not. */
export function crashBroken(judgeId: string, c: JudgeCrashes | undefined): BrokenJudge | null {
  if (!c || c.crashed <= 0) return null;
  const share = c.crashed / (c.crashed + c.verdicts);
  if (share <= CRASH_BROKEN_SHARE) return null;
  return { judge_id: judgeId, why: `it crashed on ${c.crashed} trajectories against ${c.verdicts} verdicts (${(100 * share).toFixed(1)}%: errors.jsonl kind judge_crash)` };
}

/**
 * The broken judges among `health`, split by whether the command's figures use them.
 * @param health every judge's health the command computed (over the verdicts its figures are of).
 * @param used the judges behind the command's figures (a judge, a committee's members, every judge shown).
 * @param crashes per judge, its stored crashes and verdicts (`storedJudgeCrashes` of ../store/stored-crashes.ts); a
 *   judge broken by its health is named by that reason, one broken by its crashes alone (or with no verdict, so no
 *   health) by its crashes.
 * @returns `used`: the broken judges among `used`, in its order; `other`: the rest of the broken judges, by id.
 */
export function brokenJudges(health: readonly JudgeHealth[], used: Iterable<string>, crashes?: ReadonlyMap<string, JudgeCrashes>): { used: BrokenJudge[]; other: BrokenJudge[] } {
  const usedIds = [...new Set(used)];
  const byId = new Map(health.map((h) => [h.judge_id, h]));
  const of = (id: string) => {
    const h = byId.get(id);
    return (h ? brokenJudge(h) : null) ?? crashBroken(id, crashes?.get(id));
  };
  const out: BrokenJudge[] = [];
  for (const id of usedIds) {
    const b = of(id);
    if (b) out.push(b);
  }
  const usedSet = new Set(usedIds);
  const other = [...new Set([...byId.keys(), ...(crashes?.keys() ?? [])])]
    .filter((id) => !usedSet.has(id))
    .map(of)
    .filter((b): b is BrokenJudge => b !== null)
    .sort((a, b) => a.judge_id.localeCompare(b.judge_id));
  return { used: out, other };
}

/**
 * `b` (a {@link brokenJudges} split made without crashes, e.g. carried by a report) with the judges `crashes` makes
 * broken that it does not name yet, each on its side of `used`.
 */
export function withCrashBroken(b: { used: readonly BrokenJudge[]; other: readonly BrokenJudge[] }, used: Iterable<string>, crashes: ReadonlyMap<string, JudgeCrashes>): { used: BrokenJudge[]; other: BrokenJudge[] } {
  const named = new Set([...b.used, ...b.other].map((x) => x.judge_id));
  const usedSet = new Set(used);
  const extra = [...crashes.keys()]
    .filter((id) => !named.has(id))
    .map((id) => crashBroken(id, crashes.get(id)))
    .filter((x): x is BrokenJudge => x !== null);
  return {
    used: [...b.used, ...extra.filter((x) => usedSet.has(x.judge_id))],
    other: [...b.other, ...extra.filter((x) => !usedSet.has(x.judge_id))].sort((x, y) => x.judge_id.localeCompare(y.judge_id)),
  };
}

/**
 * The `judge_caveat` cell of a figures file (`compare --csv`, `estimate --table --csv`): each broken judge behind the
 * figures, in words. A judge whose rates carry a caveat gives its caveat's message (what its rates then measure); one
 * broken only by its errors or crashes (no rate caveat: its labels are its own, but few) says why and that its rates
 * are over the verdicts it gave (session 40: the CSV's column showed only LOOKS BROKEN and STOPPED, so the rows of a
 * judge with 73% judge errors went out with no word, while the command exited 3). "" when none.
 * @param caveats the rate caveats of the judges behind the figures (`rateCaveats`).
 * @param broken the broken judges behind them ({@link brokenJudges}' `used`, crashes included).
 */
export function judgeCaveatText(caveats: readonly { judge_id: string; message: string }[], broken: readonly BrokenJudge[]): string {
  const withCaveat = new Set(caveats.map((c) => c.judge_id));
  const others = broken.filter((b) => !withCaveat.has(b.judge_id));
  return [
    ...caveats.map((c) => c.message),
    ...others.map((b) => `judge ${quoted(b.judge_id)} looks broken: ${b.why}; its rates are over the verdicts it gave, which the coverage counts`),
  ].join("; ");
}
