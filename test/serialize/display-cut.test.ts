/**
 * src/serialize/display-cut.ts: which stretches of a long text the report and the view show (red team 30 H1).
 */
import { describe, expect, it } from "vitest";
import { cutLabel, DISPLAY_MIN_PART_CHARS, DISPLAY_PART_CHARS, DisplayBudget, displayRanges, MAX_FOCUS, omittedMarker, visibleParts } from "../../src/serialize/display-cut.js";

const total = (rs: Array<{ start: number; end: number }>) => rs.reduce((a, r) => a + r.end - r.start, 0);

describe("displayRanges", () => {
  it("keeps a text that fits whole", () => {
    expect(displayRanges("abc", 3)).toEqual([{ start: 0, end: 3 }]);
  });
  it("keeps the head and the tail of a longer text, within the cap", () => {
    const t = "x".repeat(1000);
    expect(displayRanges(t, 100)).toEqual([
      { start: 0, end: 50 },
      { start: 950, end: 1000 },
    ]);
  });
  it("adds a window at each highlight, starting a little before it, at most MAX_FOCUS of them", () => {
    const t = "x".repeat(100_000);
    const rs = displayRanges(t, 1000, [{ start: 50_000, end: 50_010 }]);
    expect(rs.length).toBe(3);
    expect(rs[1].start).toBeLessThan(50_000);
    expect(rs[1].end).toBeGreaterThan(50_010);
    expect(total(rs)).toBeLessThanOrEqual(1000);
    const many = Array.from({ length: 20 }, (_, k) => ({ start: 1000 + k * 4000, end: 1010 + k * 4000 }));
    expect(displayRanges(t, 2000, many).length).toBe(2 + MAX_FOCUS);
  });
  it("never cuts inside a surrogate pair", () => {
    const t = "😀".repeat(1000);
    for (const r of displayRanges(t, 101, [{ start: 777, end: 779 }])) {
      expect(r.start % 2).toBe(0);
      expect(r.end % 2).toBe(0);
    }
  });
  it("merges windows that touch, so ranges are disjoint and in order", () => {
    const rs = displayRanges("y".repeat(10_000), 3000, [{ start: 100, end: 110 }, { start: 9_900, end: 9_910 }]);
    for (let i = 1; i < rs.length; i++) expect(rs[i].start).toBeGreaterThan(rs[i - 1].end);
  });
});

describe("visibleParts, omittedMarker, DisplayBudget", () => {
  it("clips a span to the kept ranges", () => {
    const rs = [
      { start: 0, end: 10 },
      { start: 20, end: 30 },
    ];
    expect(visibleParts({ start: 5, end: 25 }, rs)).toEqual([
      { start: 5, end: 10 },
      { start: 20, end: 25 },
    ]);
    expect(visibleParts({ start: 12, end: 18 }, rs)).toEqual([]);
  });
  it("says how many characters were left out", () => {
    expect(omittedMarker(17_000_000)).toBe("[... 17,000,000 characters not shown by ipi-judge ...]");
    expect(omittedMarker(1)).toBe("[... 1 character not shown by ipi-judge ...]");
  });
  it("gives each part at most the part cap and, once spent, the minimum", () => {
    const b = new DisplayBudget(DISPLAY_PART_CHARS + 10);
    expect(b.take(10 ** 9)).toBe(DISPLAY_PART_CHARS);
    expect(b.take(10 ** 9)).toBe(DISPLAY_MIN_PART_CHARS);
    expect(b.take(5)).toBe(DISPLAY_MIN_PART_CHARS);
  });
});

describe("cutLabel", () => {
  it("a label up to max is itself; a longer one keeps its head and tail around the marker, never splitting a code point", () => {
    expect(cutLabel("gpt-4o", 12)).toBe("gpt-4o");
    expect(cutLabel("a".repeat(12), 12)).toBe("a".repeat(12));
    const big = "gpt-" + "x".repeat(200_000) + "-end";
    expect(cutLabel(big, 12)).toBe(`gpt-xxxx${omittedMarker(big.length - 12)}-end`);
    // a crab (a surrogate pair) at the head's edge: kept whole or left out whole
    const crab = "abcdefg\u{1F980}" + "y".repeat(50) + "tail";
    const c = cutLabel(crab, 12);
    expect(c).toBe(`abcdefg${omittedMarker(crab.length - 12)}ytail`);
    expect(c).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
