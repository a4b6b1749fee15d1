import path from "node:path";
import { describe, expect, it } from "vitest";
import { epochsNoteText } from "../../src/store/epochs-note.js";

describe("the run-level note on Inspect epochs (break51 finding 6)", () => {
  it("says label's inspect_epochs warnings, naming the run; nothing without one", () => {
    const s = { ingest_warnings: [{ kind: "passed_over", message: "x" }, { kind: "inspect_epochs", message: "log.json: samples run for several epochs (16 items)" }] };
    expect(epochsNoteText("runs/r", s)).toBe(`${path.resolve("runs/r")}: inspect_epochs: log.json: samples run for several epochs (16 items)`);
    expect(epochsNoteText("r", { ingest_warnings: [] })).toBeUndefined();
    expect(epochsNoteText("r", null)).toBeUndefined();
    expect(epochsNoteText("r", { ingest_warnings: "bad" })).toBeUndefined();
  });
});
