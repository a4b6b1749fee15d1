/**
 * `compare --committee`'s split-vote runs (newuser53 #2). A committee has no majority on a disputed run (as many votes
 * say compromised as not): it is left out of the rates and of the paired differences, exactly the contested runs, and
 * the drops can be one-sided (AgentDyn gpt-4o undefended: 55 of 58 disputed runs have a `full_compliance` vote), so
 * leaving them out pulls the baseline down and shrinks a defense's effect (-18.2 pp where the signature judge alone
 * reads -22.2 pp). `estimate` and `committee` print the range they could move a rate over; `compare` says the same:
 * - per row (model, condition), the rate's bounds over the decided and disputed runs if none / every disputed run with
 *   a vote for the event were the event (`AsrCell.disputed` of ../stats/rates.ts, as `estimate --table`'s DISPUTED note);
 * - per difference from the baseline, its range with the splits read each way ({@link disputedDifferenceRange}): the
 *   same paired difference (./baseline-diff.ts) with the disputed runs put back as labelled ones, once with the
 *   condition's read low and the baseline's high (`lower`) and once the other way (`upper`). Every other reading of
 *   them lies between (the paired difference is increasing in each condition cell's event and decreasing in each
 *   baseline cell's, over the same pairs). Not an interval: a range of point estimates.
 */
import { baselineDifference, type BaselineDifference, type DifferenceItem, type DisputedDifferenceRange } from "./baseline-diff.js";

export type { DisputedDifferenceRange } from "./baseline-diff.js";
import type { Observation, UnlabelledItem } from "./data.js";

const DISPUTED = "committee_disputed";

/**
 * The range of one ASR difference (module docstring), or undefined when neither side has a disputed run.
 * @param d the difference as printed; @param obs the labelled observations and @param unlabelled the unlabelled items
 *   its rows are over; @param cellOf the item cell of an observation or unlabelled item, as the difference keys it.
 */
export function disputedDifferenceRange(
  d: BaselineDifference,
  obs: readonly Observation[],
  unlabelled: readonly UnlabelledItem[],
  cellOf: (x: Observation | UnlabelledItem) => string | undefined,
): DisputedDifferenceRange | undefined {
  if (d.rate !== "asr_goal" && d.rate !== "asr_behaviour") return undefined;
  const goal = d.rate === "asr_goal";
  const mine = (x: { model: string; condition: string }, c: string) => x.model === d.model && x.condition === c;
  const disputed = (c: string) => unlabelled.filter((u) => u.reason === DISPUTED && mine(u, c));
  const [dc, db] = [disputed(d.condition), disputed(d.baseline)];
  const count = (xs: readonly { weight?: number }[]) => xs.reduce((n, x) => n + (x.weight ?? 1), 0);
  // asr_goal: a committee full_compliance resting on a full/partial tie is read each way too (Observation.goal_split)
  const splits = (c: string) => (goal ? obs.filter((o) => o.goal_split && mine(o, c)) : []);
  const [sc, sb] = [count(splits(d.condition)), count(splits(d.baseline))];
  if (dc.length + db.length + sc + sb === 0) return undefined;
  const item = (x: Observation | UnlabelledItem, event: boolean): DifferenceItem => {
    const cell = cellOf(x);
    return { model: x.model, condition: x.condition, event, ...(cell !== undefined ? { cell } : {}), ...(x.weight !== undefined ? { weight: x.weight } : {}) };
  };
  const labelled = (c: string, high: boolean) => obs.filter((o) => mine(o, c)).map((o) => item(o, goal ? o.goal && (high || !o.goal_split) : o.compromised));
  const possible = (u: UnlabelledItem) => (u.votes_for ? (goal ? u.votes_for.goal : u.votes_for.behaviour) : true);
  const read = (xs: readonly UnlabelledItem[], high: boolean) => xs.map((u) => item(u, high && possible(u)));
  const diff = (condHigh: boolean) =>
    baselineDifference(d.model, d.condition, d.baseline, d.rate, [...labelled(d.condition, condHigh), ...read(dc, condHigh)], [...labelled(d.baseline, !condHigh), ...read(db, !condHigh)]);
  const [lo, hi] = [diff(false), diff(true)];
  return {
    condition_disputed: count(dc),
    baseline_disputed: count(db),
    ...(sc + sb > 0 ? { condition_goal_split: sc, baseline_goal_split: sb } : {}),
    lower: lo.difference,
    upper: hi.difference,
    n_lower: lo.condition_rate.n,
    n_upper: hi.condition_rate.n,
  };
}

/**
 * Each ASR difference with its {@link disputedDifferenceRange} set as `disputed` where either side left some out.
 * @returns the same list (the differences are set in place).
 */
export function withDisputedRanges(ds: BaselineDifference[], obs: readonly Observation[], unlabelled: readonly UnlabelledItem[], cellOf: (x: Observation | UnlabelledItem) => string | undefined): BaselineDifference[] {
  if (!unlabelled.some((u) => u.reason === DISPUTED) && !obs.some((o) => o.goal_split)) return ds;
  for (const d of ds) {
    const r = disputedDifferenceRange(d, obs, unlabelled, cellOf);
    if (r) d.disputed = r;
  }
  return ds;
}

const pp = (x: number) => {
  const v = (100 * x).toFixed(1);
  return v === "0.0" || v === "-0.0" ? "0.0" : x > 0 ? `+${v}` : v;
};

/** `; DISPUTED 0 + 58 runs: -32.0 to -14.9 pp read each way`: the clause a difference line carries; "" when none. */
export function disputedRangeText(r: DisputedDifferenceRange | undefined): string {
  if (!r) return "";
  const range = r.lower === null || r.upper === null ? "range undefined" : `${pp(r.lower)} to ${pp(r.upper)} pp with them read each way`;
  const split = r.condition_goal_split || r.baseline_goal_split ? `${r.condition_goal_split ?? 0} + ${r.baseline_goal_split ?? 0} full_compliance on a full/partial tie` : "";
  if (r.condition_disputed + r.baseline_disputed === 0) return `; DISPUTED ${split}: ${range}`;
  return `; DISPUTED ${r.condition_disputed} + ${r.baseline_disputed} runs left out (no committee majority)${split ? `, ${split}` : ""}: ${range}`;
}

/** What a row's DISPUTED clause and the warning say the bounds are. */
export const DISPUTED_MEANS =
  "the committee's rates and differences leave out the attacked runs it has no majority on (as many votes say compromised as not), exactly the contested ones, which may bias them";

/** What the warning says of the goal splits (`Observation.goal_split` of ./data.ts). */
export const GOAL_SPLIT_MEANS =
  "a committee full_compliance that rests on a tie between full_compliance and partial_compliance votes counts in asr_goal (the tie rule chose full_compliance), but whether the goal was achieved is disputed";

/**
 * A row's clause: `; DISPUTED 58 (55 with a vote for full_compliance): asr_goal 17.0% to 32.4%, asr_behaviour ...`
 * (the rate over decided and disputed runs if none / every disputed run with a vote for the event were the event);
 * "" when the row has none.
 */
export function disputedRowText(c: { disputed?: { count: number; goal_possible: number; behaviour_possible: number; goal_split?: number; asr_goal: { lower: number; upper: number }; asr_behaviour: { lower: number; upper: number } } }): string {
  const d = c.disputed;
  if (!d) return "";
  const p = (x: number) => `${(100 * x).toFixed(1)}%`;
  const split = d.goal_split ? `${d.goal_split} full_compliance on a full/partial tie` : "";
  if (d.count === 0) return `; DISPUTED ${split}: asr_goal ${p(d.asr_goal.lower)} to ${p(d.asr_goal.upper)} with them read each way`;
  const some = d.goal_possible < d.count ? ` (${d.goal_possible} with a vote for full_compliance)` : "";
  return `; DISPUTED ${d.count}${some} left out${split ? `, ${split}` : ""}: asr_goal ${p(d.asr_goal.lower)} to ${p(d.asr_goal.upper)}, asr_behaviour ${p(d.asr_behaviour.lower)} to ${p(d.asr_behaviour.upper)} with them read each way`;
}
