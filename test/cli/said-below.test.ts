/** One caveat once per screen (src/cli/said-below.ts; new user 44 item 11: the not-like-for-like caveat on stderr and stdout). */
import { describe, expect, it } from "vitest";
import { sameScreen, stderrForm } from "../../src/cli/said-below.js";

const caveat =
  "agent models ran different attacks (claude-3-5-sonnet-20240620: important_instructions; gemini-1.5-pro-001: important_instructions; " +
  "gpt-4o-2024-05-13: ignore_previous, important_instructions, tool_knowledge), so their per-model rates are not like for like; narrow with --where attack=important_instructions";

describe("stderrForm", () => {
  it("cuts a long warning the summary prints whole, with a pointer, on one screen", () => {
    const summary = `judge signature ...\n  per agent model:\n    NOT LIKE FOR LIKE: ${caveat}\n`;
    const short = stderrForm(caveat, summary);
    expect(short).toMatch(/^agent models ran different attacks \(claude-3-5-sonnet-20240620: .* \.\.\. \(in full in the summary below\)$/);
    expect(short.length).toBeLessThan(140);
  });
  it("keeps the warning whole when the streams are apart (null), the summary lacks it, or it is short", () => {
    expect(stderrForm(caveat, null)).toBe(caveat);
    expect(stderrForm(caveat, "another summary")).toBe(caveat);
    expect(stderrForm("short warning", "short warning")).toBe("short warning");
  });
  it("sameScreen: both streams terminals, not one", () => {
    expect(sameScreen({ isTTY: true }, { isTTY: true })).toBe(true);
    expect(sameScreen({ isTTY: false }, { isTTY: true })).toBe(false);
    expect(sameScreen({}, { isTTY: true })).toBe(false);
  });
});
