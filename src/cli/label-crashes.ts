/**
 * What `label` says at its end about the judge crashes of this invocation (errors.jsonl kind `judge_crash`: a judge
 * threw on an item, so it has no verdict of it). A crash is never a label, so a judge that crashed on many of the
 * items sent to it gives rates over a subset the crashes chose (the biggest trajectories, for time-outs): said on
 * stderr, naming the judge, the kinds and what to do, rather than left to a coverage figure.
 * - warned when more than {@link CRASH_WARN_SHARE} of the items this invocation sent a judge crashed: the share at
 *   which the rates' coverage (below 80% is LOW) is bitten by crashes alone by half its margin; a crash or two in
 *   a large run stays a line of the invocation's text, not a warning;
 * - broken (exit 3, `EXIT.brokenJudge`, as a judge whose rates look broken) when more than {@link CRASH_BROKEN_SHARE}
 *   crashed: the judge mostly did not judge, whatever its few verdicts say.
 */
import type { LabelProgress } from "../run/label-core.js";
import { CRASH_BROKEN_SHARE as BROKEN_CRASH_SHARE } from "../verdict/broken-judge.js";
import { quoted } from "../format/quote-name.js";

/** A judge's crashes are warned about above this share of the items this invocation sent it. */
export const CRASH_WARN_SHARE = 0.1;
/**
 * A judge whose crashes are above this share of the items this invocation sent it makes `label` exit 3: the share the
 * commands reading the run weigh its stored crashes by (../verdict/broken-judge.ts, the one constant).
 */
export const CRASH_BROKEN_SHARE = BROKEN_CRASH_SHARE;

/** What to do about crashes of a kind. */
const ADVICE: Record<string, string> = {
  timed_out: "raise --signature-time-limit if the inputs are legitimately large",
  worker_died: "a signature worker died on them: see the messages in errors.jsonl (kind judge_crash)",
  not_stored: "their verdicts could not be stored: see the messages in errors.jsonl (kind judge_crash)",
  other: "see the messages in errors.jsonl (kind judge_crash)",
};

/**
 * The stderr warnings about this invocation's judge crashes, one per judge above {@link CRASH_WARN_SHARE} of the
 * items sent it, and the judges above {@link CRASH_BROKEN_SHARE} (`broken`). Empty when no judge crashed that much.
 */
export function judgeCrashWarnings(progress: Pick<LabelProgress, "judge_crashes_by_judge" | "sent_by_judge">): { warnings: string[]; broken: string[] } {
  const warnings: string[] = [];
  const broken: string[] = [];
  for (const [judge, kinds] of Object.entries(progress.judge_crashes_by_judge ?? {})) {
    const crashed = Object.values(kinds).reduce((a, b) => a + b, 0);
    const sent = progress.sent_by_judge?.[judge];
    if (!sent || crashed / sent <= CRASH_WARN_SHARE) continue;
    const isBroken = crashed / sent > CRASH_BROKEN_SHARE;
    if (isBroken) broken.push(judge);
    const byKind = Object.entries(kinds).sort(([, a], [, b]) => b - a);
    warnings.push(
      `judge ${quoted(judge)} crashed on ${crashed} of the ${sent} trajectories this invocation sent it (${((100 * crashed) / sent).toFixed(1)}%: ` +
        `${byKind.map(([k, n]) => `${k} ${n}`).join(", ")}); they have no verdict of it, so its rates leave them out; ` +
        `${byKind.map(([k]) => ADVICE[k] ?? ADVICE.other).join("; ")}; the same command judges them again` +
        (isBroken ? ` (more than ${100 * CRASH_BROKEN_SHARE}% crashed: treated as a broken judge)` : ""),
    );
  }
  return { warnings, broken };
}
