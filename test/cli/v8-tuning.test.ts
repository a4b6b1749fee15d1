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
