import { describe, expect, it } from "vitest";
import { thinStrataWarnings } from "../../src/sample/thin-strata.js";

describe("sample names the strata whose variance estimate will leave undefined (new user 40, stats55 finding 1)", () => {
  it("one warning naming each stratum with one sampled item, attacked, out of several", () => {
    const w = thinStrataWarnings([
      { stratum: "A|agent_model=m1", stratum_size: 5, attacked: true },
      { stratum: "A|agent_model=m2", stratum_size: 5, attacked: true },
      { stratum: "A|agent_model=m2", stratum_size: 5, attacked: false },
      { stratum: "D|agent_model=m1", stratum_size: 3, attacked: true },
      { stratum: "D|agent_model=m1", stratum_size: 3, attacked: null },
      { stratum: "A|agent_model=m3", stratum_size: 4, attacked: false },
      { stratum: "A|agent_model=m4", stratum_size: 2, attacked: null },
    ]);
    expect(w).toEqual([
      "2 strata of the sample hold one sampled trajectory, attacked, out of several (A|agent_model=m1 (1 of 5); A|agent_model=m4 (1 of 2)): a stratum's variance needs 2 labelled items unless it is labelled whole, so after annotation every human and calibrated estimate over a group holding them (the whole run's included) reads CI undefined, and agree --human's design-weighted figures SE undefined; draw with coarser --strata (fewer fields), or a larger --random / --disagreement",
    ]);
    expect(thinStrataWarnings([{ stratum: "A", stratum_size: 3, attacked: true }])[0]).toMatch(/^1 stratum of the sample holds one sampled trajectory, attacked, out of several \(A \(1 of 3\)\): .* holding it /);
    expect(thinStrataWarnings([{ stratum: "A", stratum_size: 3, attacked: true }, { stratum: "A", stratum_size: 3 }])).toEqual([]);
    expect(thinStrataWarnings([])).toEqual([]);
  });

  it("a stratum drawn whole is a census: not named, whatever its size (stats55 finding 1: five N = 1 strata were)", () => {
    expect(thinStrataWarnings([{ stratum: "A|user_task_id=user_task_20", stratum_size: 1, attacked: true }])).toEqual([]);
  });

  it("names exactly the strata estimate's own variance leaves undefined (the same rule, stratifiedVariance)", async () => {
    const { stratifiedVariance } = await import("../../src/stats/stratified.js");
    const cases: Array<[number, number]> = [[1, 1], [1, 2], [2, 2], [2, 9], [1, 9], [3, 3]];
    for (const [n, N] of cases) {
      const v = stratifiedVariance(Array.from({ length: n }, (_, i) => i), Array(n).fill("s"), { s: N });
      const warned = thinStrataWarnings(Array.from({ length: n }, () => ({ stratum: "s", stratum_size: N, attacked: true }))).length > 0;
      expect(warned, `n ${n} of N ${N}`).toBe(typeof v !== "number");
    }
  });
});
