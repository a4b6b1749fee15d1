import { describe, expect, it } from "vitest";
import { IntColumn } from "../../src/store/compact.js";

/** A plain model of IntColumn: a map with `fill` for what was never set (Int32 truncation aside: values are small ints here). */
function check(fill: number, ops: Array<[number, number]>, probe: number) {
  const c = new IntColumn(fill, 16);
  const m = new Map<number, number>();
  for (const [i, v] of ops) {
    c.set(i, v);
    m.set(i, v);
    for (let k = 0; k < probe; k++) expect(c.get(k), `fill ${fill} after set(${i}, ${v}): get(${k})`).toBe(m.get(k) ?? fill);
  }
}

describe("IntColumn holds nothing while every value is its own index, set in order (issue 26)", () => {
  it("gives back what was set, before and after leaving that form, for fills 0, -1 and -2", () => {
    for (const fill of [0, -1, -2]) {
      const id = (n: number) => Array.from({ length: n }, (_, k) => [k, k] as [number, number]);
      check(fill, id(40), 45); // stays in the form
      check(fill, [...id(20), [5, 5], [3, 3]], 25); // a value set again to its index: unchanged
      check(fill, [...id(20), [20, 7]], 25); // a value other than its index: materialized, narrow
      check(fill, [...id(20), [25, 25]], 30); // its own index but not next: materialized
      check(fill, [...id(20), [3, fill]], 25); // back to fill (a superseded place)
      check(fill, [...id(20), [4, 100000]], 25); // wide
      check(fill, [...id(300), [299, 1]], 310); // past a byte: materialized wide
      check(fill, [[0, 1], [1, 1]], 5); // not its index from the start
      check(fill, [[3, 3]], 5);
    }
  });
  it("reads a never-set index as fill, and a negative or fractional one below the length as an array would (NaN)", () => {
    const c = new IntColumn(-1);
    for (let k = 0; k < 10; k++) c.set(k, k);
    expect(c.get(10)).toBe(-1);
    expect(c.get(1e9)).toBe(-1);
    expect(c.get(-1)).toBeNaN();
    expect(c.get(2.5)).toBeNaN();
    const d = new IntColumn(-1);
    d.set(0, 3);
    expect(d.get(-1)).toBeNaN();
    expect(d.get(2.5)).toBeNaN();
  });
  it("materializes a long run of its own indexes exactly (wide) and goes on growing", () => {
    const c = new IntColumn();
    for (let k = 0; k < 100_000; k++) c.set(k, k);
    c.set(100_000, 5);
    for (let k = 0; k < 100_000; k += 997) expect(c.get(k)).toBe(k);
    expect(c.get(100_000)).toBe(5);
    c.set(250_000, 250_000);
    expect(c.get(250_000)).toBe(250_000);
    expect(c.get(200_000)).toBe(-1);
  });
});
