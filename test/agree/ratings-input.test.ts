/**
 * `agreement` input: an id column is never a rater, an item on several rows is counted once (and reported), and
 * a Label Studio JSON-MIN export (one annotation per task) is recognized and refused with the reason. Before,
 * an unnamed id column became a "rater" whose ids were categories, a repeated item counted twice, and JSON-MIN
 * was "expected {ratings: ...}".
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ratingsAgreement, readRatings, RatingsError } from "../../src/agree/ratings.js";
import { readHumanLabels } from "../../src/agree/human.js";
import { parseAnnotationText } from "../../src/sample/import.js";
import { describeLabelStudioJsonMin } from "../../src/io/label-studio.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ratings-in-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};
const B0 = { B: 0, seed: 1 };

describe("id columns", () => {
  it("a column named like an id is the item id under any of the usual spellings, and never a rater", () => {
    for (const name of ["id", "ID", "item_id", "trajectory_id", "task-id", "itemId", "Item"]) {
      const t = readRatings(write(`${name}.csv`, `${name},alice,bob\nx,a,a\ny,b,a\n`));
      expect(t.raters).toEqual(["alice", "bob"]);
      expect(t.id_column).toEqual({ name, how: "detected" });
      const r = ratingsAgreement(t, { bootstrap: B0 });
      expect(r.notes.join("\n")).toMatch(new RegExp(`column "${name}" holds item ids`));
    }
    // a rater whose name merely ends in "id" is a rater
    expect(readRatings(write("david.csv", "david,sid\na,a\nb,b\n")).raters).toEqual(["david", "sid"]);
  });
  it("a rater column that looks like item ids under another name is refused, naming it; --no-id-column / --id-column decide", () => {
    const f = write("n.csv", "n,alice,bob\nx1,yes,yes\nx2,no,no\nx3,yes,no\nx4,no,no\n");
    expect(() => readRatings(f)).toThrow(RatingsError);
    expect(() => readRatings(f)).toThrow(/column "n" looks like item ids.*--id-column "n"/);
    expect(readRatings(f, { idColumn: false }).raters).toEqual(["n", "alice", "bob"]);
    expect(readRatings(f, { idColumn: "n" }).items).toEqual(["x1", "x2", "x3", "x4"]);
    // numeric ratings that are all distinct but shared with the other rater are ratings
    expect(readRatings(write("num.csv", "a,b\n1,2\n2,3\n3,1\n")).raters).toEqual(["a", "b"]);
  });
  it("two id-like columns are ambiguous: refused, naming both", () => {
    expect(() => readRatings(write("two.csv", "id,item_id,a,b\n1,x,y,y\n"))).toThrow(/several columns read as item ids \(id, item_id\)/);
  });
});

describe("duplicate items", () => {
  const f = () => write("dup.csv", "item_id,alice,bob\nt1,yes,yes\nt2,no,yes\nt1,yes,yes\nt3,no,no\nt4,yes,\nt4,,no\nt5,yes,no\nt5,no,no\n");
  it("identical rows count once, complementary rows merge, contradicting rows leave the item out; all reported with lines", () => {
    const t = readRatings(f());
    expect(t.items).toEqual(["t1", "t2", "t3", "t4"]);
    expect(t.ratings).toEqual([["yes", "yes"], ["no", "yes"], ["no", "no"], ["yes", "no"]]);
    expect(t.duplicates).toEqual([
      { item: "t1", lines: [2, 4], resolution: "identical" },
      { item: "t4", lines: [6, 7], resolution: "merged" },
      { item: "t5", lines: [8, 9], resolution: "conflict_excluded", conflicts: ['alice: "yes" vs "no"'] },
    ]);
    const r = ratingsAgreement(t, { bootstrap: B0 });
    expect(r.items).toBe(4);
    expect(r.two_raters!.n_used).toBe(4);
    expect(r.duplicates).toHaveLength(3);
    const notes = r.notes.join("\n");
    expect(notes).toMatch(/t1 \(lines 2, 4\)/);
    expect(notes).toMatch(/t5 \(lines 8, 9; alice: "yes" vs "no"\)/);
  });
  it("an empty item id is an error naming the line", () => {
    expect(() => readRatings(write("noid.csv", "id,a,b\nx,1,1\n,1,2\n"))).toThrow(/line 3: no item id/);
  });
});

describe("Label Studio JSON-MIN", () => {
  const min = [
    { id: 1, item_id: "s-001", trajectory: "...", label: "unaffected", annotator: 3, annotation_id: 10, created_at: "2025-01-01T00:00:00Z", updated_at: "2025-01-01T00:00:00Z", lead_time: 12.5 },
    { id: 2, item_id: "s-002", trajectory: "...", label: "full_compliance", annotator: 4, annotation_id: 11, created_at: "2025-01-01T00:00:00Z", updated_at: "2025-01-01T00:00:00Z", lead_time: 3.1 },
  ];
  it("is recognized, and the full JSON export and plain rows are not", () => {
    expect(describeLabelStudioJsonMin(min)).toBe("2 tasks, one annotation each, annotators 3, 4");
    expect(describeLabelStudioJsonMin([{ data: { item_id: "x" }, annotations: [] }])).toBeNull();
    expect(describeLabelStudioJsonMin([{ item_id: "x", annotator: "a", label: "unaffected" }])).toBeNull();
  });
  it("agreement refuses it and says why (one annotator per task)", () => {
    const f = write("min.json", JSON.stringify(min));
    expect(() => readRatings(f)).toThrow(/Label Studio JSON-MIN export \(2 tasks.*one annotator per item and agreement between annotators cannot be computed/);
  });
  it("import-annotations imports it with a warning; agree --human refuses the raw export", () => {
    const p = parseAnnotationText(JSON.stringify(min), "min.json");
    expect(p.records.map((r) => [r.item_id, r.label, r.annotator])).toEqual([
      ["s-001", "unaffected", "3"],
      ["s-002", "full_compliance", "4"],
    ]);
    expect(p.warnings?.[0]).toMatch(/min\.json is a Label Studio JSON-MIN export.*agreement between annotators cannot be computed/);
    expect(() => readHumanLabels(write("min2.json", JSON.stringify(min)))).toThrow(/JSON-MIN export.*import-annotations/);
  });
});

describe("labels that differ only in letter case (audit 35 M2)", () => {
  it("categories that differ in Unicode form are refused with words that say so, and escapes (verifier 37 V2.5)", () => {
    const t = readRatings(write("nfd.json", JSON.stringify({ ratings: [["caf\u00e9", "cafe\u0301"], ["\uff42enign", "benign"]] })));
    let msg = "";
    try {
      ratingsAgreement(t, { bootstrap: B0 });
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/^ratings differ only in Unicode composition \(NFC vs NFD[^)]*\), compatibility forms \(NFKC[^)]*\): /);
    expect(msg).not.toMatch(/letter case|spacing/);
    expect(msg).toContain('(written "caf\\u00E9")');
    expect(msg).toContain('(written "cafe\\u0301")');
    expect(msg).toContain('(written "\\uFF42enign")');
  });

  it("found categories that differ only in case are refused, named with their counts; the vector's pair reads neither 0.333 nor a guess", () => {
    // the published vector label_normalisation: ["Benign", "sabotage "] against ["benign", "sabotage"]
    const t = readRatings(write("case.json", JSON.stringify({ ratings: [["Benign", "benign"], ["sabotage ", "sabotage"]] })));
    expect(() => ratingsAgreement(t, { bootstrap: B0 })).toThrow(RatingsError);
    expect(() => ratingsAgreement(t, { bootstrap: B0 })).toThrow(/differ only in letter case: "Benign" \(1\) and "benign" \(1\); one category or two\?/);
    // the surrounding space is dropped when read, so "sabotage " and "sabotage" are one rating, not a clash
    expect(t.ratings[1]).toEqual(["sabotage", "sabotage"]);
    const csv = readRatings(write("case.csv", "a,b\nYes,yes\nno,No\nyes,yes\nyes,yes\nno,no\n"));
    expect(() => ratingsAgreement(csv, { bootstrap: B0 })).toThrow(/"Yes" \(1\) and "yes" \(5\); "no" \(3\) and "No" \(1\)/);
    // a zero-width space makes no new category either, and shows as a marker (verifier 35 L3)
    const zw = readRatings(write("zw.json", JSON.stringify({ ratings: [["full_compliance", "full_compliance\u200b"], ["unaffected", "unaffected"]] })));
    expect(() => ratingsAgreement(zw, { bootstrap: B0 })).toThrow(/"full_compliance" \(1\) and "full_compliance⟨U\+200B⟩" \(1\)/);
  });
  it("declared categories count case variants apart, as declared", () => {
    const t = readRatings(write("case2.json", JSON.stringify({ ratings: [["Benign", "benign"], ["benign", "benign"]] })));
    const r = ratingsAgreement(t, { categories: ["Benign", "benign"], bootstrap: B0 });
    expect(r.categories).toEqual(["Benign", "benign"]);
    expect(r.two_raters).toBeDefined();
  });
});

describe("a key given twice (break44)", () => {
  it("a ratings JSON giving `ratings` twice is refused, naming the key and both values; the same value twice is read", () => {
    const f = write("twice.json", '{"ratings": [["a", "a"], ["b", "b"]], "ratings": [["a", "b"], ["b", "a"]]}');
    expect(() => readRatings(f)).toThrow(RatingsError);
    expect(() => readRatings(f)).toThrow(/key "ratings" given twice with different values \(\[\["a","a"\],\["b","b"\]\], then \[\["a","b"\],\["b","a"\]\]\)/);
    const same = write("same.json", '\ufeff{"ratings": [["a", "a"]], "ratings": [["a", "a"]]}');
    expect(readRatings(same).ratings).toHaveLength(1);
  });
});
