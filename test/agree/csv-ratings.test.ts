import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CsvError, parseCsv } from "../../src/io/csv.js";
import { categoriesOf, ratingsAgreement, readRatings, RatingsError } from "../../src/agree/ratings.js";
import { compareManyRaters, compareTwoRaters } from "../../src/agree/pairwise.js";
import { VECTORS } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ratings-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};

describe("parseCsv", () => {
  it("quotes, doubled quotes, line breaks in quotes, CRLF, BOM, blank lines, a last line without newline", () => {
    const r = parseCsv('\ufeffa,b\r\n"x, y","say ""hi"""\n\n"multi\nline",\n,last');
    expect(r.map((x) => x.fields)).toEqual([["a", "b"], ["x, y", 'say "hi"'], ["multi\nline", ""], ["", "last"]]);
    expect(r.map((x) => x.line)).toEqual([1, 2, 4, 6]);
  });
  it("rejects an unterminated quote and text after a closing quote", () => {
    expect(() => parseCsv('a\n"open')).toThrow(CsvError);
    expect(() => parseCsv('"a"b,c')).toThrow(/after a closing quote/);
  });
});

describe("readRatings and categoriesOf", () => {
  it("CSV: empty cells are missing; an id column is not a rater; numeric categories sort numerically", () => {
    const f = write("r.csv", "id,ann1,ann2\nx,10,2\ny,,10\nz,2,9\n");
    const t = readRatings(f, { idColumn: "id" });
    expect(t).toMatchObject({ raters: ["ann1", "ann2"], ratings: [["10", "2"], [null, "10"], ["2", "9"]], items: ["x", "y", "z"], duplicates: [] });
    expect(categoriesOf(t)).toEqual(["2", "9", "10"]);
    expect(categoriesOf({ raters: ["a"], ratings: [["b"], ["a"]] })).toEqual(["b", "a"]);
    expect(categoriesOf(t, ["10", "9", "2"])).toEqual(["10", "9", "2"]);
    expect(() => readRatings(f, { idColumn: "nope" })).toThrow(/no column "nope"/);
    expect(() => readRatings(write("long.csv", "a,b\n1,2,3\n"))).toThrow(/line 2: 3 fields but the header \(line 1\) has 2/);
  });
  it("a first column with a distinct value on every row and more rows than categories is an id, not a rater (red team 05)", () => {
    // header n, ids 1..6 overlapping ratings 1..3: counted as a rater it gave alpha 0.363 instead of 0.756
    const f = write("numid.csv", "n,a,b\n1,1,1\n2,2,2\n3,1,2\n4,3,3\n5,2,2\n6,1,1\n");
    expect(() => readRatings(f)).toThrow(RatingsError);
    expect(() => readRatings(f)).toThrow(/column "n" looks like item ids.*--id-column "n".*--no-id-column/);
    const t = readRatings(f, { idColumn: "n" });
    expect(t.raters).toEqual(["a", "b"]);
    expect(readRatings(f, { idColumn: false }).raters).toEqual(["n", "a", "b"]);
    // a first rater whose ratings happen to be distinct, with as many categories as items, is still a rater
    const g = write("distinct.csv", "a,b\n1,1\n2,3\n3,2\n");
    expect(readRatings(g).raters).toEqual(["a", "b"]);
  });
  it("NA, N/A, na and n.a. cells are missing, not a category", () => {
    const f = write("na.csv", "a,b\nx,y\nNA,y\nx,N/A\nna,x\nn.a.,y\n");
    const t = readRatings(f);
    expect(t.ratings).toEqual([["x", "y"], [null, "y"], ["x", null], [null, "x"], [null, "y"]]);
    expect(categoriesOf(t)).toEqual(["x", "y"]);
    const j = write("na.json", JSON.stringify({ ratings: [["x", "N/A"], ["na", "y"]] }));
    expect(readRatings(j).ratings).toEqual([["x", null], [null, "y"]]);
  });
  it("JSON: categories, raters, null and short rows are missing", () => {
    const f = write("r.json", JSON.stringify({ categories: ["yes", "no"], raters: ["p", "q", "r"], ratings: [["yes", null, "no"], ["no"]] }));
    expect(readRatings(f)).toEqual({ raters: ["p", "q", "r"], ratings: [["yes", null, "no"], ["no", null, null]], categories: ["yes", "no"] });
    expect(() => readRatings(write("bad.json", JSON.stringify({ ratings: [{}] })))).toThrow(RatingsError);
    expect(() => readRatings(write("obj.json", JSON.stringify({ ratings: [[{ a: 1 }]] })))).toThrow(/not a string or number/);
  });
});

describe("ratingsAgreement", () => {
  it("two raters give the two-rater block; a label outside declared categories throws", () => {
    const r = ratingsAgreement({ raters: ["a", "b"], ratings: [["y", "y"], ["n", "y"], ["n", "n"], [null, "n"]] }, { categories: ["y", "n"], bootstrap: { B: 0, seed: 1 } });
    expect(r.two_raters!.n_used).toBe(3);
    expect(r.two_raters!.excluded).toEqual({ missing: 1 });
    // [[1,0],[1,1]]: p_o = 2/3, p_e = (1·2 + 2·1)/9 = 4/9, kappa = (6 − 4)/(9 − 4) = 2/5
    expect(r.two_raters!.kappa.value).toBeCloseTo(2 / 5, 12);
    expect(() => ratingsAgreement({ raters: ["a", "b"], ratings: [["y", "maybe"]] }, { categories: ["y", "n"], bootstrap: { B: 0, seed: 1 } })).toThrow(/"maybe"/);
    expect(() => ratingsAgreement({ raters: ["a"], ratings: [["y"]] }, { bootstrap: { B: 0, seed: 1 } })).toThrow(/two raters/);
  });
  it("three raters: Fleiss on complete items matches the published Fleiss (1971) value", () => {
    const v = JSON.parse(fs.readFileSync(path.join(VECTORS, "fleiss_1971_diagnoses.json"), "utf8"));
    const ratings = v.raw_subject_by_rater.map((r: number[]) => r.map(String));
    const raters = ["1", "2", "3", "4", "5", "6"];
    const r = ratingsAgreement({ raters, ratings }, { categories: ["1", "2", "3", "4", "5"], weights: "linear", bootstrap: { B: 200, seed: 2 } });
    expect(r.two_raters).toBeUndefined();
    expect(r.many_raters.fleiss.value).toBeCloseTo(v.expected.kappa, 7);
    expect(r.many_raters.fleiss.ci_bootstrap!.B).toBe(200);
    expect(r.notes.join(" ")).toMatch(/--weights is ignored/);
  });
});

describe("compareTwoRaters / compareManyRaters", () => {
  it("undefined coefficients are null with reasons (one category used), never NaN", () => {
    const c = compareTwoRaters(["a", "a"], ["a", "a"], ["a", "b"], { bootstrap: { B: 50, seed: 1 } });
    expect(c.kappa.value).toBeNull();
    expect(c.kappa.reason).toBe("undefined_single_category");
    expect(c.kappa.ci_bootstrap!.lower).toBeNull();
    expect(c.ac1.value).toBe(1);
    const m = compareManyRaters([["a", "a", "a"], ["a", null, null]], ["a", "b"], { bootstrap: { B: 50, seed: 1 } });
    expect(m.fleiss.value).toBeNull();
    expect(m.alpha.value).toBeNull();
    expect(JSON.stringify([c, m])).not.toMatch(/NaN|Infinity/);
    const empty = compareTwoRaters([], [], ["a", "b"], { bootstrap: { B: 10, seed: 1 } });
    expect(empty.kappa.reason).toBe("empty_input");
    expect(empty.kappa.ci_bootstrap).toBeUndefined();
  });
});
