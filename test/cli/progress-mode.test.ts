/** `--progress` and `--progress-interval` (src/cli/progress-mode.ts): auto follows the terminal, --json does not matter. */
import { describe, expect, it } from "vitest";
import { progressOf } from "../../src/cli/progress-mode.js";

describe("progressOf", () => {
  it("auto (the default) is a bar on a terminal and lines otherwise; every 30 s by default", () => {
    expect(progressOf({}, true, {})).toMatchObject({ mode: "bar", intervalMs: 30_000 });
    expect(progressOf({ progress: "auto" }, false, {})).toMatchObject({ mode: "lines", intervalMs: 30_000 });
    expect(progressOf({ progress: "off", json: true } as never, false).mode).toBe("off");
    expect(progressOf({ progress: "lines" }, true).mode).toBe("lines");
    expect(progressOf({ progress: "bar" }, false).mode).toBe("bar");
    expect(progressOf({ progressInterval: "0.5" }, false, {}).intervalMs).toBe(500);
  });

  it("IPI_JUDGE_PROGRESS is the default; the flag wins; a bad value names the variable", () => {
    expect(progressOf({}, false, { IPI_JUDGE_PROGRESS: "off" }).mode).toBe("off");
    expect(progressOf({ progress: "lines" }, false, { IPI_JUDGE_PROGRESS: "off" }).mode).toBe("lines");
    expect(progressOf({}, true, { IPI_JUDGE_PROGRESS: "" }).mode).toBe("bar");
    expect(() => progressOf({}, false, { IPI_JUDGE_PROGRESS: "none" })).toThrow(/^IPI_JUDGE_PROGRESS must be one of auto, bar, lines, off, not "none"$/);
  });

  it("refuses an unknown mode and an interval that is not a decimal number of seconds in (0, 86400]", () => {
    expect(() => progressOf({ progress: "quiet" }, false)).toThrow(/--progress must be one of auto, bar, lines, off, not "quiet"/);
    for (const bad of ["0", "-1", "abc", "1e3", "0x10", " 5", "86401"]) expect(() => progressOf({ progressInterval: bad }, false)).toThrow(/--progress-interval must be/);
  });
});
