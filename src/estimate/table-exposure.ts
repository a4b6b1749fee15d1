/**
 * Exposure in the paper table (`./table.ts`): how many of a row's attacked runs met the injected text by the judge's
 * labels and by the heuristic's own, and which cells an EXPOSURE LOW row marks. The heuristic's columns go by the
 * heuristic's exposure, not the judge's (red team 25 M3: under a committee with no majority the judge's exposure is
 * undefined, and a heuristic that found nearly every run not_exposed had its rates unmarked).
 */

/** The columns whose figures are the heuristic's labels (marked when its rates carry a caveat or its exposure is low). */
export const HEURISTIC_KEYS: ReadonlySet<string> = new Set(["heuristic_asr_goal", "heuristic_asr_behaviour"]);

/**
 * Exposed runs among a row's attacked ones (positions `att`): by the judge, those with a usable verdict (`judgeB`
 * true/false) not labelled `not_exposed`; by the heuristic, the same over its usable verdicts, and how many it has.
 * @param heurB the heuristic's flags, or null (no heuristic, or the heuristic is the judge): heuristic counts 0.
 * @returns `{ judge, heuristic, heuristicN }` counts of runs.
 */
export function exposedCounts(
  att: readonly number[],
  judgeB: (i: number) => boolean | string | undefined,
  notExposed: (i: number) => boolean,
  heurB: ((i: number) => boolean | string | undefined) | null,
  heurNotExposed: (i: number) => boolean,
): { judge: number; heuristic: number; heuristicN: number } {
  let judge = 0;
  let heuristic = 0;
  let heuristicN = 0;
  for (const r of att) {
    if (typeof judgeB(r) === "boolean" && !notExposed(r)) judge++;
    if (heurB && typeof heurB(r) === "boolean") {
      heuristicN++;
      if (!heurNotExposed(r)) heuristic++;
    }
  }
  return { judge, heuristic, heuristicN };
}

/**
 * A rate or exposure cell of an EXPOSURE LOW row (LaTeX `$^\\circ$`): the heuristic's columns by the heuristic's own
 * exposure, every other rate (the judge's, the calibrated, the refusal rate) and the exposure by the judge's.
 * @param key the column's key (`judge_asr_goal`, `heuristic_asr_behaviour`, ...).
 */
export function exposureMarked(r: { judge_exposure_low: boolean; heuristic_exposure_low: boolean }, key: string): boolean {
  if (HEURISTIC_KEYS.has(key)) return r.heuristic_exposure_low;
  // the refusal rate is over the same runs: mostly not_exposed, it reads low for the same reason (new user 25)
  return r.judge_exposure_low && (key.endsWith("asr_goal") || key.endsWith("asr_behaviour") || key === "judge_exposure" || key === "refusal_rate");
}
