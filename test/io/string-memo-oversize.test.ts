/**
 * StringMemo with a `sizeOf` that counts a value at many characters per key character (match.ts' payload-index
 * memo: 16 per character, maxChars 256 Ki, so keys up to maxChars / 8 = 32 Ki are stored): a key whose entry alone
 * counts more than maxChars (here 15,500 characters: 15,500 * 17 > 262,144) was stored, then the eviction loop removed
 * every entry, itself included: results right, the memo emptied (found in review of the payload-index memo). Such an
 * entry is now not kept.
 */
import { describe, expect, it } from "vitest";
import { StringMemo } from "../../src/io/string-memo.js";

const PAYLOAD = { maxEntries: 256, maxChars: 256 * 1024, minChars: 20 };
const memo = () => new StringMemo((s: string) => ({ a: s }), (v) => 16 * v.a.length, PAYLOAD);

describe("StringMemo: an entry that alone counts over maxChars", () => {
  it("returns f(key) (results unaffected)", () => {
    const m = memo();
    const k = "x".repeat(15_500);
    expect(m.get(k).a).toBe(k);
  });
  it("keeps the entries it held (an entry counting over an eighth of maxChars is not kept)", () => {
    const m = memo();
    for (let i = 0; i < 10; i++) m.get(`argument number ${i} `.repeat(4));
    expect(m.size).toBe(10);
    m.get("y".repeat(15_500));
    expect(m.size).toBeGreaterThanOrEqual(10);
  });
});
