import { describe, expect, it } from "vitest";
import { HashPool } from "../../src/store/hash-pool.js";

const hex = (k: number) => k.toString(16).padStart(64, "0");

describe("HashPool remembers the last value it coded or found", () => {
  it("gives the codes it gives without the memo: repeats, equal copies, odd values, the empty string, absent values", () => {
    const p = new HashPool();
    const a = hex(1);
    const copy = (hex(1) + " ").trim(); // equal value, another string
    expect(p.find(a)).toBe(-1);
    expect(p.find(a)).toBe(-1); // an absent value is not remembered as found
    const ca = p.code(a);
    expect(p.code(a)).toBe(ca);
    expect(p.find(copy)).toBe(ca);
    expect(p.find("")).toBe(-1);
    const ce = p.code(""); // not 64 hex digits: an odd code (<= -2)
    expect(ce).toBeLessThanOrEqual(-2);
    expect(p.code("")).toBe(ce);
    expect(p.find("")).toBe(ce);
    const cb = p.code(hex(2));
    expect(new Set([ca, cb, ce]).size).toBe(3);
    expect(p.find(a)).toBe(ca);
    expect(p.value(ca)).toBe(a);
    expect(p.value(ce)).toBe("");
    for (let k = 3; k < 3000; k++) expect(p.code(hex(k))).toBe(p.find(hex(k)));
    expect(p.find(a)).toBe(ca);
    expect(p.value(p.find(hex(2999)))).toBe(hex(2999));
  });
});
