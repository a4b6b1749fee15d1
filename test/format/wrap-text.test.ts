/**
 * Long text lines broken for a reader (src/format/wrap-text.ts; new user 46 item 4: label's summary had lines of
 * ~1,500 characters): at clause boundaries outside parentheses first, then at spaces; continuation lines indented
 * deeper; `unwrapText` gives the line back.
 */
import { describe, expect, it } from "vitest";
import { HARD_WIDTH, unwrapText, wrapLine, wrapLines } from "../../src/format/wrap-text.js";

describe("wrapLine", () => {
  it("leaves a line that fits as it is", () => {
    expect(wrapLine("  short line; two clauses", 40)).toEqual(["  short line; two clauses"]);
  });

  it("breaks at a top-level clause boundary, not inside parentheses, and indents the continuation", () => {
    const line = "  health: quotes verified 100.0% of 5709; downgraded 0.0% of 10018 decided (labelled; or unverified); errors 0";
    const out = wrapLine(line, 60);
    expect(out.every((l) => l.length <= 60)).toBe(true);
    expect(out[0]).toBe("  health: quotes verified 100.0% of 5709;");
    expect(out.slice(1).every((l) => l.startsWith("      "))).toBe(true);
    // no break right after the "; " inside the parentheses
    expect(out.some((l) => l.trimEnd().endsWith("(labelled;"))).toBe(false);
    expect(unwrapText(out.join("\n"))).toBe(line);
  });

  it("a word wider than the width stays whole on a line of its own, and no line is only the indent", () => {
    const path = "/tmp/" + "x".repeat(150) + ".json";
    const line = `    e.g. ${path}, and more words after it`;
    const out = wrapLine(line, 60);
    expect(out).toContain(`        ${path},`);
    expect(out.every((l) => l.trim().length > 0)).toBe(true);
    expect(unwrapText(out.join("\n"))).toBe(line);
    // wrapped twice, the same lines (the summary's last pass over lines already broken)
    expect(wrapLines(out, 60)).toEqual(out);
  });
  it("a line whose indent (plus the hang) is as wide as the width ends, one word a line, never broken inside the indent (break48: it looped for ever)", () => {
    for (const lead of [116, 118, 120, 130]) {
      const line = " ".repeat(lead) + "word1 word2 word3";
      const out = wrapLine(line, 120);
      expect(out.length).toBeLessThanOrEqual(3);
      expect(out.every((l) => l.trim().length > 0)).toBe(true);
      expect(out[0].trimStart()).toMatch(/^word1/);
      expect(unwrapText(out.join("\n"))).toBe(line);
    }
  });
  it("keeps an interval and a rate's mark whole, with the figure they qualify, and never breaks inside padding (session 49)", () => {
    const mark = '[JUDGE "liar" LOOKS BROKEN: see the warning]';
    const line = `  gpt-4o-2024-08-06    tool_filter    asr_goal 0.0% [0.0, 1.1] (0/360) ${mark}, asr_behaviour 6.4% [4.3, 9.4] (23/360); more words`;
    for (const width of [70, 80, 100, 120]) {
      const out = wrapLine(line, width);
      expect(unwrapText(out.join("\n"))).toBe(line);
      // the mark on the row's first line, which may run to HARD_WIDTH for it
      expect(out[0], `width ${width}`).toContain(`asr_goal 0.0% [0.0, 1.1] (0/360) ${mark},`);
      expect(out.every((l) => l.length <= HARD_WIDTH)).toBe(true);
      expect(out.some((l) => l.includes("0.0% [0.0, 1.1]")), `width ${width}`).toBe(true);
      expect(out.every((l) => !/\S {2,}$/.test(l)), `width ${width}`).toBe(true);
    }
    // a mark that would end past HARD_WIDTH is not kept on the line: the bracketed group moves whole to the next
    const far = `  ${"x".repeat(100)}  cell  asr_goal 0.0% [0.0, 1.1] (0/360) ${mark}, more`;
    const outFar = wrapLine(far, 120);
    expect(outFar.every((l) => l.length <= 120)).toBe(true);
    expect(outFar.some((l) => l.includes(mark))).toBe(true);
    expect(unwrapText(outFar.join("\n"))).toBe(far);
    // a bracket wider than the room: broken inside it all the same (no line over the width for want of a space)
    const list = `warning: [${Array.from({ length: 40 }, (_, k) => `name${k}`).join(", ")}]`;
    const out = wrapLine(list, 60);
    expect(out.every((l) => l.length <= 60)).toBe(true);
    expect(unwrapText(out.join("\n"))).toBe(list);
  });
});
