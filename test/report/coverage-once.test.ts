import { describe, expect, it } from "vitest";
import { AGREE_FRAME_WORDS, checkStrataTotal, coverageParts, type FrameCheck } from "../../src/agree/sample-frame.js";
import { sayCoverageOnce } from "../../src/report/coverage-once.js";

/** The warnings estimate and agree give of one label file over one run (the report builds both). */
function both(covered: number, uncovered?: { n: number; attacked: number; strata: string[] }): { estimate: string; agree: string } {
  const check = { known: "exact", population: { N_run: 433, filter: "attacked=true" } } as unknown as FrameCheck;
  const e: string[] = [];
  const a: string[] = [];
  checkStrataTotal(check, covered, 446, 433, "h.jsonl", e, uncovered ? () => uncovered : undefined);
  checkStrataTotal(check, covered, 446, 433, "h.jsonl", a, undefined, AGREE_FRAME_WORDS);
  return { estimate: e[0], agree: a[0] };
}

describe("sayCoverageOnce: the sample's coverage is one statement in the report (session 48: said twice)", () => {
  it("the calibrated estimate's copy is merged into the agreement section's: one statement naming both figures", () => {
    const { estimate, agree } = both(421);
    const warnings = ["other warning", `calibrated estimate: ${estimate}`];
    const agreement = [agree, "fakeclaude: one category"];
    sayCoverageOnce(warnings, agreement);
    expect(warnings).toEqual(["other warning"]);
    expect(agreement).toHaveLength(2);
    expect(agreement[0]).toContain("cover 421 of the 433 trajectories");
    expect(agreement[0].endsWith("the design-weighted agreement does not represent them; in the table of a paper: no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them")).toBe(true);
    // the fact is said once over both lists
    expect([...warnings, ...agreement].join("\n").split("cover 421").length - 1).toBe(1);
  });

  it("the estimate's fuller head (the sampling strata with no labelled item) is the one kept", () => {
    const { estimate, agree } = both(421, { n: 12, attacked: 3, strata: ["s1"] });
    expect(estimate).toContain("in sampling strata with none: s1");
    const warnings = [`calibrated estimate: ${estimate}`];
    const agreement = [agree];
    sayCoverageOnce(warnings, agreement);
    expect(warnings).toEqual([]);
    expect(agreement[0]).toContain("in sampling strata with none: s1");
  });

  it("two different coverages are two facts: both left", () => {
    const warnings = [`calibrated estimate: ${both(421).estimate}`];
    const agreement = [both(420).agree];
    sayCoverageOnce(warnings, agreement);
    expect(warnings).toHaveLength(1);
    expect(agreement).toEqual([both(420).agree]);
  });

  it("coverageParts: null for any other warning, the same key for both commands' words", () => {
    expect(coverageParts("the label file does not record the population")).toBeNull();
    const { estimate, agree } = both(400);
    expect(coverageParts(estimate)!.key).toBe(coverageParts(agree)!.key);
    expect(coverageParts(estimate)!.tail).toBe("no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them");
  });
});
