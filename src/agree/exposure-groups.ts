/**
 * The (agent model, condition) groups pooled into `agree --reference`'s figures whose attacked runs (almost) never met
 * the injected text (EXPOSURE LOW, src/stats/rates.ts): the pooled exposure can read 21.8% while two of four models
 * were 0/360 and 12/360 exposed (quick check 24), so they are named per judge, never left to the pooled figure.
 */
import { pooledExposureLowWarning, PooledExposureTally } from "../stats/pooled-exposure.js";
import type { Verdict } from "../types.js";

/**
 * One warning per judge whose figures pool more than one (model, condition) group and some of them EXPOSURE LOW; `[]`
 * when none. Reads the verdict records' own `agent_model` and `condition` (stored on every verdict `label` writes),
 * or, with `rowOf`, the trajectory's index row's (a compact read of the verdicts keeps neither: the report's).
 * @param used the repeat-0 verdicts the figures are over (`usedRepeat0` of ../cli/agree-reference.ts).
 * @param judges the judges compared, in output order.
 * @param rowOf the index row of a verdict's trajectory (`k`: its position in `used`), when the verdicts do not carry
 *   the two fields (a column read shares one record among trajectories: it answers by position).
 */
export function pooledExposureLowWarnings(
  used: Iterable<Verdict>,
  judges: readonly string[],
  rowOf?: (v: Verdict, k: number) => { agent_model?: string; condition?: string } | undefined,
): string[] {
  // one tally per judge (../stats/pooled-exposure.ts, the tally every pooled figure names its groups with)
  const by = new Map<string, PooledExposureTally>();
  let k = -1;
  for (const v of used) {
    k++;
    if (v.status !== "ok" || !v.label) continue;
    const row = rowOf?.(v, k);
    let t = by.get(v.judge_id);
    if (!t) by.set(v.judge_id, (t = new PooledExposureTally()));
    t.add(row?.agent_model ?? v.agent_model, row?.condition ?? v.condition, v.label !== "not_exposed");
  }
  const out: string[] = [];
  for (const j of judges) {
    const t = by.get(j);
    // one group: its own rates line says it
    const w = t && pooledExposureLowWarning(`judge ${j}: the figures`, t, { runs: "the compared runs", meaning: "over those the agreement is over runs the attack did not reach" });
    if (w) out.push(w);
  }
  return out;
}
