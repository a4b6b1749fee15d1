import { describe, expect, it } from "vitest";
import { cellsNote, cellsNotesHtml, isCellsNote } from "../../src/report/cells-note.js";
import type { Observations } from "../../src/compare/data.js";

/** Observations of one field: `m` ran base on cells c1..c3 and def on c1, c2; `n` ran both on c1; `l` ran base only, on c9. */
function obs(field: string): Observations {
  const o = (model: string, condition: string, cell: string) => ({ trajectory_id: `${model}/${condition}/${cell}`, model, condition, suite: "s", attack: "a", cell, compromised: false, full: false });
  return {
    source: { kind: "judge", judge_id: "j" },
    condition_field: field,
    observations: [o("m", "base", "c1"), o("m", "base", "c2"), o("m", "base", "c3"), o("m", "def", "c1"), o("m", "def", "c2"), o("n", "base", "c1"), o("n", "def", "c1"), o("l", "base", "c9")],
    n_total: 8,
    excluded: {},
    excluded_groups: [],
  } as unknown as Observations;
}

describe("cellsNote: the report's rates are over every cell; where compare's default differs, it says so with both counts", () => {
  it("names the model and condition compare counts otherwise", () => {
    const w = cellsNote(obs("condition"))!;
    expect(isCellsNote(w)).toBe(true);
    expect(w).toContain('this report\'s rates by condition (the table "Attack success per agent model and condition") are over every attacked trajectory of each row, as compare --by condition --all-cells prints them; ');
    // the charts and the paper table are like for like by default (break52 #5, break53 #2: the note called the charts
    // the all-cells figure beside charts cut to the shared cells)
    expect(w).toContain("the charts by condition and the paper table are like for like instead (each agent model's rates over the (suite, user_task_id, injection_task_id, attack) cells common to its own conditions, as compare --by condition and estimate --table print them)");
    expect(w).not.toContain("the charts by condition) are over every");
    // report --own-mix: the paper table is over every attacked run, as these rates
    const own = cellsNote(obs("condition"), true)!;
    expect(own).toContain("(attack success per agent model and condition, the charts by condition, the paper table's rates and utility under attack) are over every attacked trajectory (--own-mix), as compare --by condition --all-cells and estimate --table --own-mix print them; compare --by condition without");
    expect(own).not.toContain("like for like instead");
    expect(own).toContain("gives each model's rates over the (suite, user_task_id, injection_task_id, attack) cells common to its own conditions, so its figures differ for m under condition base: 3 attacked trajectories here, 2 in compare (1 in cells another condition of the model lacks)");
    expect(w).toContain("so the two differ for m under condition base: 3 attacked trajectories in the per-model table, 2 in the charts, the paper table and compare (1 in cells another condition of the model lacks)");
    expect(w).not.toContain("n under");
    // l ran one condition: compare's row keeps its cell c9, which def lacks (only compare's pooled figures leave it out)
    expect(w).not.toContain("l under");
  });
  it("another field names its charts only, with --own-mix (like for like its charts are compare's rows: no note); no note when compare's rows keep every cell (a model under one condition keeps its own)", () => {
    expect(cellsNote(obs("attack"), true)).toMatch(/rates by attack \(the charts by attack\) .* as compare --by attack --all-cells prints them/);
    expect(cellsNote(obs("attack"))).toBeNull();
    const same = obs("condition");
    same.observations = same.observations.filter((x) => x.cell === "c1" || x.model === "l");
    expect(cellsNote(same)).toBeNull();
  });
  it("each section shows its field's note, escaped", () => {
    const notes = [cellsNote(obs("condition"), true)!, cellsNote(obs("attack"), true)!, "another warning"];
    expect(cellsNotesHtml(notes, "condition").match(/<div class="warn">/g)).toHaveLength(1);
    expect(cellsNotesHtml(notes)).toContain("this report&#39;s rates by attack");
    expect(cellsNotesHtml(["x"])).toBe("");
  });
});
