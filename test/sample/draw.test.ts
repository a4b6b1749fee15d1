import { describe, expect, it } from "vitest";
import { compareCodeUnits, drawWithoutReplacement, seededRng, seededShuffle } from "../../src/sample/draw.js";

const items = Array.from({ length: 10 }, (_, i) => `t${i}`);

describe("seeded draws", () => {
  it("the same seed and stream give the same draw; streams and seeds differ", () => {
    const a = drawWithoutReplacement(seededRng(7, "phase1"), items, 4);
    const b = drawWithoutReplacement(seededRng(7, "phase1"), items, 4);
    expect(a).toEqual(b);
    const other = [1, 2, 3, 4, 5].map((s) => drawWithoutReplacement(seededRng(s, "phase1"), items, 4).join());
    expect(new Set(other).size).toBeGreaterThan(1);
    expect(seededShuffle(seededRng(7, "shuffle"), items)).not.toEqual(seededShuffle(seededRng(7, "phase1"), items));
  });
  it("returns the chosen items in input order, without repeats", () => {
    for (let s = 0; s < 50; s++) {
      const d = drawWithoutReplacement(seededRng(s, "x"), items, 6);
      expect(new Set(d).size).toBe(6);
      expect(d).toEqual([...d].sort((x, y) => items.indexOf(x) - items.indexOf(y)));
    }
    expect(drawWithoutReplacement(seededRng(1, "x"), items, 0)).toEqual([]);
    expect(drawWithoutReplacement(seededRng(1, "x"), items, 10)).toEqual(items);
    expect(() => drawWithoutReplacement(seededRng(1, "x"), items, 11)).toThrow(/cannot draw 11 of 10/);
  });
  it("is a simple random sample: every item has chance k/n, every pair k(k-1)/(n(n-1))", () => {
    const R = 20000;
    const n = 6;
    const k = 2;
    const count = new Array(n).fill(0);
    const pairs = new Map<string, number>();
    const rng = seededRng(123, "srs");
    for (let r = 0; r < R; r++) {
      const d = drawWithoutReplacement(rng, [0, 1, 2, 3, 4, 5], k);
      for (const x of d) count[x]++;
      pairs.set(d.join(), (pairs.get(d.join()) ?? 0) + 1);
    }
    const p = k / n;
    for (const c of count) expect(Math.abs(c / R - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / R));
    expect(pairs.size).toBe(15);
    const pp = 1 / 15;
    for (const c of pairs.values()) expect(Math.abs(c / R - pp)).toBeLessThan(4 * Math.sqrt((pp * (1 - pp)) / R));
  });
  it("a shuffle is a permutation, uniform over positions", () => {
    const R = 12000;
    const pos = Array.from({ length: 4 }, () => new Array(4).fill(0));
    const rng = seededRng(5, "shuffle");
    for (let r = 0; r < R; r++) {
      const s = seededShuffle(rng, [0, 1, 2, 3]);
      expect([...s].sort()).toEqual([0, 1, 2, 3]);
      s.forEach((x, i) => pos[x][i]++);
    }
    for (const row of pos) for (const c of row) expect(Math.abs(c / R - 0.25)).toBeLessThan(4 * Math.sqrt((0.25 * 0.75) / R));
  });
  it("rejects a bad seed; sorts by code units, not locale", () => {
    expect(() => seededRng(-1, "x")).toThrow(RangeError);
    expect(() => seededRng(1.5, "x")).toThrow(RangeError);
    expect(["b", "B", "a", "É"].sort(compareCodeUnits)).toEqual(["B", "a", "b", "É"]);
  });
});
