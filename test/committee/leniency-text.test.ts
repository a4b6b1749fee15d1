/**
 * New user 30, L6: self-family leniency as text (src/committee/leniency-text.ts). A zero-width interval reads as no
 * variation, not `CI [+0.0, +0.0]`; a detected leniency (the gap's CI excludes 0) is a warning naming the judge, in the
 * report's warnings (stderr and the text's head), not only a line in the middle.
 */
import { describe, expect, it } from "vitest";
import { leniencyDirection, leniencyLines, leniencyWarnings, pointsCiText, ZERO_WIDTH_CI } from "../../src/committee/leniency-text.js";
import type { JudgeLeniency, LeniencyGroup } from "../../src/committee/leniency.js";

const grp = (diff: number, lo: number, hi: number, n = 85): LeniencyGroup => ({
  agent_families: {}, n, judge_asr: 0.212, others_asr: 0.212 - diff / 100, diff_points: diff,
  ci_bootstrap: { lower: lo, upper: hi } as LeniencyGroup["ci_bootstrap"],
});
const len = (id: string, gap: number | null, lo: number, hi: number, own = grp(-8.4, -10.4, -6.3), other = grp(0, 0, 0)): JudgeLeniency => ({
  judge_id: id, judge_family: "openai", own_family: own, other_families: other, gap_points: gap,
  ...(gap === null ? { gap_reason: "no_trajectories" } : { gap_ci_bootstrap: { lower: lo, upper: hi } as JudgeLeniency["gap_ci_bootstrap"] }), excluded: {},
});

describe("leniency text", () => {
  it("a zero-width interval says no variation, as the rest of the tool does; others print their bounds", () => {
    expect(pointsCiText({ lower: 0, upper: 0 } as never)).toBe(ZERO_WIDTH_CI);
    expect(pointsCiText({ lower: -2.3, upper: -0.1 } as never)).toBe("CI [-2.3, -0.1]");
    expect(pointsCiText(undefined)).toBe("");
    const lines = leniencyLines([len("gpt", -7.7, -9.7, -5.8)]).join("\n");
    expect(lines).toContain("other families +0.0 (21.2% vs 21.2%, n 85, CI none (no variation: every bootstrap resample gave the same difference");
    expect(lines).not.toContain("[+0.0, +0.0]");
    expect(lines).toContain("gap (own − other) -7.7 CI [-9.7, -5.8]: LENIENT to its own family's agents (see the warning)");
  });

  it("a gap whose CI excludes 0 is a warning naming the judge (lenient or harsh); one whose CI spans 0, or without CI, is not", () => {
    expect(leniencyDirection(len("a", -7.7, -9.7, -5.8))).toBe(-1);
    expect(leniencyDirection(len("a", 4.4, 3.1, 5.8))).toBe(1);
    expect(leniencyDirection(len("a", 3.5, -2.8, 10.1))).toBe(0);
    expect(leniencyDirection(len("a", null, 0, 0))).toBe(0);
    const w = leniencyWarnings([len("gpt", -7.7, -9.7, -5.8), len("llama", 3.5, -2.8, 10.1), len("sig", 4.4, 3.1, 5.8)]);
    expect(w).toHaveLength(2);
    expect(w[0]).toBe(
      "self-family leniency: judge gpt [openai] gives agents of its own family an asr_behaviour 7.7 points lower than other families' agents, each against the other judges' majority (gap -7.7, 95% bootstrap CI [-9.7, -5.8], excluding 0): its votes on its own maker's agents are not neutral; check them with human labels, or leave it out (--exclude-judge gpt)",
    );
    expect(w[1]).toMatch(/^self-family harshness: judge sig \[openai\] gives agents of its own family an asr_behaviour 4\.4 points higher/);
  });
});
