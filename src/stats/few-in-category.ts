/**
 * A 2 x 2 kappa that rests on a handful of items (new user 44: `agree --reference security --where condition=progent`
 * read kappa, AC1 and PABAK 1.000 over 360 runs from the table 1/0/0/359, its Wald interval undefined (SE 0), and
 * nothing said that one run carried it). When a rater used a category fewer than {@link FEW_IN_CATEGORY} times (but
 * at least once: a category never used is `./one-category.ts`'s case), kappa is dominated by those few items: one
 * label the other way moves it far. The caveat names the counts and the kappa one changed label can give: every
 * single relabel is tried (one item's label changed on either side: up to eight moves, onto the diagonal as well as
 * off it), and the one farthest from the table's kappa is said. Until stats55 finding 2 only the moves off the
 * diagonal were tried, so a table with nothing on it (kappa -1.000, every move giving -0.500) read "leaves it
 * undefined", which no single relabel does.
 */
import { cohenKappa } from "./cohen.js";

/** Fewer uses of a category than this on either side: the kappa is said to rest on few items. */
export const FEW_IN_CATEGORY = 5;

/** The mark every output puts on a kappa {@link fewInCategory} flags (CLI lines, the HTML report's tables). */
export const FEW_ITEMS = "FEW ITEMS";

/**
 * The caveat line of a flagged kappa as every output says it: `FEW ITEMS: <text>` (`what`: which kappa, when a
 * line could mean several: `FEW ITEMS (binary): ...`). The CLI's agree/committee/agreement lines and the report's
 * warning boxes, one wording.
 */
export function fewItemsLine(f: Pick<FewInCategory, "text">, what?: string): string {
  return `${FEW_ITEMS}${what ? ` (${what})` : ""}: ${f.text}`;
}

/** What {@link fewInCategory} finds. */
export interface FewInCategory {
  /** the fewest uses of a category by either rater (1 .. FEW_IN_CATEGORY - 1) */
  fewest: number;
  /**
   * the kappa one changed label gives (any single relabel, either side) farthest from the table's own, the lowest on
   * a tie (null when no move gives a defined kappa)
   */
  kappa_one_changed: number | null;
  text: string;
}

/**
 * The caveat for a 2 x 2 table (module docstring), or null when every category is used at least
 * {@link FEW_IN_CATEGORY} times by both raters, or some category not at all.
 * @param table [[a, b], [c, d]]: rows the rater (yes, no), columns the reference (yes, no).
 * @param names how the categories and raters are named in the text; `counts`: where the output shows the table's
 *   counts (default "below": `agree --reference` prints them under the caveat).
 */
export function fewInCategory(table: readonly (readonly number[])[], names: { rater: string; reference: string; yes: string; no: string; counts?: string }): FewInCategory | null {
  const [[a, b], [c, d]] = table;
  const rows = [a + b, c + d];
  const cols = [a + c, b + d];
  const fewest = Math.min(...rows, ...cols);
  if (fewest === 0 || fewest >= FEW_IN_CATEGORY) return null;
  const base = cohenKappa(table).value;
  const moved: number[] = [];
  let undefinedMoves = 0;
  const tryMove = (t: number[][]) => {
    const k = cohenKappa(t).value;
    if (k !== null && Number.isFinite(k)) moved.push(k);
    else undefinedMoves++;
  };
  // one item's label changed: the rater's moves a <-> c and b <-> d (same column), the reference's a <-> b and c <-> d
  if (a > 0) tryMove([[a - 1, b], [c + 1, d]]), tryMove([[a - 1, b + 1], [c, d]]);
  if (b > 0) tryMove([[a, b - 1], [c, d + 1]]), tryMove([[a + 1, b - 1], [c, d]]);
  if (c > 0) tryMove([[a + 1, b], [c - 1, d]]), tryMove([[a, b], [c - 1, d + 1]]);
  if (d > 0) tryMove([[a, b + 1], [c, d - 1]]), tryMove([[a, b], [c + 1, d - 1]]);
  const far = (k: number) => (base === null ? 0 : Math.abs(k - base));
  const low = moved.length ? moved.reduce((x, y) => (far(y) > far(x) || (far(y) === far(x) && y < x) ? y : x)) : null;
  const said =
    low === null
      ? "leaves it undefined"
      : `can take kappa to ${low.toFixed(3)}${undefinedMoves ? " (or leave it undefined)" : ""}`;
  const uses = `${names.reference} ${names.yes} ${cols[0]}, ${names.no} ${cols[1]}; ${names.rater} ${names.yes} ${rows[0]}, ${names.no} ${rows[1]}`;
  return {
    fewest,
    kappa_one_changed: low,
    text:
      `kappa rests on few items: a category was used ${fewest} time${fewest === 1 ? "" : "s"} (${uses}; fewer than ${FEW_IN_CATEGORY}), so one label the other way ` +
      said +
      `; read the counts ${names.counts ?? "below"}, not the coefficient, and pool more runs before quoting it`,
  };
}
