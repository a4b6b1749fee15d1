/** warnLine: each warning text once per command, repeats counted and said in one note at the end (session 39). */
import { describe, expect, it, vi } from "vitest";
import { repeatedWarningsNote, resetWarnings, warnLine } from "../../src/cli/warn.js";

describe("warnLine", () => {
  it("writes a text once, counts its repeats; `every` writes each time (a long run's warnings as they happen)", () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
    try {
      expect(repeatedWarningsNote()).toBeNull();
      warnLine("agent models ran different attacks (a: x; b: y)");
      warnLine("other\nline");
      warnLine("agent models ran different attacks (a: x; b: y)");
      warnLine("agent models ran different attacks (a: x; b: y)");
      warnLine("retrying", true);
      warnLine("retrying", true);
      // said as it happened, then again by the end-of-run summary: not written a second time (red team 40)
      warnLine("retrying");
    } finally {
      spy.mockRestore();
    }
    expect(out).toEqual([
      "ipi-judge: warning: agent models ran different attacks (a: x; b: y)\n",
      "ipi-judge: warning: other⟨U+000A⟩line\n",
      "ipi-judge: warning: retrying\n",
      "ipi-judge: warning: retrying\n",
    ]);
    expect(repeatedWarningsNote()).toBe('1 warning was given more than once and written once above: "agent models ran different attacks (a: x; b: y)" 3 times');
    // the note ends the command's count: the next command (main called again in one process) writes the text again
    expect(repeatedWarningsNote()).toBeNull();
    resetWarnings();
  });
});
