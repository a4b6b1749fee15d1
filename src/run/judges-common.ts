/**
 * The judges of a run side by side on the same runs (`label`'s summary; est53 #3). Each judge's rates in the summary
 * are over the attacked runs it labelled (its coverage): when the judges labelled different subsets (an LLM judge
 * that failed on some items, a judge stopped early), their figures side by side are over different runs, and a
 * difference between them may be the runs, not the judging. So the summary also gives every judge's rates over the
 * attacked runs **every** judge labelled (overall and per agent model and condition), with the counts, beside each
 * judge's own coverage; each judge's own block keeps its own figures.
 *
 * A judge that labelled no attacked run at all (stopped, or every verdict an error) is left out of the comparison,
 * named (it would empty the shared set), as its block says it has no rate.
 */
import { RateTally, type RateItem } from "../stats/rates.js";
import type { RateFigure } from "../stats/rate-figure.js";
import { NO_VALUE } from "../stats/no-value.js";
import type { Rep0Fold, RowFields } from "./rep0-rates.js";
import type { RateCaveat } from "../verdict/rate-caveat.js";

/** One judge's two named rates over a shared set. */
export interface CommonRates {
  judge_id: string;
  asr_goal: RateFigure;
  asr_behaviour: RateFigure;
}

/** The judges side by side over the attacked runs every one of them labelled (module docstring). */
export interface JudgesCommon {
  /** The judges compared (each labelled some attacked run), in the summary's order. */
  judges: string[];
  /** Judges with no label on any attacked run: left out of the comparison. */
  left_out: string[];
  /** Attacked runs of the index. */
  attacked: number;
  /** Of them, those every compared judge labelled (a usable repeat-0 verdict): the rates' n. */
  n: number;
  /**
   * Each judge's rates over the `n` runs, with its own labelled count and coverage (labelled / attacked), and its rate
   * caveat (a judge that looks broken: its figures here are no judging difference either; break2_53) or null.
   */
  per_judge: Array<CommonRates & { own_labelled: number; own_coverage: number | null; rate_caveat: RateCaveat | null }>;
  /** The same per (agent model, condition) (condition `(none)` when the run records none): its attacked and shared n. */
  by_model_condition: Array<{ agent_model: string; condition: string; attacked: number; n: number; per_judge: CommonRates[] }>;
  /** Every compared judge labelled the same attacked runs: their own figures are already over the same runs. */
  same_runs: boolean;
}

/**
 * The {@link JudgesCommon} of a run's judges; undefined with fewer than two judges.
 * @param fold the summary's repeat-0 fold; @param judges each judge's id and own attacked/labelled counts (its `rates`).
 */
export function judgesCommon(fold: Rep0Fold, judges: ReadonlyArray<{ judge_id: string; rates: { attacked: number; labelled: number }; rate_caveat?: RateCaveat | null }>): JudgesCommon | undefined {
  if (judges.length < 2) return undefined;
  const compared = judges.filter((j) => j.rates.labelled > 0);
  const left_out = judges.filter((j) => j.rates.labelled === 0).map((j) => j.judge_id);
  const ids = compared.map((j) => j.judge_id);
  const all = ids.map(() => new RateTally());
  const groups = new Map<string, { model: string; condition: string; attacked: number; t: RateTally[] }>();
  let attacked = 0;
  fold.eachAttacked(ids, (row: RowFields, items: ReadonlyArray<RateItem | null>) => {
    attacked++;
    const model = row.agent_model ?? NO_VALUE;
    const condition = row.condition ?? NO_VALUE;
    const k = `${model}\u0000${condition}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { model, condition, attacked: 0, t: ids.map(() => new RateTally()) }));
    g.attacked++;
    if (!ids.length || items.some((it) => !it || it.label === null)) return;
    items.forEach((it, i) => {
      all[i].add(it!);
      g!.t[i].add(it!);
    });
  });
  const two = (t: RateTally) => {
    const r = t.result();
    return { asr_goal: r.asr_goal, asr_behaviour: r.asr_behaviour, n: r.labelled };
  };
  const n = ids.length ? two(all[0]).n : 0;
  const per_judge = compared.map((j, i) => {
    const r = two(all[i]);
    return { judge_id: j.judge_id, asr_goal: r.asr_goal, asr_behaviour: r.asr_behaviour, own_labelled: j.rates.labelled, own_coverage: j.rates.attacked > 0 ? j.rates.labelled / j.rates.attacked : null, rate_caveat: j.rate_caveat ?? null };
  });
  const by_model_condition = [...groups.values()]
    .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : a.condition < b.condition ? -1 : a.condition > b.condition ? 1 : 0))
    .map((g) => ({
      agent_model: g.model,
      condition: g.condition,
      attacked: g.attacked,
      n: ids.length ? two(g.t[0]).n : 0,
      per_judge: ids.map((id, i) => ({ judge_id: id, ...pick(two(g.t[i])) })),
    }));
  return { judges: ids, left_out, attacked, n, per_judge, by_model_condition, same_runs: compared.every((j) => j.rates.labelled === n) };
}

/** `{ judges_common }` of {@link judgesCommon}, or `{}` with fewer than two judges (the summary's field). */
export function judgesCommonField(fold: Rep0Fold, judges: Parameters<typeof judgesCommon>[1]): { judges_common?: JudgesCommon } {
  const c = judgesCommon(fold, judges);
  return c ? { judges_common: c } : {};
}

const pick = (r: { asr_goal: RateFigure; asr_behaviour: RateFigure }) => ({ asr_goal: r.asr_goal, asr_behaviour: r.asr_behaviour });
