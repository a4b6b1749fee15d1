import { describe, expect, it } from "vitest";
import { escapedAt, neutralize, newNonce, TAG_NAMES, unneutralize } from "../../src/serialize/untrusted.js";
import { HOSTILE_PIECES, Rand, randomText } from "../helpers/rand.js";
import { readCase } from "../evidence/fixtures.js";

const LIVE_TAG = new RegExp(`<\\s*\\/?\\s*(?:${TAG_NAMES.join("|")})`, "i");

describe("neutralize", () => {
  it("makes every B10 payload variant inert but visible", () => {
    const c = readCase("B10.json");
    for (const payload of Object.values<string>(c.tool_result_payloads)) {
      const n = neutralize(payload);
      expect(n).not.toMatch(/<\s*\/?\s*untrusted_trajectory\s*>/i);
      expect(n).not.toMatch(LIVE_TAG);
      expect(n).toContain("&lt;");
      expect(unneutralize(n)).toBe(payload);
    }
    expect(neutralize("</untrusted_trajectory>")).toBe("&lt;/untrusted_trajectory>");
    expect(neutralize("</UNTRUSTED_TRAJECTORY >")).toBe("&lt;/UNTRUSTED_TRAJECTORY >");
    expect(neutralize("</ untrusted_trajectory>")).toBe("&lt;/ untrusted_trajectory>");
    expect(neutralize("<judge_instructions>")).toBe("&lt;judge_instructions>");
    expect(neutralize("< / Message_1 >")).toBe("&lt; / Message_1 >");
    expect(neutralize("<\n/tool_result>")).toBe("&lt;\n/tool_result>");
  });
  it("covers every scaffolding name, in any case", () => {
    for (const name of TAG_NAMES) {
      for (const v of [name, name.toUpperCase(), `${name}_x`, `${name[0].toUpperCase()}${name.slice(1)}s`]) {
        expect(neutralize(`<${v}>`)).toBe(`&lt;${v}>`);
        expect(neutralize(`</${v}>`)).toBe(`&lt;/${v}>`);
      }
    }
  });
  it("leaves other angle brackets alone", () => {
    for (const s of ["<INFORMATION>", "a < b and c > d", "<b>bold</b>", "x<-y", "<", "<<", "<3 messages", "</div>"]) {
      expect(neutralize(s)).toBe(s);
    }
  });
  it("escapes text that already looks like an escape, so the round trip is exact", () => {
    expect(neutralize("&lt;system")).toBe("&amp;lt;system");
    expect(neutralize("&amp;lt;/judge")).toBe("&amp;amp;lt;/judge");
    expect(neutralize("&LT;Tool")).toBe("&amp;LT;Tool");
    expect(neutralize("&lt;b>")).toBe("&lt;b>");
    for (const s of ["&lt;system", "&amp;lt;/judge", "&LT;Tool", "<system>&lt;system&amp;lt;system"]) expect(unneutralize(neutralize(s))).toBe(s);
  });
  it("escapes the nonce, reversibly", () => {
    const nonce = newNonce();
    const s = `the wrapper is untrusted_trajectory_${nonce} and ${nonce.toUpperCase()} and &#x${nonce.charCodeAt(0).toString(16)};${nonce.slice(1)}`;
    const n = neutralize(s, nonce);
    expect(n.toLowerCase()).not.toContain(nonce);
    expect(unneutralize(n, nonce)).toBe(s);
  });
  it("round-trips random hostile strings, with and without a nonce", () => {
    const r = new Rand(42);
    for (let i = 0; i < 5000; i++) {
      const nonce = i % 2 === 0 ? undefined : r.pick(["a1b2c3d4e5f6", "0123456789ab", "ffffff000000", newNonce()]);
      const pieces = nonce
        ? [...HOSTILE_PIECES, nonce, nonce.toUpperCase(), nonce.slice(0, 5), nonce.slice(1), `&#x${nonce.charCodeAt(0).toString(16)};`, "&amp;#x"]
        : HOSTILE_PIECES;
      const s = randomText(r, r.int(0, 30), pieces);
      const n = neutralize(s, nonce);
      expect(unneutralize(n, nonce), JSON.stringify([s, nonce])).toBe(s);
      expect(n).not.toMatch(LIVE_TAG);
      if (nonce) expect(n.toLowerCase().includes(nonce.toLowerCase()), JSON.stringify([s, nonce])).toBe(false);
    }
  });
  it("is the identity on text with nothing to escape", () => {
    const r = new Rand(3);
    const safe = HOSTILE_PIECES.filter((p) => !p.includes("<") && !p.includes("&"));
    for (let i = 0; i < 500; i++) {
      const s = randomText(r, r.int(0, 30), safe);
      expect(neutralize(s)).toBe(s);
      expect(unneutralize(s)).toBe(s);
    }
  });
  it("rejects an unusable nonce", () => {
    expect(() => neutralize("x", "ab")).toThrow(/invalid nonce/);
    expect(() => neutralize("x", "abc def ghi")).toThrow(/invalid nonce/);
  });
});

describe("newNonce", () => {
  it("is 13 lowercase hex characters, one of 16 digit-letter pairs first, and fresh each time", () => {
    const seen = new Set<string>();
    const heads = new Map<string, number>();
    const tailChars = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const n = newNonce();
      expect(n).toMatch(/^[0-9][a-f][0-9a-f]{11}$/);
      seen.add(n);
      heads.set(n.slice(0, 2), (heads.get(n.slice(0, 2)) ?? 0) + 1);
      for (const c of n.slice(2)) tailChars.add(c);
    }
    expect(seen.size).toBe(20_000);
    // 4 random bits pick the head: all 16, each about 1/16 of the time (1,250 expected; 5 sigma ~ 170)
    expect(heads.size).toBe(16);
    for (const c of heads.values()) expect(Math.abs(c - 1250)).toBeLessThan(200);
    expect(tailChars.size).toBe(16);
  });
});

describe("escapes naming no character", () => {
  it("&#x110000; and above followed by the rest of the nonce are plain text, not an escaped nonce (they used to throw RangeError)", () => {
    for (const nonce of ["9fabcdef01234", "abcdef"]) {
      for (const s of [`&#x110000;${nonce.slice(1)}`, `&#xffffff;${nonce.slice(1)}`, `&amp;#xffffff;${nonce.slice(1)}`, `x &#x10ffff;${nonce.slice(1)} y`]) {
        const n = neutralize(s, nonce);
        expect(unneutralize(n, nonce)).toBe(s);
        expect(unneutralize(s, nonce)).toBe(s);
      }
    }
  });
});

describe("escapedAt", () => {
  it("is true exactly where neutralize escapes (random hostile strings, with fullwidth and zero-width pieces)", () => {
    const r = new Rand(29);
    const pieces = [...HOSTILE_PIECES, "\uff1c", "\ufe64", "&\uff4ct;", "<\u200b", "<\ufeff"];
    for (let i = 0; i < 3000; i++) {
      const s = randomText(r, r.int(0, 30), pieces);
      // neutralize rebuilt from escapedAt alone: '<' -> '&lt;', an escape-like '&' -> '&amp;'
      let rebuilt = "";
      for (let k = 0; k < s.length; k++) rebuilt += escapedAt(s, k) ? (s[k] === "<" ? "&lt;" : "&amp;") : s[k];
      expect(rebuilt, JSON.stringify(s)).toBe(neutralize(s));
    }
  });
  it("is false at a fullwidth '＜', at a '<' a zero-width space keeps from the name, and past the end", () => {
    expect(escapedAt("a <tool", 2)).toBe(true);
    expect(escapedAt("a \uff1ctool", 2)).toBe(false);
    expect(escapedAt("a <\u200btool", 2)).toBe(false);
    expect(escapedAt("a <tool", 1)).toBe(false);
    expect(escapedAt("a <tool", 99)).toBe(false);
  });
});
