import { describe, expect, it } from "vitest";
import { HashColumn, IdSlots, Interner, PairTable } from "../../src/store/compact.js";

describe("compact per-trajectory structures (issue 26)", () => {
  it("PairTable is an exact map of (a, b) pairs: no two keys confused, across growth", () => {
    const t = new PairTable();
    const ref = new Map<string, number>();
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 50_000; i++) {
      const a = rnd() % 20_000;
      const b = rnd() % 7;
      t.set(a, b, i);
      ref.set(`${a},${b}`, i);
    }
    expect(t.size).toBe(ref.size);
    for (const [k, v] of ref) {
      const [a, b] = k.split(",").map(Number);
      expect(t.get(a, b)).toBe(v);
    }
    expect(t.get(20_001, 0)).toBe(-1);
    expect([...t.entries()].length).toBe(ref.size);
  });

  it("HashColumn gives back exactly what was set: 64-hex as bytes, anything else as it is", () => {
    const h = new HashColumn();
    const a = "ab".repeat(32);
    h.set(5000, a);
    h.set(3, "not-a-hash");
    h.set(4, "");
    expect(h.get(5000)).toBe(a);
    expect(h.equals(5000, a)).toBe(true);
    expect(h.equals(5000, "ab".repeat(31) + "ac")).toBe(false);
    expect(h.equals(5000, a.toUpperCase())).toBe(false);
    expect(h.get(3)).toBe("not-a-hash");
    expect(h.equals(3, "not-a-hash")).toBe(true);
    expect(h.has(4)).toBe(true);
    expect(h.get(4)).toBe("");
    expect(h.has(6)).toBe(false);
    h.set(3, a);
    expect(h.get(3)).toBe(a);
    h.clear(3);
    expect(h.has(3)).toBe(false);
  });

  it("IdSlots and Interner: exact, first-seen order, one copy of each id", () => {
    const ids = new IdSlots();
    const x = ["run", "a"].join("/");
    expect(ids.slot(x)).toBe(0);
    expect(ids.slot("run/b")).toBe(1);
    expect(ids.find("run/a")).toBe(0);
    expect(ids.find("run/c")).toBe(-1);
    expect(ids.canonical("run" + "/a")).toBe(x);
    const i = new Interner();
    expect(i.code("ok")).toBe(0);
    expect(i.code("judge_error")).toBe(1);
    expect(i.code("ok")).toBe(0);
    expect(i.value(1)).toBe("judge_error");
    expect(i.find("nope")).toBe(-1);
  });
});
