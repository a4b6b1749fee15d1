import { describe, expect, it } from "vitest";
import { humanOver } from "../../src/report/human-over-html.js";
import type { CalibratedAll } from "../../src/report/calibrated-all.js";

// the strata fact as the report says it once, among the human agreement's warnings (../../src/report/coverage-once.ts)
const MERGED =
  "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 766 of the 1440 trajectories of the run the sample's --where attacked=true keeps: the other 674 are in cells with no labelled item (none drawn there): the design-weighted agreement does not represent them; in the table of a paper: no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them";

describe("humanOver: the report's headline says what 'the human labels alone' is over (newuser53 #2)", () => {
  const a = { asr_behaviour: { cell: {}, group: { n_population: 1440, n_population_estimated: 766, human: { asr: 0.444 } } } } as unknown as Pick<CalibratedAll, "asr_behaviour">;
  it("from the warning said once among the agreement's, or the calibrated estimate's (prefixed)", () => {
    const want = "; the human-only figure is over the cells with a labelled item, 766 of the 1440 by the design weights (the other 674, in cells with no labelled item, are left out of it; the calibrated figure counts them by the judge's verdicts plus the labelled cells' mean correction, imputed: the warning on the label file's strata)";
    expect(humanOver([MERGED], a)).toBe(want);
    expect(humanOver(["another"], a)).toBe("");
    expect(humanOver(["another"], { asr_behaviour: { reason: "no_estimate" } } as unknown as Pick<CalibratedAll, "asr_behaviour">)).toBe("");
  });
});
