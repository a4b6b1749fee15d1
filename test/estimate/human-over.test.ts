import { describe, expect, it } from "vitest";
import { calibratedAllOverText, calibratedOverText, humanOverText } from "../../src/estimate/human-over.js";

const STRATA =
  "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 766 of the 1440 trajectories of the run the sample's --where attacked=true keeps: the other 674 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from; none labelled; or no labelled item with a consensus, e.g. annotators tied on each): no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them";

describe("humanOverText: the N a human-only figure is over, beside the group's N (newuser53 #2)", () => {
  const g = { n_population: 1440, n_population_estimated: 766, human: { asr: 0.444 } };
  it("names the part the weights cover and the part left out, when the strata leave some of the population unlabelled", () => {
    expect(humanOverText(g, [STRATA])).toBe(
      "; the human-only figure is over the cells with a labelled item, 766 of the 1440 by the design weights (the other 674, in cells with no labelled item, are left out of it; the calibrated figure counts them by the judge's verdicts plus the labelled cells' mean correction, imputed: the WARNING on the label file's strata above)",
    );
  });
  it("nothing when every cell has a label, the figure is undefined, or the weights cover the whole group", () => {
    expect(humanOverText(g, ["another warning"])).toBe("");
    expect(humanOverText({ ...g, human: { asr: null } }, [STRATA])).toBe("");
    expect(humanOverText({ ...g, n_population_estimated: 1440 }, [STRATA])).toBe("");
    expect(humanOverText({ ...g, n_population_estimated: null }, [STRATA])).toBe("");
  });
});

describe("calibratedOverText: the calibrated figure's correction carried to cells with no labelled item (break55 #2)", () => {
  const g = { n_population: 66, n_population_estimated: 17, human: { asr: 0.8 }, calibrated: { asr: 0.539 } };
  it("says the correction was measured in the labelled cells and applied to the others, with both counts", () => {
    expect(calibratedOverText(g, [STRATA])).toBe(
      " (CORRECTION EXTRAPOLATED: measured in the cells with a labelled item, 17 of the 66 by the design weights, and applied to the other 49 as if the judge erred there as in the labelled cells: not measured there)",
    );
  });
  it("nothing when every cell has a label, the calibrated figure is undefined, or the weights cover the whole group", () => {
    expect(calibratedOverText(g, ["another warning"])).toBe("");
    expect(calibratedOverText({ ...g, calibrated: { asr: null } }, [STRATA])).toBe("");
    expect(calibratedOverText({ ...g, n_population_estimated: 66 }, [STRATA])).toBe("");
  });
});

describe("calibratedAllOverText: the (all) group, whose cells are whole, needs no warning to tell", () => {
  it("said when the weights cover less than N; nothing when they cover it or the figure is undefined", () => {
    const g = { n_population: 66, n_population_estimated: 17, calibrated: { asr: 0.539 } };
    expect(calibratedAllOverText(g)).toContain("CORRECTION EXTRAPOLATED: measured in the cells with a labelled item, 17 of the 66");
    expect(calibratedAllOverText({ ...g, n_population_estimated: 65.9999 })).toBe("");
    expect(calibratedAllOverText({ ...g, calibrated: { asr: null } })).toBe("");
  });
});
