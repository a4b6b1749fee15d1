/**
 * The population a rate heading names (src/format/rate-population.ts; newuser51 finding 3: "over the 433 attacked
 * runs" above a rate over the 86 labelled ones).
 */
import { describe, expect, it } from "vitest";
import { ratePopulationText } from "../../src/format/rate-population.js";

describe("ratePopulationText", () => {
  it("every attacked run labelled: the attacked count alone", () => {
    expect(ratePopulationText(414, 414)).toBe("the 414 attacked runs");
    expect(ratePopulationText(1200, 1200, "trajectories", true)).toBe("all 1,200 attacked trajectories");
  });
  it("some unlabelled: the labelled count the rates are over, of the attacked", () => {
    expect(ratePopulationText(86, 433)).toBe("the 86 labelled of the 433 attacked runs");
    expect(ratePopulationText(86, 433, "trajectories", true)).toBe("the 86 labelled of all 433 attacked trajectories");
  });
});
