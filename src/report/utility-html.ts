/**
 * The report's utility per agent model and condition under the paper table (`compare/utility.ts`: each row over every
 * run of its model and condition, attacked for "under attack", unattacked runs of the user's own tasks for "without
 * attack"). The paper table above is like for like by default (each model's rows over the cells all its conditions
 * ran, its utility on their user tasks): over other runs, the two gave opposite readings of a defense's utility cost
 * with nothing saying which was over what (break53 #1: gpt-4o no_defense 59.9% (4,055/6,775) here, 50.1% (315/629)
 * in the table; tool_filter 56.3% (354/629) in both: a cost read here, a gain like for like). So the sub-table says
 * what its rows are over in its heading and, in every cell whose runs differ from the table's row, prints the table's
 * like-for-like figure beside it with its counts; with `--own-mix` (the table over every run too) the heading says so.
 */
import { escapeHtml } from "./escape.js";
import type { UtilityCell } from "../compare/utility.js";

/** A paper-table proportion as the report renders it (`propCell` of ./html.ts). */
type Prop = { value: number | null; reason?: string; ci95: { lower: number; upper: number } | null; x?: number; n?: number } | null;

/** What this module reads of a paper-table row. */
interface UtilityRow {
  agent_model: string;
  condition: string | null;
  utility: Prop;
  utility_under_attack: Prop;
}

/**
 * The sub-table, or "" when the run has no utility or one condition.
 * @param cells the report's utility per (model, condition) (every run of each).
 * @param table the paper table's rows and whether they are like for like (`null`: no paper table shown).
 * @param propCell the report's proportion cell renderer (`31.9% [27.0%, 37.2%] (76/97)`).
 * @returns HTML: heading, a note of what each row is over, the table.
 */
export function utilitySubTableHtml(cells: readonly UtilityCell[], table: { rows: readonly UtilityRow[]; likeForLike: boolean } | null, propCell: (p: Prop) => string): string {
  if (!cells.length || new Set(cells.map((u) => u.condition)).size < 2) return "";
  const lfl = !!table?.likeForLike;
  const row = (u: UtilityCell) => table?.rows.find((r) => r.agent_model === u.model && (r.condition ?? "") === u.condition);
  let differs = 0;
  // the table's figure beside this one where it is over other runs (its n differs), never two bare numbers
  const beside = (own: UtilityCell["under_attack"], theirs: Prop | undefined) => {
    if (!lfl || !theirs || theirs.n === undefined || theirs.n === own.n) return "";
    differs++;
    return `<br><span class="over">like for like (the table above): ${propCell(theirs)}</span>`;
  };
  const body = cells
    .map((u) => {
      const r = row(u);
      const ua = propCell({ value: u.under_attack.rate, reason: u.under_attack.reason, ci95: u.under_attack.ci95, x: u.under_attack.passed, n: u.under_attack.n });
      const wa = propCell({ value: u.without_attack.rate, reason: u.without_attack.reason, ci95: u.without_attack.ci95, x: u.without_attack.passed, n: u.without_attack.n });
      return `<tr><td>${escapeHtml(u.model)}</td><td>${escapeHtml(u.condition)}</td><td>${ua}${beside(u.under_attack, r?.utility_under_attack)}</td><td>${wa}${beside(u.without_attack, r?.utility)}</td></tr>`;
    })
    .join("");
  const heading = lfl
    ? "Utility per agent model and condition, each row over all its own runs (NOT like for like across conditions: the table above is)"
    : "Utility per agent model and condition, each row over all its own runs";
  const note = lfl
    ? `Each row: utility under attack over every attacked run of the model and condition, utility without attack over its unattacked runs of the user's own tasks (x/n: passed / runs with a utility verdict). The table above gives utility like for like (each model's rows over the cells all its conditions ran, on their user tasks); ${differs ? `where a row here is over other runs, its like-for-like figure is beside it (${differs} cell${differs === 1 ? "" : "s"}): compare conditions with those, not with the figures over each row's own runs, which mix different cells` : "every row here is over the same runs as the table's"}.`
    : "Each row: utility under attack over every attacked run of the model and condition, utility without attack over its unattacked runs of the user's own tasks (x/n: passed / runs with a utility verdict), as the rows of the table above are.";
  // the heading and note are this module's own words (no name from the run): as they are
  return `<h3>${heading}</h3><p class="note">${note.replace(/'/g, "&#39;")}</p><table><thead><tr><th>agent model</th><th>condition</th><th>utility under attack</th><th>utility without attack</th></tr></thead><tbody>${body}</tbody></table>`;
}
