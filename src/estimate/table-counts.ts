/**
 * The count beside a rate of the paper table (`./table.ts`, newuser52 finding 2): a row's `n` is its attacked runs,
 * but a judge's rate (and the refusal rate, exposure, utility under attack, the heuristic's) is over those of them with
 * a usable verdict (or a utility verdict). When the two differ, `25.2 [18.8, 32.9] (36/143)` in the text and
 * `{\scriptsize (36/143)}` in LaTeX: x/n, so every printed rate can be recomputed from what is printed beside it
 * (0.252 x 173 is not an integer; 36/143 is 25.2%). The CSV has `<col>_n` and the HTML report prints x/n on every cell.
 * Calibrated cells (an estimate, not a count) and utility (its own `utility n` column) get none.
 */

/** A cell that may carry a count: a proportion x/n (calibrated cells have no `x`). */
type Counted = { value: number | null; x?: number; n?: number } | null;

/**
 * The count a cell shows, or null: a proportion with a value whose n differs from the row's n (`rowN`).
 * @param p the cell; @param rowN the row's `n_attacked` (undefined: no count shown).
 */
export function shownCount(p: Counted, rowN: number | undefined): { x: number; n: number } | null {
  if (!p || p.value === null || rowN === undefined || typeof p.x !== "number" || typeof p.n !== "number") return null;
  return p.n === rowN ? null : { x: p.x, n: p.n };
}

/** ` (36/143)` in the text, or "" ({@link shownCount}). */
export function countText(p: Counted, rowN: number | undefined): string {
  const c = shownCount(p, rowN);
  return c ? ` (${c.x.toLocaleString("en-US")}/${c.n.toLocaleString("en-US")})` : "";
}

/** ` {\scriptsize (36/143)}` in LaTeX, or "" ({@link shownCount}). */
export function countLatex(p: Counted, rowN: number | undefined): string {
  const c = shownCount(p, rowN);
  return c ? ` {\\scriptsize (${c.x}/${c.n})}` : "";
}

/** The keys of the columns whose cells carry a count (not calibrated, not utility: it has its own n column). */
export const countedKey = (key: string) => !key.startsWith("calibrated") && key !== "utility";

/** The legend of the counts, when some cell shows one (text; LaTeX as a `%` line). */
export const COUNT_LEGEND =
  "(x/n) after a rate: its count over the runs it is over, when fewer than the row's n (the attacked runs): the rest have no usable verdict of the judge (or, utility under attack, no benchmark utility verdict; benchmark asr_goal, not among the runs the judge's asr_goal is over, a committee's disputed runs included, or no usable benchmark attack verdict, or a denial-of-service attack, where security is not the injected goal)";
