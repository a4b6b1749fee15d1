/**
 * The (agent model, condition) groups inside a pooled figure whose attacked runs (almost) never met the injected
 * text (EXPOSURE LOW, `./rates.ts`). A figure over several groups gives one exposure, which can read 30% while one
 * group in it was 0/360 exposed: its rates there say the attack did not arrive, not that the agent resisted. Red team
 * 25 M2: `committee`, `estimate --human` without `--by` and `compare --by attack` pooled such groups without naming
 * them (`agree` named them per judge, `../agree/exposure-groups.ts`).
 */
import { EXPOSURE_LOW_BELOW, isLowExposure } from "./rates.js";
import { NO_VALUE } from "./no-value.js";

/** One group's counts: its labelled (usable) attacked runs and those labelled anything but `not_exposed`. */
export interface GroupExposureCount {
  model: string;
  condition: string;
  exposed: number;
  n: number;
}

/** Counts per (agent model, condition) of labelled attacked runs, exposed or not. */
export class PooledExposureTally {
  private readonly groups = new Map<string, GroupExposureCount>();

  /**
   * Count one labelled attacked run (`weight` of them).
   * @param model its agent model (`(none)` when absent); @param condition its condition (`(none)` when absent).
   * @param exposed labelled anything but `not_exposed`.
   */
  add(model: string | undefined, condition: string | undefined, exposed: boolean, weight = 1): void {
    const m = model ?? NO_VALUE;
    const c = condition ?? NO_VALUE;
    // keyed apart: a name holding " | " must not merge two groups (red team 25 M1)
    const k = `${m}\u0000${c}`;
    let g = this.groups.get(k);
    if (!g) this.groups.set(k, (g = { model: m, condition: c, exposed: 0, n: 0 }));
    g.n += weight;
    if (exposed) g.exposed += weight;
  }

  /** How many groups were counted. */
  get size(): number {
    return this.groups.size;
  }

  /** The EXPOSURE LOW groups (`isLowExposure`), by model then condition. */
  low(): GroupExposureCount[] {
    return [...this.groups.values()]
      .filter((g) => isLowExposure(g.exposed, g.n))
      .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : a.condition < b.condition ? -1 : a.condition > b.condition ? 1 : 0));
  }
}

/**
 * The warning naming the EXPOSURE LOW groups a pooled figure holds, or null when it pools one group or none is low.
 * @param what the figure, as the sentence's subject (e.g. "the committee's rates").
 * @param words what the groups' runs are (default "their labelled attacked runs") and what the low groups mean for
 *   the figure (default: for rates, the attack did not arrive).
 * @returns e.g. `the committee's rates pool 4 (agent model, condition) groups, 1 of them EXPOSURE LOW (...): m | tool_filter 0/360 exposed; ...`.
 */
export function pooledExposureLowWarning(
  what: string,
  tally: PooledExposureTally,
  words: { runs?: string; meaning?: string } = {},
): string | null {
  if (tally.size < 2) return null; // one group: its own exposure is the figure's
  const low = tally.low();
  if (!low.length) return null;
  const runs = words.runs ?? "their labelled attacked runs";
  const meaning = words.meaning ?? "over those the rates say the attack did not arrive, not that the agent resisted it";
  return (
    `${what} pool ${tally.size} (agent model, condition) groups, ${low.length} of them EXPOSURE LOW (fewer than ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of ${runs} met the injected text): ` +
    `${low.map((g) => `${g.model} | ${g.condition} ${g.exposed}/${g.n} exposed`).join(", ")}; ${meaning}: --where model=... --where condition=... for one group`
  );
}
