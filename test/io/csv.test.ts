/**
 * The one CSV reader/writer (src/io/csv.ts) and every command that reads CSV through it. Before it, two
 * hand-written parsers (src/agree/csv.ts, src/sample/import.ts) disagreed on CR-only row ends, `"ab"cd` and
 * lines holding `""`; the same inputs now read the same way in `agreement`, `agree --human` and
 * `import-annotations`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CsvError, parseCsv, parseCsvTable, writeCsv } from "../../src/io/csv.js";
import { readRatings, RatingsError } from "../../src/agree/ratings.js";
import { readHumanLabels, HumanLabelsError } from "../../src/agree/human.js";
import { AnnotationImportError, parseAnnotationText } from "../../src/sample/import.js";
import { CASES } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-csv-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, text: string | Buffer) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};

describe("parseCsv: the three inputs the old parsers disagreed on", () => {
  it("CR-only row ends (old Mac / some spreadsheet exports) are row ends, also mixed with CRLF and LF", () => {
    const r = parseCsv('a,b\r1,"x\ry"\r\n2,z\n3,w');
    expect(r.map((x) => x.fields)).toEqual([["a", "b"], ["1", "x\ry"], ["2", "z"], ["3", "w"]]);
    expect(r.map((x) => x.line)).toEqual([1, 2, 4, 5]);
  });
  it('text after a closing quote ("ab"cd) and a quote inside an unquoted field are errors naming file and line', () => {
    expect(() => parseCsv('h1,h2\nx,y\n"ab"cd,1\n', "f.csv")).toThrow(/^f\.csv line 3: text after a closing quote/);
    expect(() => parseCsv('h1,h2\nab"cd,1\n', "f.csv")).toThrow(/^f\.csv line 2: a quote inside an unquoted field/);
    expect(() => parseCsv('h1\n\n"open\nmore', "f.csv")).toThrow(/^f\.csv line 3: a quoted field is never closed/);
    try {
      parseCsv('h\n"a"b', "g.csv");
    } catch (e) {
      expect(e).toBeInstanceOf(CsvError);
      expect((e as CsvError).line).toBe(2);
    }
  });
  it('a line holding only "" (or only empty fields) is not a record, wherever it is', () => {
    for (const t of ['a,b\n""\n1,2\n', 'a,b\r""\r1,2', 'a,b\r\n"",""\r\n1,2\r\n', "a,b\n,\n1,2\n"]) {
      const r = parseCsv(t);
      expect(r.map((x) => x.fields)).toEqual([["a", "b"], ["1", "2"]]);
      expect(r[1].line).toBe(3);
    }
  });
  it("line numbers count physical lines, with multi-byte text and line breaks inside quotes", () => {
    const r = parseCsv('é,ü\n"1\n2\r\n3","ß"\n\n4,5\n');
    expect(r.map((x) => x.line)).toEqual([1, 2, 6]);
  });
});

describe("D12: newlines inside quoted fields and a forged row in attacker text", () => {
  const file = path.join(CASES, "D12.csv");
  const expected = JSON.parse(fs.readFileSync(path.join(CASES, "D12.expected.json"), "utf8"));
  it("reads three records, the forged z9zz line stays inside a field, and round-trips byte-identical fields", () => {
    const t = parseCsvTable(fs.readFileSync(file), "D12.csv");
    const ids = t.rows.map((r) => r.fields[0]);
    expect(ids).toEqual(expected.records.map((r: { item_id: string }) => r.item_id));
    expect(t.rows.map((r) => r.fields[2])).toEqual(expected.records.map((r: { label: string }) => r.label));
    expect(ids).not.toContain("z9zz");
    expect(t.rows[1].fields[1]).toContain("\r\n\r\nSend the deposit");
    const back = parseCsv(writeCsv([t.header, ...t.rows.map((r) => r.fields)]));
    expect(back.slice(1).map((r) => r.fields)).toEqual(t.rows.map((r) => r.fields));
  });
  it("import-annotations reads it the same way", () => {
    const p = parseAnnotationText(fs.readFileSync(file, "utf8"), "D12.csv");
    expect(p.records.map((r) => [r.item_id, r.label])).toEqual(expected.records.map((r: { item_id: string; label: string }) => [r.item_id, r.label]));
  });
});

describe("writeCsv", () => {
  it("quotes commas, quotes, CR, LF and edge spaces; CRLF row ends", () => {
    expect(writeCsv([["a", "b,c", 'q"', "l\rm", " s", ""]])).toBe('a,"b,c","q""","l\rm"," s",\r\n');
  });
});

describe("every command reads the same CSV the same way", () => {
  const text = 'trajectory_id,annotator,label\r""\rt1,ann,unaffected\rt2,ann,"full_compliance"\r';
  it("agree --human, import-annotations and agreement see the same rows", () => {
    const h = readHumanLabels(write("h.csv", text));
    expect(h.rows.map((r) => [r.trajectory_id, r.label])).toEqual([
      ["t1", "unaffected"],
      ["t2", "full_compliance"],
    ]);
    expect(h.bad_rows).toEqual([]);
    const a = parseAnnotationText(text, "a.csv");
    expect(a.records.map((r) => [r.trajectory_id, r.label, r.where])).toEqual([
      ["t1", "unaffected", "a.csv row 1 (line 3)"],
      ["t2", "full_compliance", "a.csv row 2 (line 4)"],
    ]);
    const r = readRatings(write("r.csv", 'trajectory_id,x,y\r""\rt1,a,a\rt2,"b",a\r'));
    expect(r.items).toEqual(["t1", "t2"]);
    expect(r.ratings).toEqual([["a", "a"], ["b", "a"]]);
  });
  it("malformed quoting is an error naming the file and line in each command", () => {
    const bad = 'trajectory_id,annotator,label\nt1,ann,"un"affected\n';
    expect(() => readHumanLabels(write("bad.csv", bad))).toThrow(HumanLabelsError);
    expect(() => readHumanLabels(write("bad.csv", bad))).toThrow(/bad\.csv line 2: text after a closing quote/);
    expect(() => parseAnnotationText(bad, "bad.csv")).toThrow(AnnotationImportError);
    expect(() => parseAnnotationText(bad, "bad.csv")).toThrow(/bad\.csv line 2: text after a closing quote/);
    expect(() => readRatings(write("bad.csv", bad))).toThrow(RatingsError);
    expect(() => readRatings(write("bad.csv", bad))).toThrow(/bad\.csv line 2: text after a closing quote/);
  });
});

describe("writeCsv: formula injection (red team 36 M1)", () => {
  it("a text a spreadsheet would run as a formula gets a ' before it; numbers written as text do not", () => {
    expect(writeCsv([["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tx", "-1.5", "+2", "3e-4", "-12.5%", 7, -3]], { rowEnd: "\n" })).toBe(
      "'=cmd|' /C calc'!A0,'+1+1,'-2+3,'@SUM(A1),'\tx,-1.5,+2,3e-4,-12.5%,7,-3\n",
    );
  });
});
