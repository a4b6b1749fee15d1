/** The rates' text pieces (src/format/rates-text.ts): a LOW coverage's clause, in full or pointing where it was said. */
import { describe, expect, it } from "vitest";
import { coverageText, exposureFigureText } from "../../src/format/rates-text.js";
import type { AttackRates } from "../../src/stats/rates.js";

const rates = (labelled: number, attacked: number, low: boolean) =>
  ({ coverage: labelled / attacked, labelled, attacked, coverage_low: low, coverage_low_reason: low ? "injection_text_unknown" : undefined, unlabelled: { injection_text_unknown: attacked - labelled } }) as unknown as AttackRates;

describe("coverageText", () => {
  it("a LOW coverage says its clause, or where it was said (compare's rows: the warning above), never both", () => {
    expect(coverageText(rates(3, 6, true))).toBe("coverage 50.0% (3 labelled of 6 attacked) LOW (below 80%: the rates speak for a subset that may be biased; most unlabelled: injection_text_unknown 3)");
    expect(coverageText(rates(3, 6, true), "see the warning above")).toBe("coverage 50.0% (3 labelled of 6 attacked) LOW (see the warning above)");
    // not LOW: nothing to point to
    expect(coverageText(rates(6, 6, false), "see the warning above")).toBe("coverage 100.0% (6 labelled of 6 attacked)");
  });
});

describe("exposure of a group with no labelled attacked run (break55 #6)", () => {
  it("reads as the rates beside it: undefined (no labelled attacked), not the reason code", () => {
    expect(exposureFigureText({ labelled: 0, not_exposed: 0, exposure_low: false })).toBe("exposure undefined (no labelled attacked)");
  });
});
