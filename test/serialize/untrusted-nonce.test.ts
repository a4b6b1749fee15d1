import { describe, expect, it } from "vitest";
import { neutralize, unneutralize } from "../../src/serialize/untrusted.js";
import { HOSTILE_PIECES, Rand, randomText } from "../helpers/rand.js";
import { readCase } from "../evidence/fixtures.js";

/**
 * The nonce escape as it was first written: one regex per nonce. The hand-written scan in untrusted.ts (no
 * regex compiled per nonce) must give exactly the same output.
 */
function refRegex(nonce: string): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const rest = esc(nonce.slice(1));
  return new RegExp(`(?:${esc(nonce[0])}${rest}|&((?:amp;)*)#x([0-9a-f]{1,6});${rest})`, "gi");
}
const sameChar = (code: number, c: string) => String.fromCodePoint(code).toLowerCase() === c.toLowerCase();
const TAG_ONLY = (s: string) => neutralize(s);
function refNeutralize(text: string, nonce: string): string {
  return TAG_ONLY(text).replace(refRegex(nonce), (m, _a: string | undefined, hex: string | undefined) => {
    if (hex === undefined) return `&#x${m.charCodeAt(0).toString(16)};${m.slice(1)}`;
    if (!sameChar(parseInt(hex, 16), nonce[0])) return m;
    return `&amp;${m.slice(1)}`;
  });
}

describe("nonce escape without a regex per nonce", () => {
  const nonces = ["3fa9c0d1e2b4", "a1b2c3d4e5f6", "ABCDEFabcdef", "k00000", "Kk9zZq", "aaaaaaaa", "0a0a0a0a", "f".repeat(64)];
  it("matches the one-regex-per-nonce reference on hostile random text (nonce pieces, escapes, case, Kelvin sign)", () => {
    const r = new Rand(20261129);
    for (const nonce of nonces) {
      const lower = nonce.toLowerCase();
      const pieces = [
        ...HOSTILE_PIECES,
        nonce,
        nonce.toUpperCase(),
        nonce.slice(0, 3),
        nonce.slice(1),
        `&#x${nonce.charCodeAt(0).toString(16)};`,
        `&#X${nonce.charCodeAt(0).toString(16).toUpperCase()};`,
        `&amp;#x${lower.charCodeAt(0).toString(16)};`,
        "&#x41;",
        "\u212a",
        "\u017f",
        lower[0],
      ];
      for (let i = 0; i < 400; i++) {
        const s = randomText(r, r.int(1, 40), pieces);
        const n = neutralize(s, nonce);
        expect(n).toBe(refNeutralize(s, nonce));
        expect(unneutralize(n, nonce)).toBe(s);
      }
    }
  });

  it("real injection text with the nonce planted in it", () => {
    const text = JSON.stringify(readCase("B10.json"));
    for (const nonce of nonces) {
      const s = text.slice(0, 200) + nonce + text.slice(200, 400) + nonce.toUpperCase() + text.slice(400);
      expect(neutralize(s, nonce)).toBe(refNeutralize(s, nonce));
      expect(unneutralize(neutralize(s, nonce), nonce)).toBe(s);
    }
  });

  it("an invalid nonce still throws", () => {
    expect(() => neutralize("x", "ab")).toThrow(/invalid nonce/);
    expect(() => unneutralize("x", "abc-def-ghi")).toThrow(/invalid nonce/);
  });
});
