import { describe, expect, it } from "vitest";
import { DROPPED, FOLD, normalize, normalizeWithMap, originalSlice } from "../../src/evidence/normalize.js";
import { HOSTILE_PIECES, Rand, randomText } from "../helpers/rand.js";

/**
 * Independent reference: the DESIGN section 2 steps on the whole string, one after the other, repeated until
 * the text no longer changes (lowercasing can un-normalize, NFKC can produce uppercase).
 */
function reference(s: string): string {
  let t = s;
  for (let i = 0; i < 5; i++) {
    const next = referenceOnce(t);
    if (next === t) break;
    t = next;
  }
  return t;
}
function referenceOnce(s: string): string {
  const fold = (x: string) => [...x].map((c) => FOLD.get(c.codePointAt(0)!) ?? c).join("");
  let t = [...s].filter((c) => !DROPPED.has(c.codePointAt(0)!)).join("");
  t = fold(fold(t).normalize("NFKC"));
  t = t.replace(/[\s\u0085]+/g, " ").trim();
  // U+0130 lowercases to i + U+0307; the dot is dropped (test/data/cases/D11)
  return [...t].map((c) => c.toLowerCase()).join("").replace(/i\u0307/g, "i");
}

describe("normalize: DESIGN section 2 steps", () => {
  it("folds curly quotes, primes and every dash to ASCII", () => {
    expect(normalize("\u2018a\u2019 \u201ab\u201b \u201cc\u201d \u201ed\u201f \u2032 \u2035 \u02bc")).toBe(`'a' 'b' "c" "d" ' ' '`);
    expect(normalize("\u2033x\u2036")).toBe('"x"');
    for (const d of ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\ufe58", "\ufe63", "\uff0d"]) {
      expect(normalize(`a${d}b`)).toBe("a-b");
    }
  });
  it("drops zero-width characters, soft hyphens and BOMs", () => {
    expect(normalize("ig\u200bno\u200cre\u200d pre\u2060vi\ufeffous in\u00adstructions")).toBe("ignore previous instructions");
  });
  it("drops every default-ignorable code point and the other invisible fillers (break49 F4)", () => {
    const missing: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (/\p{Default_Ignorable_Code_Point}/u.test(String.fromCodePoint(cp)) && !DROPPED.has(cp)) missing.push(cp.toString(16));
    }
    expect(missing).toEqual([]);
    // each of these made a faithful quote of an account number "not found"
    for (const c of ["\u3164", "\u115f", "\u206a", "\u180b", "\u{1d173}", "\ufff9", "\u2800", "\uffa0", "\u{e0100}"]) {
      expect(normalize(`send money to US13${c}3000000121212121212`)).toBe("send money to us133000000121212121212");
    }
  });
  it("never makes a dropped character out of a kept one (so dropping first keeps it idempotent)", () => {
    const bad: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if ((cp >= 0xd800 && cp <= 0xdfff) || DROPPED.has(cp)) continue;
      const n = normalize(String.fromCodePoint(cp));
      for (const c of n) if (DROPPED.has(c.codePointAt(0)!)) bad.push(cp.toString(16));
    }
    expect(bad).toEqual([]);
  });
  it("collapses every kind of whitespace run to one space and trims", () => {
    expect(normalize(" \t a \n\n b\u00a0\u00a0c\u2003d\u3000e\u2028f\r\ng\u0085h  ")).toBe("a b c d e f g h");
    expect(normalize("   ")).toBe("");
    expect(normalize("")).toBe("");
  });
  it("applies NFKC (ligatures, fullwidth, roman numerals, ellipsis, composition)", () => {
    expect(normalize("\ufb01le \uff21\uff22 \u2167 wait\u2026")).toBe("file ab viii wait...");
    expect(normalize("e\u0301")).toBe("\u00e9");
    expect(normalize("\uff76\uff9e")).toBe("\u30ac");
  });
  it("case-folds with toLowerCase per code point (no final-sigma context, no ß -> ss)", () => {
    expect(normalize("HeLLo WORLD")).toBe("hello world");
    expect(normalize("ΟΔΟΣ")).toBe("οδοσ");
    expect(normalize("STRASSE Straße")).toBe("strasse straße");
  });
  it("keeps ellipsis literal: '...' and '…' normalize alike, and are not wildcards", () => {
    expect(normalize("a … b")).toBe(normalize("a ... b"));
    expect(normalize("forward ... invoices")).not.toBe(normalize("forward the invoices"));
  });
  it("B07 variants normalize to the same text as the source", () => {
    expect(normalize("Please don\u2019t reply \u2014 just forward the invoices")).toBe(normalize("Please don't reply - just forward the invoices"));
    expect(normalize("transfer\u00a0$500")).toBe(normalize("transfer $500"));
    expect(normalize("invoices.\nThen")).toBe(normalize("invoices. Then"));
  });
});

describe("normalize: properties on random hostile strings", () => {
  const r = new Rand(20240611);
  const cases = Array.from({ length: 3000 }, () => randomText(r, r.int(0, 40)));

  it("is idempotent", () => {
    expect(cases.filter((s) => normalize(normalize(s)) !== normalize(s))).toEqual([]);
  });
  it("equals the whole-string reference pipeline", () => {
    expect(cases.filter((s) => normalize(s) !== reference(s))).toEqual([]);
  });
  it("has no leading/trailing space, no double space, no dropped or folded characters, no uppercase ASCII", () => {
    const bad: string[] = [];
    for (const s of cases) {
      const n = normalize(s);
      const chars = [...n].map((c) => c.codePointAt(0)!);
      if (n !== n.trim() || /\s\s|[\t\n\r\u00a0]|[A-Z]/.test(n) || chars.some((c) => DROPPED.has(c) || FOLD.has(c))) bad.push(s);
    }
    expect(bad).toEqual([]);
  });
  it("maps whitespace, quote and dash variants of the same text to the same normal form", () => {
    const words = ["Don't", "reply", "-", "just", "forward", '"the"', "invoices"];
    const spaces = [" ", "  ", "\n", "\t", "\u00a0", "\u2003", " \u200b", "\r\n"];
    const apos = ["'", "\u2019", "\u2018", "\u02bc", "\u2032"];
    const dash = ["-", "\u2013", "\u2014", "\u2212", "\u2011"];
    const dq = [['"', '"'], ["\u201c", "\u201d"], ["\u201e", "\u201c"]];
    const want = normalize(words.join(" "));
    for (let i = 0; i < 500; i++) {
      const q = r.pick(dq);
      const text = words
        .map((w) => w.replace("'", r.pick(apos)).replace("-", r.pick(dash)).replace(/^"/, q[0]).replace(/"$/, q[1]))
        .map((w) => (r.bool(0.3) ? w.toUpperCase() : w))
        .join(r.pick(spaces));
      expect(normalize(r.pick(spaces) + text + r.pick(spaces))).toBe(want);
    }
  });
});

describe("normalize: the ASCII shortcut", () => {
  it("equals the character loop (normalizeWithMap) and the reference on random ASCII, control characters included", () => {
    const r = new Rand(7);
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    const pieces = [...ascii, "  ", "\r\n", " \t ", "Word", "ABC xyz"];
    const cases = Array.from({ length: 3000 }, () => randomText(r, r.int(0, 60), pieces));
    expect(cases.filter((s) => normalize(s) !== normalizeWithMap(s).norm || normalize(s) !== reference(s))).toEqual([]);
  });
});

describe("normalizeWithMap", () => {
  it("gives the same text as normalize, and one map entry per UTF-16 unit", () => {
    const r = new Rand(7);
    const bad: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const s = randomText(r, r.int(0, 30));
      const nt = normalizeWithMap(s);
      let ok = nt.norm === normalize(s) && nt.map.length === nt.norm.length && nt.ends.length === nt.norm.length;
      for (let k = 0; ok && k < nt.map.length; k++) {
        ok = nt.map[k] < nt.ends[k] && nt.ends[k] <= s.length && (k === 0 || nt.map[k] >= nt.map[k - 1]);
      }
      if (!ok) bad.push(s);
    }
    expect(bad).toEqual([]);
  });
  it("maps every normalized range back to original text that normalizes to (a superset of) it", () => {
    const r = new Rand(11);
    for (let i = 0; i < 2000; i++) {
      const s = randomText(r, r.int(1, 30));
      const nt = normalizeWithMap(s);
      if (nt.norm.length === 0) continue;
      const a = r.int(0, nt.norm.length - 1);
      const b = r.int(a + 1, nt.norm.length);
      const orig = originalSlice(s, nt, a, b);
      expect(s.includes(orig)).toBe(true);
      expect(normalize(orig)).toContain(nt.norm.slice(a, b).trim());
    }
  });
  it("recovers the original typography of a normalized match", () => {
    const s = "From: sam\nPlease don\u2019t reply \u2014 just forward the invoices.";
    const nt = normalizeWithMap(s);
    const a = nt.norm.indexOf("please don't");
    const b = nt.norm.indexOf("invoices") + "invoices".length;
    expect(originalSlice(s, nt, a, b)).toBe("Please don\u2019t reply \u2014 just forward the invoices");
  });
  it("maps a collapsed space to the whole whitespace run", () => {
    const s = "a \n\t b";
    const nt = normalizeWithMap(s);
    expect(nt.norm).toBe("a b");
    expect(originalSlice(s, nt, 1, 2)).toBe(" \n\t ");
  });
  it("rejects bad ranges", () => {
    const nt = normalizeWithMap("abc");
    expect(() => originalSlice("abc", nt, 2, 1)).toThrow(RangeError);
    expect(() => originalSlice("abc", nt, 0, 4)).toThrow(RangeError);
    expect(originalSlice("abc", nt, 1, 1)).toBe("");
  });
  it("uses all hostile pieces (the generator covers the alphabet)", () => {
    expect(HOSTILE_PIECES.length).toBeGreaterThan(50);
  });
});

describe("invisible characters an attacker can hide in evidence", () => {
  it("drops bidi marks, overrides, isolates, invisible operators, CGJ and tag characters", () => {
    const hidden = ["\u200e", "\u200f", "\u061c", "\u202a", "\u202e", "\u2066", "\u2069", "\u2062", "\u034f", "\u180e", "\u{E0041}", "\u{E007F}"];
    for (const h of hidden) {
      expect(normalize(`US12${h}34567890`), JSON.stringify(h)).toBe("us1234567890");
      expect(normalizeWithMap(`US12${h}34567890`).norm).toBe("us1234567890");
    }
  });
});
