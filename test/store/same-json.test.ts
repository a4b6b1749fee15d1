import { describe, expect, it } from "vitest";
import { sameJson } from "../../src/store/same-json.js";

describe("sameJson: true only when the JSON texts are equal", () => {
  const cases: Array<[unknown, unknown]> = [
    [{ a: 1, b: "x" }, { a: 1, b: "x" }],
    [{ a: 1, b: "x" }, { b: "x", a: 1 }], // key order: other text
    [{ a: 1 }, { a: 1, b: undefined }], // same text, different keys: false (conservative)
    [{ a: undefined }, { a: undefined }],
    [{ a: [] }, { a: [] }],
    [{ a: [1, { b: true }] }, { a: [1, { b: true }] }],
    [{ a: [1, { b: true }] }, { a: [1, { b: false }] }],
    [{ a: [1] }, { a: [1, 2] }],
    [{ a: null }, { a: null }],
    [{ a: null }, { a: {} }],
    [{ a: null }, { a: undefined }],
    [{ a: 0 }, { a: -0 }],
    [{ a: NaN }, { a: NaN }], // same text ("null"), said false: conservative
    [{ a: "1" }, { a: 1 }],
    [[], {}],
    [{ 0: "a" }, ["a"]],
    [Object.freeze({ f: Object.freeze([{ b: "x", e: [] }]) }), { f: [{ b: "x", e: [] }] }],
    ["s", "s"],
    [1, 2],
  ];
  it.each(cases.map((c, i) => [i, ...c]))("case %i", (_i, a, b) => {
    const same = JSON.stringify(a) === JSON.stringify(b);
    const said = sameJson(a, b);
    if (said) expect(same).toBe(true); // never a wrong true
    expect(sameJson(b, a)).toBe(said);
  });
  it("is true for equal plain data (what it is for)", () => {
    expect(sameJson({ a: 1, f: [{ b: "x", e: [{ v: true }] }], u: undefined }, { a: 1, f: [{ b: "x", e: [{ v: true }] }], u: undefined })).toBe(true);
    expect(sameJson({ a: 0 }, { a: -0 })).toBe(true);
    expect(sameJson({ a: NaN }, { a: NaN })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });
  it("never says true when the texts differ, over many random values", () => {
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
    const val = (d: number): unknown => {
      const r = Math.random();
      if (d > 2 || r < 0.4) return pick([0, 1, -0, NaN, "a", "b", "", true, false, null, undefined]);
      if (r < 0.7) return Array.from({ length: Math.floor(Math.random() * 3) }, () => val(d + 1));
      const o: Record<string, unknown> = {};
      for (const k of ["x", "y", "z"].filter(() => Math.random() < 0.6)) o[k] = val(d + 1);
      return o;
    };
    for (let n = 0; n < 20000; n++) {
      const a = { s: val(0) };
      const b = Math.random() < 0.5 ? JSON.parse(JSON.stringify(a)) : { s: val(0) };
      if (sameJson(a, b)) expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    }
  });
});
