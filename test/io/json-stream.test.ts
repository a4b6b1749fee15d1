import { describe, expect, it } from "vitest";
import { writeJson } from "../../src/io/json-stream.js";

/** writeJson's chunks joined, and how many there were. */
function streamed(v: unknown, chunk?: number): { text: string | undefined; chunks: number } {
  const parts: string[] = [];
  writeJson(v, (s) => parts.push(s), chunk === undefined ? {} : { chunk });
  return { text: parts.length ? parts.join("") : undefined, chunks: parts.length };
}

const tricky = [
  "",
  "plain",
  'quote " backslash \\ slash /',
  "controls \u0000\u0001\u0008\t\n\f\r\u001f\u007f",
  "unicode é ü 日本 🦀 \u2028 \u2029",
  "lone surrogates \ud800 x \udc00 \udbff\udfff",
  "<script>&amp;</script>",
];

describe("writeJson: JSON.stringify(x, null, 2) written in chunks", () => {
  it("the same text on hand-picked values", () => {
    const values: unknown[] = [
      null,
      true,
      false,
      0,
      -0,
      1.5e300,
      -2.5e-7,
      NaN,
      Infinity,
      -Infinity,
      ...tricky,
      [],
      {},
      [[]],
      { a: {} },
      [undefined, () => 1, Symbol("s"), null],
      { u: undefined, f: () => 1, s: Symbol("s"), n: null, k: 1 },
      { only: undefined },
      { 2: "b", 1: "a", z: 1, "10": "c", "-1": "d", "01": "e", [Symbol("x")]: 3 },
      Object.fromEntries(tricky.map((t, i) => [t, i])),
      { d: new Date(Date.UTC(2026, 11, 2, 9, 0, 0)), bad: new Date(NaN) },
      { t: { toJSON: (k: string) => `key=${k}` }, arr: [{ toJSON: (k: string) => ({ at: k }) }], gone: { toJSON: () => undefined } },
      // eslint-disable-next-line no-new-wrappers
      [new Number(3), new String("s"), new Boolean(false), Object(Symbol("boxed"))],
      new Map([["a", 1]]),
      new Set([1]),
      new Uint8Array([1, 2, 3]),
      { deep: { er: { est: [1, [2, [3, { x: [] }]]] } } },
      Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
      Object.defineProperty({ shown: 1 }, "hidden", { value: 2, enumerable: false }),
    ];
    for (const v of values) {
      for (const chunk of [undefined, 1, 5]) expect(streamed(v, chunk).text).toBe(JSON.stringify(v, null, 2));
    }
  });

  it("the same text on random nested values, whatever the chunk size, in chunks of about that size", () => {
    let seed = 11;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    const str = () => tricky[rnd(tricky.length)].slice(0, rnd(12)) + String.fromCharCode(rnd(0x3000));
    const gen = (depth: number): unknown => {
      switch (rnd(depth > 4 ? 6 : 9)) {
        case 0: return null;
        case 1: return rnd(2) === 0;
        case 2: return (rnd(2000) - 1000) / [1, 3, 7, 1e-5][rnd(4)];
        case 3: return str();
        case 4: return undefined;
        case 5: return rnd(1e9);
        case 6: return Array.from({ length: rnd(6) }, () => gen(depth + 1));
        default: {
          const o: Record<string, unknown> = {};
          for (let i = rnd(6); i > 0; i--) o[rnd(3) ? str() : String(rnd(20))] = gen(depth + 1);
          return o;
        }
      }
    };
    for (let i = 0; i < 300; i++) {
      const v = gen(0);
      const want = JSON.stringify(v, null, 2);
      for (const chunk of [undefined, 1, 64]) expect(streamed(v, chunk).text).toBe(want);
    }
    const big = Array.from({ length: 20000 }, (_, i) => ({ trajectory_id: `m/${i}/🦀`, judge: i % 2 === 0, reference: i % 3 === 0 }));
    const { text, chunks } = streamed(big, 4096);
    expect(text).toBe(JSON.stringify(big, null, 2));
    expect(chunks).toBeGreaterThan(text!.length / 8192); // written piecewise, never whole
  });

  it("nothing for a value JSON.stringify gives undefined for; a BigInt and a cycle throw as it does", () => {
    for (const v of [undefined, () => 1, Symbol("s"), { toJSON: () => undefined }]) expect(streamed(v)).toEqual({ text: undefined, chunks: 0 });
    expect(() => streamed({ a: 1n })).toThrow(TypeError);
    const c: Record<string, unknown> = { a: 1 };
    c.self = { again: c };
    expect(() => streamed(c)).toThrow(TypeError);
    expect(() => JSON.stringify(c)).toThrow(TypeError);
    // a shared (not circular) object is written twice, as JSON.stringify does
    const shared = { s: 1 };
    expect(streamed({ a: shared, b: [shared] }).text).toBe(JSON.stringify({ a: shared, b: [shared] }, null, 2));
  });
});
