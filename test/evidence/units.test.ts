import { describe, expect, it } from "vitest";
import { unitScratch, unitsToString } from "../../src/evidence/units.js";

describe("unitsToString", () => {
  const cases = ["", "abc", "caf\u00e9 \u00ff", "\u2019quote\u2019", "\ud83d\ude00 emoji", "lone \ud800 high", "lone \udc00 low", "\u0000nul"];
  it("equals String.fromCharCode over the same units (one-byte, two-byte, lone surrogates)", () => {
    for (const s of cases) {
      const u = new Uint16Array(s.length + 3).fill(0x41);
      for (let k = 0; k < s.length; k++) u[k] = s.charCodeAt(k);
      expect(unitsToString(u, s.length)).toBe(s);
    }
  });
  it("reads only the first len units, from a subarray too", () => {
    const u = new Uint16Array([0x78, 0x61, 0x62, 0x2019, 0x63]);
    expect(unitsToString(u.subarray(1), 2)).toBe("ab");
    expect(unitsToString(u.subarray(1), 3)).toBe("ab\u2019");
  });
  it("unitScratch grows to the size asked and is reused", () => {
    const a = unitScratch(10);
    expect(a.length).toBeGreaterThanOrEqual(10);
    expect(unitScratch(5)).toBe(a);
    expect(unitScratch(a.length + 1).length).toBeGreaterThan(a.length);
  });
});
