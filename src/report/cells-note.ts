/**
 * Which trajectories the report's rates are over, beside `compare`'s (review 17, item 2). By default (like for
 * like) only the table "Attack success per agent model and condition" is over EVERY cell (each row its own runs, as
 * `compare --all-cells`); the charts by condition, attack and surface and the paper table are over each model's
 * (suite, user task, injection task, attack) cells common to its own values, as `compare` and `estimate --table`
 * (`../compare/cells.ts`, `per_model`; ./condition-views.ts). With `--own-mix` every rate of the report is over every
 * cell. Where the two populations differ, the two print different figures for the same model and condition (scale
 * and defense runs together: gpt-4o undefended 27.2% over 6,775 runs in the per-model table, 49.8% over the 629 cells
 * its defenses ran in the charts); the note names each model and condition whose figures differ, with both counts
 * and which of the report's figures is over which (break53 #2: it said the charts were over every attacked
 * trajectory, beside charts cut to the shared cells); it is one of the report's warnings, shown at the top and at the
 * rates it concerns ({@link cellsNotesHtml}).
 */
import { commonCellFilter, fieldNoun, groupsNoun } from "../compare/cells.js";
import type { Observations } from "../compare/data.js";
import { escapeHtml } from "./escape.js";

/** How every such note starts (the report's warnings are strings: this finds them). */
export const CELLS_NOTE_PREFIX = "Rates over every cell: ";

/**
 * The note of one field, or null when `compare --by <field>` keeps every trajectory the report counts (the two
 * agree), cannot make its like-for-like check, or (like for like) no figure of the report by the field is over every
 * cell (attack, surface: only their charts, like for like).
 * @param obs the report's observations of the field (every cell), labelled and unlabelled.
 * @param ownMix the report's paper table is `--own-mix` (its rows over every attacked run, as these rates); else it
 *   is like for like (each model's rows over the cells all its conditions ran), and the note says so (break52 #5:
 *   it said the paper table was over every attacked trajectory, beside a table row cut to shared cells).
 */
export function cellsNote(obs: Observations, ownMix = false): string | null {
  const field = obs.condition_field;
  const { cells } = commonCellFilter([...obs.observations, ...(obs.unlabelled ?? [])], field, "common");
  const diffs: Array<{ model: string; cond: string; of: number; kept: number; left: number }> = [];
  // compare's rows: each model on the cells common to its own conditions (what its `per_model` entry dropped)
  for (const [model, pm] of Object.entries(cells.per_model).sort(([a], [b]) => a.localeCompare(b)))
    for (const [cond, x] of Object.entries(pm.dropped).sort(([a], [b]) => a.localeCompare(b)))
      if (x.trajectories > 0) diffs.push({ model, cond, of: x.of, kept: x.of - x.trajectories, left: x.trajectories });
  const named = (here: string, there: string) =>
    diffs.map((d) => `${d.model} under ${field} ${d.cond}: ${d.of} attacked trajectories ${here}, ${d.kept} in ${there} (${d.left} in cells another ${fieldNoun(field)} of the model lacks)`).join("; ");
  if (!diffs.length) return null;
  const cond = field === "condition"; // the per-model table and the paper table are by condition (as estimate --table)
  const over = `the (${cells.cell_fields.join(", ")}) cells common to its own ${groupsNoun(field)}`;
  if (!ownMix) {
    // like for like (the default): the charts by every field and the paper table are over each model's shared cells,
    // as compare's default; only the per-model table by condition is over every run (break53 #2: this note said the
    // charts were over every attacked trajectory, beside charts cut to the shared cells)
    if (!cond) return null; // nothing by this field is over every cell: the charts are compare's own rows
    return (
      `${CELLS_NOTE_PREFIX}this report's rates by condition (the table "Attack success per agent model and condition") are over every attacked trajectory of each row, as compare --by condition --all-cells prints them; ` +
      `the charts by condition and the paper table are like for like instead (each agent model's rates over ${over}, as compare --by condition and estimate --table print them), so the two differ for ` +
      named("in the per-model table", "the charts, the paper table and compare")
    );
  }
  const what = cond ? "attack success per agent model and condition, the charts by condition, the paper table's rates and utility under attack" : `the charts by ${field}`;
  return (
    `${CELLS_NOTE_PREFIX}this report's rates by ${field} (${what}) are over every attacked trajectory (--own-mix), as compare --by ${field} --all-cells${cond ? " and estimate --table --own-mix print" : " prints"} them; ` +
    `compare --by ${field} without --all-cells gives each model's rates over ${over}, so its figures differ for ${named("here", "compare")}`
  );
}

/** True for a note of {@link cellsNote}. */
export function isCellsNote(w: string): boolean {
  return w.startsWith(CELLS_NOTE_PREFIX);
}

/**
 * The notes among the report's warnings, as HTML warning blocks for a section (empty string when none).
 * @param field only the note of this field (the per-model table is by `condition`); all when absent.
 */
export function cellsNotesHtml(warnings: readonly string[], field?: string): string {
  const notes = warnings.filter((w) => isCellsNote(w) && (field === undefined || w.includes(` rates by ${field} (`)));
  return notes.map((w) => `<div class="warn">${escapeHtml(w)}</div>`).join("");
}
