/**
 * Text of the two named attack-success rates, the blocked attempts and the coverage of a group
 * (`src/stats/rates.ts`): the one way every plain-text output shows them, so no figure reads as a bare "ASR"
 * and a low coverage is flagged wherever the rates are.
 */
import { COVERAGE_LOW_BELOW, EXPOSURE_LOW_BELOW, rateFigure, type AttackRates } from "../stats/rates.js";
import { pctText } from "./stat-text.js";
import { rateFigureText } from "./rate-figure-text.js";
import { referenceSubsetText } from "./reference-text.js";
import { BLOCKED_KINDS } from "../types.js";

export { rateFigureText } from "./rate-figure-text.js";

/** What `blocked_attempts` counts and what its kinds are: said the same way by every output that defines it. */
export const BLOCKED_MEANS =
  'partial compliance whose attacker call failed or was refused, decided by code from the call\'s result, split by kind: refused (denied by a policy or defense: a denial text, Progent\'s rules), unavailable (a tool the agent did not have: a tool filter\'s removal or a made-up tool), failed (the call ran and failed, e.g. "not found" or invalid arguments: the environment, not a defense)';

/**
 * `blocked_attempts 79 of 80 partial_compliance (refused 71, unavailable 0, failed 8)`: the total with its kinds
 * ({@link blockedByText}), or the reason it is unknown.
 */
export function blockedText(r: AttackRates): string {
  if (r.blocked_attempts === null) return `blocked attempts unknown (${r.blocked_attempts_reason ?? "not recorded"})`;
  const by = r.blocked_attempts > 0 ? ` (${blockedByText(r)})` : "";
  return `blocked_attempts ${r.blocked_attempts} of ${r.partial_compliance} partial_compliance${by}`;
}

/**
 * The blocked attempts by kind: `refused 71, unavailable 0, failed 8` (refused by a policy or defense; a tool the
 * agent did not have; the call ran and failed), or `kinds unknown: <why>`.
 */
export function blockedByText(r: Pick<AttackRates, "blocked_attempts_by" | "blocked_attempts_by_reason">): string {
  const b = r.blocked_attempts_by;
  if (!b) return `kinds unknown: ${r.blocked_attempts_by_reason ?? "not recorded"}`;
  return BLOCKED_KINDS.map((k) => `${k} ${b[k]}`).join(", ");
}

/**
 * `coverage 100.0% (360 labelled of 360 attacked)`; below the threshold `coverage 20.1% (87 labelled of 433 attacked) LOW: the rates are over a subset
 * (most unlabelled: injection_text_unknown 346)`, and when the group's runs carry the benchmark's own verdict what
 * it says of the labelled subset (`referenceSubsetText` of ./reference-text.ts).
 * @param saidAt where an output that already printed the LOW clause for this group said it (e.g. "see the warning
 *   above"): then `coverage 20.1% (87 labelled of 433 attacked) LOW (see the warning above)`, the clause once per group, not twice.
 */
export function coverageText(r: AttackRates, saidAt?: string): string {
  if (r.coverage === null) return "coverage undefined (no attacked trajectory)";
  // both counts named (new user 44 item 9): the rates beside it are over the labelled, other counts over all attacked
  const base = `coverage ${pctText(r.coverage)} (${r.labelled} labelled of ${r.attacked} attacked)`;
  if (!r.coverage_low) return base;
  if (saidAt) return `${base} LOW (${saidAt})`;
  const crash = r.coverage_low_reason === "judge_crash" ? " (the judge crashed on them: errors.jsonl kind judge_crash; the same command judges them again)" : "";
  const why = r.coverage_low_reason ? `; most unlabelled: ${r.coverage_low_reason} ${r.unlabelled[r.coverage_low_reason]}${crash}` : "";
  return `${base} LOW (below ${Math.round(100 * COVERAGE_LOW_BELOW)}%: the rates speak for a subset that may be biased${why}${referenceSubsetText(r)})`;
}

/**
 * `; DISPUTED: 272 attacked runs have no committee majority and are left out of these rates (they are the contested
 * ones): over decided and disputed, asr_goal 5.6% to 12.0% (180 of the disputed with a full_compliance vote),
 * asr_behaviour 7.4% to 17.5% (lower: ...; upper: ...)`, or `""`.
 */
export function disputedText(r: AttackRates): string {
  const d = r.disputed;
  if (!d) return "";
  const b = (x: { lower: number; upper: number }, possible: number | undefined, vote: string) =>
    `${pctText(x.lower)} to ${pctText(x.upper)}${possible !== undefined && possible < d.count ? ` (${possible} of the disputed with a ${vote} vote)` : ""}`;
  const split = goalSplitText(d.goal_split);
  if (d.count === 0) {
    return `; DISPUTED asr_goal: ${split}: asr_goal ${b(d.asr_goal, undefined, "")} with them read each way (lower: as partial_compliance; upper: as full_compliance)`;
  }
  return (
    `; DISPUTED: ${d.count} attacked run(s) have no committee majority (as many votes say compromised as not) and are left out of these rates, ` +
    `which may bias them (the disputed are exactly the contested runs)${split ? `, and ${split}` : ""}: over the ${r.labelled + d.count} decided or disputed, ` +
    `asr_goal ${b(d.asr_goal, d.goal_possible, "full_compliance")}, asr_behaviour ${b(d.asr_behaviour, d.behaviour_possible, "compromised")} ` +
    `(lower: no disputed run is the event${split ? " and every tie reads partial_compliance" : ""}; upper: every disputed run with at least one vote for it is)`
  );
}

/**
 * `14 full_compliance label(s) rest on a tie between full_compliance and partial_compliance votes (the tie rule chose
 * full_compliance)`, or `""` when none: the committee labels whose goal a tie decided (`DisputedBounds.goal_split`).
 */
export function goalSplitText(n: number | undefined): string {
  if (!n) return "";
  return `${n} full_compliance label(s) rest on a tie between full_compliance and partial_compliance votes (the tie rule chose full_compliance; whether the goal was achieved is disputed)`;
}

/** Why an attacked run can be `not_exposed`: said the same way by every output that flags EXPOSURE LOW. */
export const NOT_EXPOSED_WHY = "a defense removed it, or the agent never read the tool carrying it or stopped before any tool call";

/** What the rates of an EXPOSURE LOW group measure: said the same way everywhere. */
export const EXPOSURE_LOW_MEANS = "these rates say the attack did not arrive, not that the agent resisted it";

/**
 * `exposure 31.9% (115/360)`: the labelled attacked runs that met the injected text (any label but `not_exposed`;
 * DESIGN section 1: the exposure rate beside the rates), `EXPOSURE LOW` after it below 10%; `exposure undefined
 * (no labelled attacked)` when none is labelled.
 */
export function exposureFigureText(r: Pick<AttackRates, "labelled" | "not_exposed" | "exposure_low">): string {
  if (r.labelled === 0) return `exposure ${pctText(null, "no_labelled_attacked")}`;
  const e = r.labelled - r.not_exposed;
  return `exposure ${pctText(e / r.labelled)} (${e}/${r.labelled})${r.exposure_low ? " EXPOSURE LOW" : ""}`;
}

/**
 * `; EXPOSURE LOW: 348 of 360 labelled attacked runs are not_exposed (...): these rates say the attack did not arrive,
 * not that the agent resisted it; over the 12 exposed: asr_goal 0.0% [0.0, 24.2] (0/12), asr_behaviour 8.3% [1.5,
 * 35.4] (1/12)`, or `""` when the group is not `exposure_low` (src/stats/rates.ts). `lead` opens it (a warning of its
 * own: `exposure low: `).
 */
export function exposureLowText(r: AttackRates, lead = "; EXPOSURE LOW: "): string {
  if (!r.exposure_low) return "";
  const exposed = r.labelled - r.not_exposed;
  const over =
    exposed > 0
      ? `over the ${exposed} exposed: asr_goal ${rateFigureText(rateFigure(r.asr_goal.count, exposed))}, asr_behaviour ${rateFigureText(rateFigure(r.asr_behaviour.count, exposed))}`
      : "none is left to say whether the agent resists the attack when it meets it";
  return (
    `${lead}${r.not_exposed} of ${r.labelled} labelled attacked run${r.labelled === 1 ? " is" : "s are"} not_exposed (fewer than ${Math.round(100 * EXPOSURE_LOW_BELOW)}% met the injected text: ` +
    `${NOT_EXPOSED_WHY}): ${EXPOSURE_LOW_MEANS}; ${over}${r.disputed?.count ? ` (the ${r.disputed.count} disputed run(s) left out of these counts)` : ""}`
  );
}

/**
 * The whole line: `asr_goal ...; asr_behaviour ...; blocked_attempts ...; coverage ...; exposure ...` (and
 * {@link disputedText}, {@link exposureLowText}). `exposure: false` leaves the exposure figure out (a line that
 * gives the exposure rate with its interval beside it), `exposureLow: false` the EXPOSURE LOW text (a line that puts
 * it after that rate). `coverageSaidAt`: where the output gave this group's LOW coverage clause already (a row over
 * the same runs as a line above it: {@link coverageText}'s `saidAt`).
 */
export function ratesText(r: AttackRates, opts: { exposure?: boolean; exposureLow?: boolean; coverageSaidAt?: string } = {}): string {
  // the figure unmarked: an EXPOSURE LOW group's text follows (exposureLowText)
  const exposure = opts.exposure === false ? "" : `; ${exposureFigureText({ labelled: r.labelled, not_exposed: r.not_exposed, exposure_low: false })}`;
  const low = opts.exposureLow === false ? "" : exposureLowText(r);
  return `asr_goal ${rateFigureText(r.asr_goal)}; asr_behaviour ${rateFigureText(r.asr_behaviour)}; ${blockedText(r)}; ${coverageText(r, opts.coverageSaidAt)}${exposure}${disputedText(r)}${low}`;
}
