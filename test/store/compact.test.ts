import { describe, expect, it } from "vitest";
import { FloatColumn, HashColumn, HashPool, IdSlots, IntColumn, Interner, PairTable } from "../../src/store/compact.js";
import { Utf8Column } from "../../src/store/utf8-column.js";

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

  it("PairTable.TIGHT (load 0.7, 1.5x growth) is the same exact map", () => {
    const t = new PairTable(PairTable.TIGHT);
    const ref = new Map<string, number>();
    for (let i = 0; i < 30_000; i++) {
      const a = (i * 7919) % 12_345;
      const b = i % 5;
      t.set(a, b, i);
      ref.set(`${a},${b}`, i);
    }
    expect(t.size).toBe(ref.size);
    for (const [k, v] of ref) {
      const [a, b] = k.split(",").map(Number);
      expect(t.get(a, b)).toBe(v);
    }
    expect(t.get(12_345, 0)).toBe(-1);
    expect(t.get(0, 9)).toBe(-1);
    const all = [...t.entries()];
    expect(all.length).toBe(ref.size);
    for (const [a, b, v] of all) expect(ref.get(`${a},${b}`)).toBe(v);
  });

  it("IntColumn is exact narrow (one byte) and after widening; FloatColumn keeps 0, NaN and any other value", () => {
    const c = new IntColumn();
    const d = new IntColumn(0);
    for (let i = 0; i < 3000; i++) {
      c.set(i, (i % 257) - 1);
      d.set(i, i % 7);
    }
    expect(c.get(5)).toBe(4);
    expect(c.get(3000)).toBe(-1);
    expect(d.get(3000)).toBe(0);
    expect(d.get(13)).toBe(6);
    c.set(10, 1_000_000);
    c.set(11, -5);
    expect(c.get(10)).toBe(1_000_000);
    expect(c.get(11)).toBe(-5);
    for (let i = 12; i < 3000; i++) expect(c.get(i)).toBe((i % 257) - 1);
    const f = new FloatColumn();
    f.set(0, 0);
    f.set(1, 0.0125);
    f.set(5000, -0);
    f.set(3, NaN);
    expect(f.get(0)).toBe(0);
    expect(f.get(1)).toBe(0.0125);
    expect(Object.is(f.get(5000), -0)).toBe(true);
    expect(f.get(3)).toBeNaN();
    expect(f.get(2)).toBeNaN();
    expect(f.get(99_999)).toBeNaN();
  });

  it("IdSlots is exact across growth, for ASCII and non-ASCII ids, and gives each id back", () => {
    const ids = new IdSlots();
    const names: string[] = [];
    for (let i = 0; i < 20_000; i++) names.push(i % 3 === 0 ? `run/é-${i}/ü` : i % 3 === 1 ? `run/t${i}` : `run/🙂${i}`);
    names.forEach((n, i) => expect(ids.slot(n)).toBe(i));
    expect(ids.size).toBe(names.length);
    names.forEach((n, i) => {
      expect(ids.find(n)).toBe(i);
      expect(ids.id(i)).toBe(n);
    });
    expect(ids.find("run/t")).toBe(-1);
    expect(ids.find("run/t1 ")).toBe(-1);
    expect(ids.find("")).toBe(-1);
    expect(ids.slot("")).toBe(names.length);
    expect(ids.find("")).toBe(names.length);
    expect(() => ids.id(names.length + 1)).toThrow(RangeError);
  });

  it("IdSlots never confuses two ids whose table hashes collide: the bytes decide", () => {
    const ids = new IdSlots();
    // force every id to one hash: the table then holds a single probe chain, and only the byte comparison separates ids
    const h = ids as unknown as { hashOf: (s: string) => number };
    const real = h.hashOf.bind(ids);
    h.hashOf = (s) => (real(s), 42); // still encodes a non-ASCII id, as the lookup needs
    const names = ["a", "b", "ab", "ba", "é", "e\u0301", "run/x", "run/x/"];
    names.forEach((n, i) => expect(ids.slot(n)).toBe(i));
    names.forEach((n, i) => expect(ids.find(n)).toBe(i));
    expect(ids.find("c")).toBe(-1);
  });

  it("HashPool: one code per distinct value, exact, 64-hex held as bytes and anything else as it is", () => {
    const p = new HashPool();
    const hs: string[] = [];
    for (let i = 0; i < 5_000; i++) hs.push(i.toString(16).padStart(8, "0").repeat(8));
    hs.forEach((h, i) => expect(p.code(h)).toBe(i));
    hs.forEach((h, i) => {
      expect(p.find(h)).toBe(i);
      expect(p.code(h)).toBe(i);
      expect(p.value(i)).toBe(h);
    });
    expect(p.find("f".repeat(64))).toBe(-1);
    const odd = p.code("ABC");
    expect(odd).toBeLessThan(-1);
    expect(p.value(odd)).toBe("ABC");
    expect(p.find("abc")).toBe(-1);
    expect(p.code("")).not.toBe(odd);
    expect(() => p.value(-1)).toThrow(RangeError);
    const a = new HashColumn(p);
    const b = new HashColumn(p);
    a.set(1, hs[3]);
    b.set(9, hs[3]);
    expect(a.get(1)).toBe(hs[3]);
    expect(b.equals(9, hs[3])).toBe(true);
    expect(b.equals(9, hs[4])).toBe(false);
    expect(a.has(2)).toBe(false);
  });

  it("Utf8Column gives back each string set, an overwrite replaces it", () => {
    const c = new Utf8Column();
    const xs = Array.from({ length: 3_000 }, (_, i) => (i % 2 ? `file-${i}.json` : `fïle-${i}-🙂.json`));
    xs.forEach((x, i) => c.set(i, x));
    xs.forEach((x, i) => expect(c.get(i)).toBe(x));
    expect(c.has(3_000)).toBe(false);
    expect(c.get(3_000)).toBe("");
    c.set(5, "");
    expect(c.has(5)).toBe(true);
    expect(c.get(5)).toBe("");
    c.set(4, "other.json");
    expect(c.get(4)).toBe("other.json");
    expect(c.equals(4, "other.json", true)).toBe(true);
    expect(c.equals(4, "other.jso", true)).toBe(false);
  });
});
