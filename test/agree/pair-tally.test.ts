import { describe, expect, it } from "vitest";
import { compareManyRaters, compareManyRatersCounts, compareTwoRaters, compareTwoRatersTable, PairTally } from "../../src/agree/pairwise.js";
import { ratingCounts } from "../../src/stats/index.js";

const CATS = ["a", "b", "c"];
const TOKENS = ["a", "b", "c", null, undefined, "judge_error", "UNJUDGEABLE", "judge_refused", "unverified"];

describe("PairTally and the count-based comparisons (issue 26: a million items without a label array per rater)", () => {
  it("counts the same table and the same dropped pairs, in the same order, as pairLabels + confusionMatrix", () => {
    let seed = 3;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let round = 0; round < 5; round++) {
      const a = Array.from({ length: 500 }, () => TOKENS[rnd(TOKENS.length)]);
      const b = Array.from({ length: 500 }, () => TOKENS[rnd(TOKENS.length)]);
      const t = new PairTally(CATS);
      a.forEach((x, i) => t.add(x, b[i]));
      const opts = { names: ["x", "y"] as [string, string], bootstrap: { B: 20, seed: round } };
      const want = compareTwoRaters(a, b, CATS, opts);
      expect(Object.keys(t.excluded)).toEqual(Object.keys(want.excluded));
      expect(JSON.stringify(compareTwoRatersTable(t.table, t, CATS, opts))).toBe(JSON.stringify(want));
    }
  });

  it("throws on a label outside the categories, as pairLabels does", () => {
    expect(() => new PairTally(CATS).add("a", "zzz")).toThrow(/outside the declared categories/);
  });

  it("compareManyRatersCounts over shared rows equals compareManyRaters over the ratings", () => {
    let seed = 9;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const grid = Array.from({ length: 400 }, () => Array.from({ length: 3 }, () => (rnd(5) === 0 ? null : CATS[rnd(3)])));
    const shared = new Map<string, number[]>();
    const rows = grid.map((r) => {
      const k = JSON.stringify(r);
      if (!shared.has(k)) shared.set(k, ratingCounts([r], CATS)[0]);
      return shared.get(k)!;
    });
    const opts = { raters: 3, bootstrap: { B: 20, seed: 1 } };
    expect(JSON.stringify(compareManyRatersCounts(rows, CATS, opts))).toBe(JSON.stringify(compareManyRaters(grid, CATS, opts)));
    expect(new Set(rows).size).toBeLessThan(grid.length / 4); // the rows are shared
  });
});
