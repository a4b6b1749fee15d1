import { describe, expect, it } from "vitest";
import { shiftedRow, shiftedRowsRefusal, shownItemId } from "../../src/sample/shifted-rows.js";
import { AnnotationImportError, parseAnnotationText } from "../../src/sample/import.js";

// break50 finding 1: a tasks.csv whose item_id column was shifted against its trajectory column (a spreadsheet sort of
// one column) was imported as "60 of 60" and moved kappa 0.734 -> 0.568; each trajectory cell begins "# Item <id>".
const cell = (id: string) => `# Item ${id}\n\n## Injected content\n\n**x**\n`;
const csvOf = (rows: Array<[string, string, string, string]>) =>
  ["item_id,annotator,label,trajectory", ...rows.map(([i, a, l, t]) => `${i},${a},${l},"${t.replace(/"/g, '""')}"`)].join("\n") + "\n";

function refusal(text: string): AnnotationImportError {
  try {
    parseAnnotationText(text, "tasks.csv");
  } catch (e) {
    if (e instanceof AnnotationImportError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("shownItemId / shiftedRow", () => {
  it("reads the id of the cell's first line; a cell without the title shows none", () => {
    expect(shownItemId(cell("ab12-001"))).toBe("ab12-001");
    expect(shownItemId("# Item ab12-001\r\nrest")).toBe("ab12-001");
    expect(shownItemId("free text the user typed")).toBeUndefined();
    expect(shownItemId("")).toBeUndefined();
    expect(shownItemId(undefined)).toBeUndefined();
  });
  it("a row is shifted only when both ids are there and differ (the item_id trimmed, as the importer reads it)", () => {
    expect(shiftedRow("r1", "ab12-002", cell("ab12-001"))).toEqual({ where: "r1", item_id: "ab12-002", shown_item_id: "ab12-001" });
    expect(shiftedRow("r1", " ab12-001 ", cell("ab12-001"))).toBeUndefined();
    expect(shiftedRow("r1", "", cell("ab12-001"))).toBeUndefined();
    expect(shiftedRow("r1", "ab12-001", undefined)).toBeUndefined();
  });
});

describe("import-annotations refuses a shifted tasks.csv", () => {
  it("names every shifted row with its line and both ids, says how to fix, and writes nothing", () => {
    // three rows, the item_id column rotated by one on the first two (labels follow the text shown in each row)
    const e = refusal(
      csvOf([
        ["ab12-002", "ann1", "full_compliance", cell("ab12-001")],
        ["ab12-001", "ann1", "unaffected", cell("ab12-002")],
        ["ab12-003", "ann1", "unaffected", cell("ab12-003")],
      ]),
    );
    expect(e.message).toMatch(/^tasks\.csv: 2 of 3 rows have an item_id that is not the item their trajectory cell shows/);
    expect(e.message).toMatch(/nothing was written/);
    expect(e.message).toMatch(/Fix: undo the sort \(or sort the whole table, all columns together\)/);
    expect(e.problems).toEqual([
      `tasks.csv row 1 (line 2): item_id "ab12-002", but its trajectory cell shows item "ab12-001"`,
      `tasks.csv row 2 (line 8): item_id "ab12-001", but its trajectory cell shows item "ab12-002"`,
    ]);
  });
  it("an aligned tasks.csv, a blank template and a label file keyed by item_id alone import as before", () => {
    const ok = parseAnnotationText(csvOf([["ab12-001", "ann1", "unaffected", cell("ab12-001")], ["ab12-002", "", "", cell("ab12-002")]]), "tasks.csv");
    expect(ok.records.map((r) => r.item_id)).toEqual(["ab12-001", "ab12-002"]);
    const plain = parseAnnotationText("item_id,annotator,label\nab12-002,ann1,unaffected\n", "labels.csv");
    expect(plain.records).toHaveLength(1);
    // a trajectory cell the user replaced by own notes is not checked (nothing to compare)
    expect(parseAnnotationText(csvOf([["ab12-002", "ann1", "unaffected", "my notes"]]), "tasks.csv").records).toHaveLength(1);
  });
  it("the refusal counts rows of the file, one problem per shifted row, over the 50 shown", () => {
    const shifted = Array.from({ length: 60 }, (_, i) => ({ where: `tasks.csv row ${i + 1}`, item_id: `x-${i + 1}`, shown_item_id: `x-${i}` }));
    const r = shiftedRowsRefusal("tasks.csv", shifted, 60);
    expect(r.problems).toHaveLength(60);
    expect(new AnnotationImportError(r.summary, r.problems).message).toMatch(/\.\.\. and 10 more$/);
  });
});
