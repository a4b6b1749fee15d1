/** src/sample/labelless-files.ts: given annotation files with no label (review rev2b #8). */
import { describe, expect, it } from "vitest";
import { labellessRefusal, labellessWarning } from "../../src/sample/labelless-files.js";

const f = (file: string, labelled: number, without: number, format = "csv") => ({ file, format, labelled, without });

describe("labellessRefusal", () => {
  it("refuses when no given file carries a label, whatever the adjudications; the advice fits the format", () => {
    expect(labellessRefusal([f("a.csv", 0, 3)], "h.jsonl", false, 0)).toBe(
      "no row of a.csv carries a label (3 rows/annotations without one): nothing was written (fill in the label column of the sample's tasks file, or import the annotators' own files)",
    );
    expect(labellessRefusal([f("a.csv", 0, 1), f("b.csv", 0, 2)], "h.jsonl", true, 2)).toMatch(
      /^no row of a\.csv, b\.csv carries a label \(3 rows\/annotations without one\); the sample folder's 2 adjudications \(adjudication\.jsonl\) are not imported alone: .*; h\.jsonl is unchanged/,
    );
    expect(labellessRefusal([f("ls.json", 0, 6, "label-studio")], "h", false, 0)).toMatch(/complete the tasks in Label Studio/);
    expect(labellessRefusal([f("a.csv", 1, 3), f("b.csv", 0, 2)], "h", true, 0)).toBeUndefined();
    expect(labellessRefusal([], "h", true, 1)).toBeUndefined();
  });
  it("a header-only file: says it holds no row, not \"(0 rows/annotations without one)\" (newuser55 #5)", () => {
    expect(labellessRefusal([f("a.csv", 0, 0)], "h.jsonl", false, 0)).toBe(
      "no row of a.csv carries a label (the file holds no data row or annotation at all: a header only, or empty): nothing was written (fill in the label column of the sample's tasks file, or import the annotators' own files)",
    );
    expect(labellessRefusal([f("a.csv", 0, 0), f("b.csv", 0, 0)], "h.jsonl", false, 0)).toMatch(/^no row of a\.csv, b\.csv carries a label \(the files hold no data row/);
    expect(labellessWarning([f("a.csv", 4, 0), f("b.csv", 0, 0)])).toMatch(/^1 file given carries no label: b\.csv \(no data row at all\)|carries no label: b\.csv \(no data row at all\)/);
  });
});

describe("labellessWarning", () => {
  it("names each file without a label beside labelled ones; nothing when all or none carry one", () => {
    expect(labellessWarning([f("a.csv", 4, 0), f("b.csv", 0, 1), f("c.csv", 0, 2)])).toMatch(/^2 files given carry no label: b\.csv \(1 row without one\), c\.csv \(2 rows without one\); nothing was imported from them/);
    expect(labellessWarning([f("a.csv", 4, 0)])).toBeUndefined();
    expect(labellessWarning([f("a.csv", 0, 4)])).toBeUndefined();
  });
});
