/**
 * The report's per-judge attack-success rows set side by side on the same runs (est53 #3): each judge's row is over
 * the attacked runs it labelled (its coverage), so when judges labelled different subsets (an LLM judge that failed
 * on some items) their figures side by side are over different runs. Each judge's row also gets `common`: its two
 * named rates over the row's attacked runs that **every** judge labelled (a usable repeat-0 verdict), with the count.
 * The committee's rows get none (its labels are the members' votes). Only with two judges or more.
 */
import { COVERAGE_LOW_BELOW, RateTally, type RateItem } from "../stats/rates.js";
import type { RateFigure } from "../stats/rate-figure.js";
import { NO_VALUE } from "../stats/no-value.js";

/** The reason of a shared figure over no run (`../format/stat-text.ts`). */
export const NO_SHARED_RUN = "no_run_labelled_by_every_judge";

/** A judge's two named rates over the runs every judge labelled, in one (model, condition) row. */
export interface AsrCommon {
  /** The row's attacked runs every judge labelled. */
  n: number;
  asr_goal: RateFigure;
  asr_behaviour: RateFigure;
}

/** What {@link addCommon} reads of a row of the table. */
interface Row {
  rater: string;
  model: string;
  condition: string;
  common?: AsrCommon;
}

/**
 * Set `common` on the judges' rows, in place (module docstring); nothing with fewer than two judges.
 * @param n the run's trajectories (positions 0..n-1); @param rowAt a position's attacked flag, model and condition.
 * @param judges each judge's rate item at a position (its repeat-0 verdict, or null label with a reason).
 */
export function addCommon(
  rows: Row[],
  n: number,
  rowAt: (i: number) => { attacked?: boolean; agent_model?: string; condition?: string },
  judges: ReadonlyArray<{ rater: string; item: (i: number) => RateItem }>,
): void {
  if (judges.length < 2) return;
  const tallies = new Map<string, RateTally[]>();
  for (let i = 0; i < n; i++) {
    const t = rowAt(i);
    if (!t.attacked) continue;
    const k = `${t.agent_model ?? NO_VALUE}\u0000${t.condition ?? NO_VALUE}`;
    let ts = tallies.get(k);
    if (!ts) tallies.set(k, (ts = judges.map(() => new RateTally())));
    const items = judges.map((j) => j.item(i));
    if (items.some((it) => it.label === null)) continue;
    items.forEach((it, x) => ts!.at(x)!.add(it));
  }
  const at = new Map(judges.map((j, x) => [j.rater, x]));
  for (const r of rows) {
    const x = at.get(r.rater);
    const ts = tallies.get(`${r.model}\u0000${r.condition}`);
    if (x === undefined || !ts) continue;
    const res = ts[x].result();
    // none of the row's runs has a label from every judge: say that, not "no labelled attacked" of a judge that
    // labelled them all (break2_53 #3)
    const none = (f: RateFigure): RateFigure => (res.labelled === 0 ? { ...f, reason: NO_SHARED_RUN } : f);
    r.common = { n: res.labelled, asr_goal: none(res.asr_goal), asr_behaviour: none(res.asr_behaviour) };
  }
}

/**
 * Is a chart bar's figure over a LOW-coverage subset (rev2a #6): the shared figure (`shared` and the row has `common`)
 * is over `common.n` of the row's `attacked` runs, LOW below {@link COVERAGE_LOW_BELOW} of them as the judge's own
 * (drawn pale, as the chart's legend says); else the row's own `coverage_low`.
 */
export function barCoverageLow(r: { attacked: number; coverage_low: boolean; common?: AsrCommon }, shared: boolean): boolean {
  return shared && r.common ? r.coverage_low || r.common.n < COVERAGE_LOW_BELOW * r.attacked : r.coverage_low;
}
