import { describe, expect, it } from "vitest";
import v8 from "node:v8";
import { LABEL_HEAP_GROWING_PERCENT, tuneCompilerForLabel, tuneHeapForLabel } from "../../src/cli/v8-tuning.js";

describe("tuneCompilerForLabel", () => {
  it("keeps V8's default when IPI_TURBO_INLINING=1", () => {
    expect(tuneCompilerForLabel({ IPI_TURBO_INLINING: "1" })).toBe(false);
  });

  it("switches TurboFan inlining off otherwise (a compiler setting: results of code run after it are unchanged)", () => {
    const f = (xs: number[]) => xs.reduce((a, b) => a + b * 2, 0);
    const before = f([1, 2, 3]);
    expect(tuneCompilerForLabel({})).toBe(true);
    for (let i = 0; i < 2000; i++) expect(f([1, 2, 3])).toBe(before);
  });
});

describe("tuneHeapForLabel (issue 26: V8 collects by itself at a set growing factor, no forced collections)", () => {
  // V8's own default (0: its dynamic factor), restored after each case so the test process is left as it was
  const restore = () => v8.setFlagsFromString("--heap-growing-percent=0");
  it("sets the label factor by default", () => {
    try {
      expect(tuneHeapForLabel({})).toBe(LABEL_HEAP_GROWING_PERCENT);
    } finally {
      restore();
    }
  });
  it("takes IPI_HEAP_GROWING_PERCENT: a whole number sets it, 0 keeps V8's default, anything else is ignored", () => {
    try {
      expect(tuneHeapForLabel({ IPI_HEAP_GROWING_PERCENT: "25" })).toBe(25);
      expect(tuneHeapForLabel({ IPI_HEAP_GROWING_PERCENT: "0" })).toBeUndefined();
      expect(tuneHeapForLabel({ IPI_HEAP_GROWING_PERCENT: "-5" })).toBe(LABEL_HEAP_GROWING_PERCENT);
      expect(tuneHeapForLabel({ IPI_HEAP_GROWING_PERCENT: "1001" })).toBe(LABEL_HEAP_GROWING_PERCENT);
      expect(tuneHeapForLabel({ IPI_HEAP_GROWING_PERCENT: "fifty" })).toBe(LABEL_HEAP_GROWING_PERCENT);
    } finally {
      restore();
    }
  });
});

describe("tuneHeapForCommand (issue 26 point 3: the commands after label read 1M-line journals)", () => {
  const restore = () => v8.setFlagsFromString("--heap-growing-percent=0");
  it("sets label's factor for every command of the CLI, and nothing for an unknown name", async () => {
    const { tuneHeapForCommand, HEAP_TUNED_COMMANDS, REPORT_HEAP_GROWING_PERCENT } = await import("../../src/cli/v8-tuning.js");
    try {
      for (const c of ["agree", "compare", "estimate", "report", "committee", "sample", "view", "agreement", "import-annotations", "label"]) {
        expect(HEAP_TUNED_COMMANDS.has(c)).toBe(true);
        expect(tuneHeapForCommand(c, {})).toBe(c === "report" ? REPORT_HEAP_GROWING_PERCENT : LABEL_HEAP_GROWING_PERCENT);
      }
      expect(tuneHeapForCommand("frobnicate", {})).toBeUndefined();
      expect(tuneHeapForCommand("agree", { IPI_HEAP_GROWING_PERCENT: "0" })).toBeUndefined();
    } finally {
      restore();
    }
  });
  it("covers every command main registers (a new command is tuned too)", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const { HEAP_TUNED_COMMANDS } = await import("../../src/cli/v8-tuning.js");
    const main = fs.readFileSync(path.resolve(__dirname, "../../src/cli/main.ts"), "utf8");
    const block = main.slice(main.indexOf("const COMMANDS"), main.indexOf("};", main.indexOf("const COMMANDS")));
    const names = [...block.matchAll(/^\s+"?([a-z-]+)"?: \(\) => import/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => !HEAP_TUNED_COMMANDS.has(n))).toEqual([]);
  });
});
