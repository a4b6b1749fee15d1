import { describe, expect, it } from "vitest";
import { minLabelledWarnings } from "../../src/sample/min-labelled.js";

// two models x two defenses; the sample leaves "b" defenses short
const allocation = [
  { sampling_stratum: "agent_model=m1,condition=a", N: 100 },
  { sampling_stratum: "agent_model=m1,condition=b", N: 50 },
  { sampling_stratum: "agent_model=m2,condition=a", N: 100 },
  { sampling_stratum: "agent_model=m2,condition=b", N: 6 },
];
const drawn = (counts: Record<string, number>, attacked = true) => Object.entries(counts).flatMap(([s, n]) => Array.from({ length: n }, () => ({ sampling_stratum: s, attacked })));

describe("minLabelledWarnings (new-user report 31, L6)", () => {
  it("names each grouping's groups under estimate's default minimum, how many more, and the --random that reaches it", () => {
    const sampled = drawn({ "agent_model=m1,condition=a": 12, "agent_model=m1,condition=b": 4, "agent_model=m2,condition=a": 11, "agent_model=m2,condition=b": 3 });
    const w = minLabelledWarnings({ strata: ["agent_model", "condition"], allocation, random: 30, sampled });
    expect(w).toHaveLength(2); // by agent_model,condition and by condition; by agent_model every group has 10
    expect(w[0]).toMatch(/^by agent_model,condition, 2 of 4 groups get fewer than 10 sampled attacked trajectories, the fewest estimate's default --min-sampled takes/);
    expect(w[0]).toContain("agent_model=m1,condition=b 4; agent_model=m2,condition=b 3;");
    expect(w[0]).toMatch(/6 more sampled attacked trajectories in those that can \(10 - n each\) would reach it: about --random 49 \(instead of 30\)/);
    expect(w[0]).toMatch(/1 cannot: agent_model=m2,condition=b \(6 trajectories, 3 of 3 drawn attacked\); group coarser, or lower --min-sampled$/);
    expect(w[1]).toMatch(/^by condition, 1 of 2 groups .*estimate --by condition would say undefined.*: condition=b 7; 3 more .* about --random 44 \(instead of 30\)/);
  });

  it("counts attacked trajectories only, and says nothing when every group reaches the minimum", () => {
    const ok = drawn({ "agent_model=m1,condition=a": 10, "agent_model=m1,condition=b": 10, "agent_model=m2,condition=a": 10, "agent_model=m2,condition=b": 10 });
    expect(minLabelledWarnings({ strata: ["agent_model", "condition"], allocation, random: 40, sampled: ok })).toEqual([]);
    const w = minLabelledWarnings({ strata: [], allocation: [{ sampling_stratum: "all", N: 500 }], random: 20, sampled: [...drawn({ all: 8 }), ...drawn({ all: 12 }, false)] });
    // 8 of the 20 drawn are attacked: at that share, about 25 draws give 10
    expect(w).toEqual([expect.stringMatching(/^the sample holds 8 attacked trajectories, fewer than 10, .*; 2 more sampled attacked trajectories would reach it: about --random 25 \(instead of 20\) gives it 10/)]);
  });
});
