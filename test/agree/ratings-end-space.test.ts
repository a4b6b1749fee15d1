/**
 * `ipi-judge agreement`'s ratings table compares item ids exactly as stored (fix50b), as label files do (fix50a,
 * ./end-space-ids.test.ts): "t1" and "t1 " were trimmed into one item, whose two contradicting rows then left it out
 * (2 items, kappa 1.000, for 4 items, kappa 0.500).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ratingsAgreement, readRatings, RatingsError } from "../../src/agree/ratings.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ratings-space-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};

describe("ratings table: item ids compared exactly as stored", () => {
  it('"t1" and "t1 " are two items, named in a note; kappa over the four (hand: po 0.75, pe 0.5, kappa 0.5)', () => {
    const t = readRatings(write("end.csv", 'id,alice,bob\nt1,a,a\n"t1 ",b,a\nt2,a,a\nt3,b,b\n'));
    expect(t.items).toEqual(["t1", "t1 ", "t2", "t3"]);
    expect(t.duplicates).toEqual([]);
    expect(t.end_space_ids).toEqual([["t1", "t1 "]]);
    const r = ratingsAgreement(t, { bootstrap: { B: 0, seed: 1 } });
    expect(r.items).toBe(4);
    expect([r.two_raters!.kappa.po, r.two_raters!.kappa.pe]).toEqual([0.75, 0.5]);
    expect(r.two_raters!.kappa.value).toBeCloseTo(0.5, 12);
    expect(r.notes).toContain('1 item id(s) differ from another only by white space at the ends, kept apart (ids are compared exactly as stored): "t1" / "t1 "; if they are one item, correct the ids in the file');
  });

  it("an id of white space only is still no id", () => {
    expect(() => readRatings(write("blank.csv", 'id,alice,bob\nt1,a,a\n"  ",b,a\n'))).toThrow(RatingsError);
  });
});
