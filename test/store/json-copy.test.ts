import { describe, expect, it } from "vitest";
import { jsonCopy } from "../../src/store/json-copy.js";

const viaJson = (x: unknown) => {
  const s = JSON.stringify(x);
  return s === undefined ? undefined : JSON.parse(s);
};

describe("jsonCopy", () => {
  it("equals JSON.parse(JSON.stringify(x)) on JSON's edge cases", () => {
    const cases: unknown[] = [
      undefined,
      null,
      0,
      -0,
      NaN,
      Infinity,
      "s",
      true,
      [1, undefined, () => 1, Symbol("x"), NaN, -0, [undefined]],
      { a: undefined, b: () => 1, c: Symbol("x"), d: NaN, e: -Infinity, f: -0, g: null, h: [], i: {} },
      { "2": "two", "1": "one", b: 1, a: 2 },
      { when: new Date(0), boxed: [new Number(3), new String("x"), new Boolean(false)], map: new Map([[1, 2]]) },
      { own: { toJSON: () => ({ replaced: true }) } },
      JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
      Object.assign(Object.create(null), { n: 1, u: undefined }),
      { nested: { deep: [{ x: [1, { y: undefined, z: "ok" }] }] } },
    ];
    for (const c of cases) {
      const got = jsonCopy(c);
      expect(got).toStrictEqual(viaJson(c));
      expect(JSON.stringify(got)).toBe(JSON.stringify(c));
    }
  });

  it("shares no object with its input", () => {
    const x = { a: { b: [1, { c: 2 }] } };
    const y = jsonCopy(x);
    expect(y).toEqual(x);
    expect(y.a).not.toBe(x.a);
    expect(y.a.b).not.toBe(x.a.b);
    expect(y.a.b[1]).not.toBe(x.a.b[1]);
  });

  it("keeps an own __proto__ field as JSON.parse does", () => {
    const x = JSON.parse('{"__proto__": {"x": 1}}');
    const y = jsonCopy(x);
    expect(Object.getPrototypeOf(y)).toBe(Object.prototype);
    expect(Object.keys(y)).toEqual(["__proto__"]);
  });

  it("throws as JSON.stringify does on a bigint", () => {
    expect(() => jsonCopy({ n: 1n })).toThrow(TypeError);
  });
});
