import { describe, expect, it } from "vitest";
import { thinStrataWarnings } from "../../src/sample/thin-strata.js";

describe("sample names the strata it leaves with one attacked trajectory (new user 40)", () => {
  it("one warning naming each stratum with exactly one attacked item; unattacked items and strata of 2 or none are fine", () => {
    const w = thinStrataWarnings([
      { stratum: "A|agent_model=m1", attacked: true },
      { stratum: "A|agent_model=m2", attacked: true },
      { stratum: "A|agent_model=m2", attacked: false },
      { stratum: "D|agent_model=m1", attacked: true },
      { stratum: "D|agent_model=m1", attacked: null },
      { stratum: "A|agent_model=m3", attacked: false },
    ]);
    expect(w).toEqual([
      "2 strata of the sample hold one sampled attacked trajectory (A|agent_model=m1; A|agent_model=m2): a stratum's variance needs 2, so after annotation every human and calibrated estimate over a group holding them (the whole run's included) reads CI undefined, and agree --human's design-weighted figures SE undefined; draw with coarser --strata (fewer fields), or a larger --random / --disagreement",
    ]);
    expect(thinStrataWarnings([{ stratum: "A", attacked: true }])[0]).toMatch(/^1 stratum of the sample holds one sampled attacked trajectory \(A\): .* holding it /);
    expect(thinStrataWarnings([{ stratum: "A", attacked: true }, { stratum: "A" }])).toEqual([]);
    expect(thinStrataWarnings([])).toEqual([]);
  });
});
