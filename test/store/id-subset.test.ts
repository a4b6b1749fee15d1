import { describe, expect, it } from "vitest";
import { IdTable } from "../../src/store/id-table.js";
import { IdSubset } from "../../src/store/id-subset.js";

/** ids with unicode, an astral character beside U+E000-U+FFFF (the compare's turned-round case) and a lone surrogate */
const IDS = ["a/1", "a/2", "b/é", "b/🦀", "b/\ue000", "c/\ud800", "c/x", "d/\uffff", "d/𝔘", "e", "", "f/\udc00z"];

/** A table of IDS, the subset keeping `keep` (slots of the table, in that order), and a table of the kept ids alone. */
function made(keep: number[]): { base: IdTable; sub: IdSubset; own: IdTable } {
  const base = new IdTable();
  for (const id of IDS) base.add(id);
  const slotMap = new Int32Array(base.size).fill(-1);
  keep.forEach((s, k) => (slotMap[s] = k));
  const own = new IdTable();
  for (const s of keep) own.add(base.id(s));
  return { base, sub: new IdSubset(base, Uint32Array.from(keep), slotMap), own };
}

describe("IdSubset: some slots of an id table seen as a table of their own (issue 26 point 3)", () => {
  for (const keep of [[0, 2, 3, 4, 5, 7, 8, 11], [11, 5, 3, 0], [9], [...IDS.keys()]])
    it(`answers as a table holding the kept ids (${keep.length} of ${IDS.length})`, () => {
      const { sub, own } = made(keep);
      expect(sub.size).toBe(own.size);
      for (let s = 0; s < own.size; s++) expect(sub.id(s)).toBe(own.id(s));
      for (const id of [...IDS, "nosuch", "\ud801"]) expect(sub.slotOf(id)).toBe(own.slotOf(id));
      for (let a = 0; a < own.size; a++) for (let b = 0; b < own.size; b++) expect(Math.sign(sub.compare(a, b))).toBe(Math.sign(own.compare(a, b)));
      expect(() => sub.id(own.size)).toThrow(RangeError);
      expect(() => sub.id(-1)).toThrow(RangeError);
    });

  it("adds an id it does not hold (dropped from the base's kept slots, or new) after the kept ones, as a table would", () => {
    const { base, sub, own } = made([0, 2, 3, 6]);
    for (const id of ["a/2", "zz/new", "c/\ud800", "a/1", "zz/new", "\udfff"]) {
      expect(sub.add(id)).toBe(own.add(id));
      expect(sub.size).toBe(own.size);
    }
    for (let s = 0; s < own.size; s++) expect(sub.id(s)).toBe(own.id(s));
    for (const id of [...IDS, "zz/new", "\udfff", "nosuch"]) expect(sub.slotOf(id)).toBe(own.slotOf(id));
    for (let a = 0; a < own.size; a++) for (let b = 0; b < own.size; b++) expect(Math.sign(sub.compare(a, b))).toBe(Math.sign(own.compare(a, b)));
    expect(base.size).toBe(IDS.length); // the base table is not added to
  });

  it("does not hold an id added to the base table after it was made", () => {
    const { base, sub } = made([1, 4]);
    base.add("later");
    expect(sub.slotOf("later")).toBe(-1);
    expect(sub.add("later")).toBe(2);
    expect(sub.id(2)).toBe("later");
  });
});
