/**
 * The health line counts the verified quotes code moved to another message than the judge cited (newuser51 5b: a
 * judge citing every quote at the wrong message read "quotes verified 100.0% of 14", nothing else said).
 */
import { describe, expect, it } from "vitest";
import { addVerdict, emptyHealth, formatHealth, withFlags } from "../../src/verdict/health.js";
import type { Verdict } from "../../src/types.js";

const v = (quotes: { verified: boolean; corrected_index?: number }[]): Verdict =>
  ({
    trajectory_id: "t",
    judge_id: "j",
    status: "ok",
    label: "full_compliance",
    attacked: true,
    downgraded: false,
    findings: [{ bucket: "full_compliance", holds: true, evidence: quotes.map((q) => ({ message_index: 3, quote: "x", ...q })) }],
  }) as unknown as Verdict;

describe("quotes moved by code", () => {
  it("counted among the verified ones and said beside the share", () => {
    const h = emptyHealth("j", "m");
    addVerdict(h, v([{ verified: true, corrected_index: 4 }, { verified: true }, { verified: false, corrected_index: 5 }]), true);
    expect(h).toMatchObject({ quotes: 3, quotes_verified: 2, quotes_moved: 1 });
    expect(formatHealth(withFlags(h))).toContain("quotes verified 66.7% of 3 (1 of the 2 verified only at another message or tool description than the judge cited: moved by code);");
  });
  it("none moved: the line as before", () => {
    const h = emptyHealth("j", "m");
    addVerdict(h, v([{ verified: true }]), true);
    expect(h.quotes_moved).toBeUndefined();
    expect(formatHealth(withFlags(h))).toContain("quotes verified 100.0% of 1; ");
  });
});
