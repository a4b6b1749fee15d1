/**
 * Which trajectories the report's rates are over, beside `compare`'s (review 17, item 2). The report's attack-success
 * rates (per agent model and condition, by condition, attack and surface) are over EVERY cell, as `compare
 * --all-cells`; its paper table is like for like as `estimate --table` (over every cell with `--own-mix`). `compare`
 * by default gives each model's rates per condition over the (suite, user task, injection task, attack) cells common
 * to that model's own conditions (`../compare/cells.ts`,
 * `per_model`). Where that drops trajectories, the two print different figures for the same model and condition
 * (scale and defense runs together: gpt-4o undefended over 15 attacks here, over the 629 cells its defenses ran in
 * compare). The note names each model and condition whose figures differ, with both counts, so a reader comparing
 * the two finds no unexplained number; it is one of the report's warnings, shown at the top and at the rates it
 * concerns ({@link cellsNotesHtml}).
 */
import { commonCellFilter, fieldNoun, groupsNoun } from "../compare/cells.js";
import type { Observations } from "../compare/data.js";
import { escapeHtml } from "./escape.js";

/** How every such note starts (the report's warnings are strings: this finds them). */
export const CELLS_NOTE_PREFIX = "Rates over every cell: ";

/**
 * The note of one field, or null when `compare --by <field>` keeps every trajectory the report counts (the two
 * agree) or cannot make its like-for-like check.
 * @param obs the report's observations of the field (every cell), labelled and unlabelled.
 * @param ownMix the report's paper table is `--own-mix` (its rows over every attacked run, as these rates); else it
 *   is like for like (each model's rows over the cells all its conditions ran), and the note says so (break52 #5:
 *   it said the paper table was over every attacked trajectory, beside a table row cut to shared cells).
 */
export function cellsNote(obs: Observations, ownMix = false): string | null {
  const field = obs.condition_field;
  const { cells } = commonCellFilter([...obs.observations, ...(obs.unlabelled ?? [])], field, "common");
  const diffs: string[] = [];
  // compare's rows: each model on the cells common to its own conditions (what its `per_model` entry dropped)
  for (const [model, pm] of Object.entries(cells.per_model).sort(([a], [b]) => a.localeCompare(b)))
    for (const [cond, x] of Object.entries(pm.dropped).sort(([a], [b]) => a.localeCompare(b)))
      if (x.trajectories > 0) diffs.push(`${model} under ${field} ${cond}: ${x.of} attacked trajectories here, ${x.of - x.trajectories} in compare (${x.trajectories} in cells another ${fieldNoun(field)} of the model lacks)`);
  if (!diffs.length) return null;
  const cond = field === "condition"; // the per-model table and the paper table are by condition (as estimate --table)
  const table = cond && ownMix; // the paper table over every attacked run too (--own-mix)
  const what = cond ? `attack success per agent model and condition, the charts by condition${table ? ", the paper table's rates and utility under attack" : ""}` : `the charts by ${field}`;
  const paper = cond && !ownMix ? "the paper table's rows are like for like instead (each model's rows over the cells all its conditions ran, as estimate --table prints them; --own-mix puts them over every attacked run), so its figures differ from these where its rows say what they left out; " : "";
  return (
    `${CELLS_NOTE_PREFIX}this report's rates by ${field} (${what}) are over every attacked trajectory, as compare --by ${field} --all-cells${table ? " and estimate --table --own-mix print" : " prints"} them; ${paper}` +
    `compare --by ${field} without --all-cells gives each model's rates over the (${cells.cell_fields.join(", ")}) cells common to its own ${groupsNoun(field)}, so its figures differ for ${diffs.join("; ")}`
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
