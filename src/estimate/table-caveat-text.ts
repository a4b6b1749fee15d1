/**
 * The judge's and the heuristic's rate caveats in `estimate --table`'s text (`formatTable` of ./table.ts): a mark on
 * each figure they qualify (`*` the judge's columns, `**` the heuristic's, as the LaTeX's ⋆ and ⋆⋆), explained in a
 * legend right under the table. Session 39: the caveat was a column at the far right of a row already wider than a
 * terminal, the same text on every row, far from the figures it qualifies. The CSV keeps its columns.
 */
import { rateCaveatMarker, type RateCaveat } from "../verdict/rate-caveat.js";
import { HEURISTIC_KEYS } from "./table-exposure.js";

/** The columns whose figures are the judge's labels (marked when its rates carry a caveat). */
export const JUDGE_KEYS: ReadonlySet<string> = new Set(["judge_asr_goal", "judge_asr_behaviour", "refusal_rate", "judge_exposure"]);

/** The mark of the judge's figures, and of the heuristic's. */
export const JUDGE_CAVEAT_MARK = "*";
export const HEURISTIC_CAVEAT_MARK = "**";

/**
 * What the text table marks: `cell(key, text)` adds the mark to a figure of a column the caveats qualify; `legend(cols)`
 * the lines that say each mark (the caveat's marker, `[JUDGE x LOOKS BROKEN: see the warning]`, and the columns it
 * is on), `[]` without caveats.
 */
export function caveatMarks(t: { rate_caveats?: readonly RateCaveat[]; heuristic_rate_caveats?: readonly RateCaveat[] }): {
  cell: (key: string, text: string) => string;
  legend: (cols: ReadonlyArray<{ key: string; title: string }>) => string[];
} {
  const judge = rateCaveatMarker(t.rate_caveats ?? []).trim();
  const heuristic = rateCaveatMarker(t.heuristic_rate_caveats ?? []).trim();
  const markOf = (key: string) => (judge && JUDGE_KEYS.has(key) ? JUDGE_CAVEAT_MARK : heuristic && HEURISTIC_KEYS.has(key) ? HEURISTIC_CAVEAT_MARK : "");
  return {
    cell: (key, text) => (markOf(key) && text ? `${text} ${markOf(key)}` : text),
    legend: (cols) => {
      const on = (keys: ReadonlySet<string>) => cols.filter((c) => keys.has(c.key)).map((c) => c.title).join(", ");
      // a kind of column the table does not show (the heuristic's when it is the judge) has no figure to explain
      return [
        ...(judge && on(JUDGE_KEYS) ? [`${JUDGE_CAVEAT_MARK} judge caveat ${judge}: on the judge's figures (${on(JUDGE_KEYS)})`] : []),
        ...(heuristic && on(HEURISTIC_KEYS) ? [`${HEURISTIC_CAVEAT_MARK} heuristic caveat ${heuristic}: on the heuristic's figures (${on(HEURISTIC_KEYS)})`] : []),
      ];
    },
  };
}
