/**
 * Self-family leniency as text (`./leniency.ts` computes it): the committee report's lines, and a warning naming each
 * judge whose leniency is detected (new user 30, L6: gpt's gap of -7.7 points, CI [-9.7, -5.8], was printed only in
 * the middle of the output, and a zero-width interval read `CI [+0.0, +0.0]` as if it were precise).
 *
 * Detected: the bootstrap CI of the gap (own-family difference minus other-family difference, in points) excludes 0.
 * Negative: the judge gives its own maker's agents a lower attack success rate than it gives other agents, relative to
 * the other judges' majority (lenient); positive: a higher one (harsh). Without a CI (`--bootstrap 0`, a group empty)
 * nothing is detected and nothing is said.
 */
import { undefinedText } from "../format/stat-text.js";
import type { JudgeLeniency, LeniencyGroup, PointsInterval } from "./leniency.js";

const pts = (x: number | null | undefined, reason?: string) => (x === null || x === undefined ? undefinedText(reason) : `${x >= 0 ? "+" : ""}${x.toFixed(1)}`);
const pct = (x: number | null) => (x === null ? "undefined" : `${(100 * x).toFixed(1)}%`);

/** Every bootstrap resample gave the same figure: a zero-width interval that is no precision, said in words. */
export const ZERO_WIDTH_CI = "CI none (no variation: every bootstrap resample gave the same difference, so a zero-width interval here is no precision)";

/** `CI [lo, hi]`, {@link ZERO_WIDTH_CI} when the bounds are equal, or "" when there is no interval. */
export function pointsCiText(ci: PointsInterval | undefined): string {
  if (!ci || ci.lower === null || ci.upper === null || ci.lower === undefined || ci.upper === undefined) return "";
  if (pts(ci.lower) === pts(ci.upper) && ci.lower === ci.upper) return ZERO_WIDTH_CI;
  return `CI [${pts(ci.lower)}, ${pts(ci.upper)}]`;
}

/** The gap's CI excludes 0: -1 lenient to its own family, +1 harsh, 0 not detected (or no CI). */
export function leniencyDirection(l: Pick<JudgeLeniency, "gap_points" | "gap_ci_bootstrap">): -1 | 0 | 1 {
  const ci = l.gap_ci_bootstrap;
  if (l.gap_points === null || !ci || ci.lower === null || ci.upper === null || ci.lower === undefined || ci.upper === undefined) return 0;
  if (ci.upper < 0) return -1;
  if (ci.lower > 0) return 1;
  return 0;
}

/** One warning per judge with a detected leniency (module docstring), naming the judge, the gap and its CI. */
export function leniencyWarnings(leniency: readonly JudgeLeniency[]): string[] {
  const out: string[] = [];
  for (const l of leniency) {
    const d = leniencyDirection(l);
    if (d === 0) continue;
    const ci = l.gap_ci_bootstrap!;
    out.push(
      `self-family ${d < 0 ? "leniency" : "harshness"}: judge ${l.judge_id} [${l.judge_family}] gives agents of its own family an asr_behaviour ${Math.abs(l.gap_points!).toFixed(1)} points ${d < 0 ? "lower" : "higher"} ` +
        `than other families' agents, each against the other judges' majority (gap ${pts(l.gap_points)}, 95% bootstrap CI [${pts(ci.lower)}, ${pts(ci.upper)}], excluding 0): ` +
        `its votes on its own maker's agents are not neutral; check them with human labels, or leave it out (--exclude-judge ${l.judge_id})`,
    );
  }
  return out;
}

/** The committee report's leniency block (header and two lines per judge). */
export function leniencyLines(leniency: readonly JudgeLeniency[]): string[] {
  const L = ["self-family leniency (judge asr_behaviour minus the other judges' majority asr_behaviour on the same trajectories, in points; negative = more lenient):"];
  const g = (x: LeniencyGroup) => {
    if (x.diff_points === null) return undefinedText(x.reason);
    const ci = pointsCiText(x.ci_bootstrap);
    return `${pts(x.diff_points)} (${pct(x.judge_asr)} vs ${pct(x.others_asr)}, n ${x.n}${ci ? `, ${ci}` : ""})`;
  };
  for (const l of leniency) {
    L.push(`  ${l.judge_id} [${l.judge_family}]: own-family agents ${g(l.own_family)}; other families ${g(l.other_families)}`);
    const ci = pointsCiText(l.gap_ci_bootstrap);
    const d = leniencyDirection(l);
    L.push(`    gap (own − other) ${pts(l.gap_points, l.gap_reason)}${ci ? ` ${ci}` : ""}${d ? `: ${d < 0 ? "LENIENT to" : "HARSH on"} its own family's agents (see the warning)` : ""}`);
  }
  return L;
}
