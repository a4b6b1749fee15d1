import { describe, expect, it } from "vitest";
import { asciiAlnum } from "../../src/serialize/ascii-alnum.js";

/** The definition asciiAlnum is the ASCII case of: string escapes \n \r \t dropped, then every non-letter/digit. */
function reference(text: string, lower: boolean): string | null {
  if (/[^\x00-\x7f]/.test(text)) return null;
  const t = text.replace(/\\[nrt]/g, " ");
  return (lower ? t.toLowerCase() : t).replace(/[^A-Za-z0-9]+/g, "");
}

/** A random ASCII text, rich in backslashes, escape letters and the edges of the letter and digit ranges. */
function randomText(rand: () => number, n: number): string {
  const pool = "\\\\\\nrtNRT@AZ[`az{/09:_ -\t\n\"'x5";
  let s = "";
  for (let i = 0; i < n; i++) s += rand() < 0.7 ? pool[Math.floor(rand() * pool.length)] : String.fromCharCode(Math.floor(rand() * 128));
  return s;
}

describe("asciiAlnum", () => {
  it("equals its regex definition on random ASCII texts, both cases, short and long", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const n of [0, 1, 2, 3, 17, 100, 5000, 70_000]) {
      for (let k = 0; k < (n > 1000 ? 3 : 200); k++) {
        const text = randomText(rand, n);
        expect(asciiAlnum(text, true)).toBe(reference(text, true));
        expect(asciiAlnum(text, false)).toBe(reference(text, false));
      }
    }
  });

  it("drops an escape's letter only after a backslash, left to right, and a trailing backslash", () => {
    expect(asciiAlnum("a\\nb\\\\nc\\", true)).toBe("abc"); // text a, \n, b, a backslash, \n, c, a backslash
    expect(asciiAlnum("A\\Tb\\tC", false)).toBe("ATbC");
  });

  it("returns null at the first non-ASCII character, whatever came before (a longer text first)", () => {
    expect(asciiAlnum("x".repeat(10_000), true)).toBe("x".repeat(10_000));
    expect(asciiAlnum("abc é", true)).toBeNull();
    expect(asciiAlnum("ABC", false)).toBe("ABC");
  });

  it("handles a text of over a million characters", () => {
    const text = "Ab-1 ".repeat(250_000); // 1,250,000 characters
    expect(asciiAlnum(text, true)).toBe("ab1".repeat(250_000));
  });
});
