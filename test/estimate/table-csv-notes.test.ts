import { describe, expect, it } from "vitest";
import { csvCaveatColumns, csvNotesCell, CSV_NOTE_SEPARATOR } from "../../src/estimate/table-csv-notes.js";

describe("the paper table's CSV caveat and notes columns (break51 finding 5)", () => {
  const notes = [
    "judge: signature; asr_goal = full compliance ...",
    "population: every attacked run of each row (n)",
    'WARNING: judge "signature": 6 of its 12 compliance labels (0 full_compliance) are on trajectories with a tool call whose arguments are not valid JSON (verdicts marked tool_arguments_invalid)',
    "note: the run is limited\nto 100 inputs",
    "WARNING: /runs/x: same_file_other_cell: 206 input files are byte-identical copies",
  ];
  it("notes: every WARNING and note line, in order, line breaks as spaces; the description and legends left out", () => {
    expect(csvNotesCell(notes)).toBe([notes[2], "note: the run is limited to 100 inputs", notes[4]].join(CSV_NOTE_SEPARATOR));
    expect(csvNotesCell(notes.slice(0, 2))).toBe("");
  });
  it("judge_caveat and notes always; heuristic_caveat only with one", () => {
    expect(csvCaveatColumns(notes.slice(0, 2), "", "")).toEqual({ header: ["judge_caveat", "notes"], cells: ["", ""] });
    expect(csvCaveatColumns([], "broken", "h broken")).toEqual({ header: ["judge_caveat", "heuristic_caveat", "notes"], cells: ["broken", "h broken", ""] });
  });
});
