/**
 * The (agent model, condition) groups pooled into `agree --reference`'s figures whose attacked runs (almost) never met
 * the injected text (EXPOSURE LOW, src/stats/rates.ts): the pooled exposure can read 21.8% while two of four models
 * were 0/360 and 12/360 exposed (quick check 24), so they are named per judge, never left to the pooled figure.
 */
import { EXPOSURE_LOW_BELOW, isLowExposure } from "../stats/rates.js";
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
  const by = new Map<string, Map<string, { n: number; notExposed: number }>>();
  let k = -1;
  for (const v of used) {
    k++;
    if (v.status !== "ok" || !v.label) continue;
    // keyed apart (a name holding " | " must not merge two groups: red team 25); shown as `model | condition`
    const row = rowOf?.(v, k);
    const g = `${row?.agent_model ?? v.agent_model ?? "(none)"}\u0000${row?.condition ?? v.condition ?? "(none)"}`;
    let m = by.get(v.judge_id);
    if (!m) by.set(v.judge_id, (m = new Map()));
    const c = m.get(g) ?? { n: 0, notExposed: 0 };
    c.n++;
    if (v.label === "not_exposed") c.notExposed++;
    m.set(g, c);
  }
  const out: string[] = [];
  for (const j of judges) {
    const m = by.get(j);
    if (!m || m.size < 2) continue; // one group: its own rates line says it
    const low = [...m].filter(([, c]) => isLowExposure(c.n - c.notExposed, c.n)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (!low.length) continue;
    out.push(
      `judge ${j}: the figures pool ${m.size} (agent model, condition) groups, ${low.length} of them EXPOSURE LOW (fewer than ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of the compared runs met the injected text): ` +
        `${low.map(([g, c]) => `${g.replace("\u0000", " | ")} ${c.n - c.notExposed}/${c.n} exposed`).join(", ")}; over those the agreement is over runs the attack did not reach: --where model=... --where condition=... for one group`,
    );
  }
  return out;
}
