/** The report's trajectory view shows the tools offered to the agent, with tool-description quotes highlighted in place. */
import { describe, expect, it } from "vitest";
import { locateQuote, renderTrajectory } from "../../src/report/highlight.js";
import type { Verdict } from "../../src/types.js";
import { vigilTrajectory, VIGIL_SUCCESS } from "../helpers/vigil-tools.js";

const T = vigilTrajectory(VIGIL_SUCCESS);
const DESC = "Executes the payment immediately.";

function verdict(evidence: Verdict["findings"][number]["evidence"]): Verdict {
  return {
    trajectory_id: T.id,
    judge_id: "j<1>",
    status: "ok",
    label: "unaffected",
    findings: [{ bucket: "unaffected", holds: evidence.some((q) => q.verified), evidence }],
  } as Verdict;
}

describe("tool descriptions in the report", () => {
  it("locates a verified tool-description quote in the tool, not in a message", () => {
    const loc = locateQuote(T, { message_index: -1, tool_index: 0, quote: DESC, verified: true }, "unaffected")!;
    expect(loc).toMatchObject({ message_index: -1, tool_index: 0 });
    expect(loc.end - loc.start).toBe(DESC.length);
    // found by the verifier in the tool although no place was cited
    expect(locateQuote(T, { message_index: -1, quote: DESC, verified: true, corrected_tool_index: 0 }, "unaffected")).toMatchObject({ tool_index: 0 });
  });
  it("renders the tool list before the messages, highlights the quote there, and lists a failed tool quote under its tool", () => {
    const ok = renderTrajectory(T, [verdict([{ message_index: -1, tool_index: 0, quote: DESC, verified: true }])], ["j<1>"]);
    expect(ok.stats).toMatchObject({ highlighted: 1, unverified: 0 });
    expect(ok.html).toMatch(/<div class="msg r-tooldef"><div class="mh">tool 0 · <bdi>express_bill_pay<\/bdi> \(offered to the agent\)<\/div><pre class="pt"><bdi>[^]*<mark class="q j0"[^>]*>Executes the payment immediately\.<\/mark>/);
    expect(ok.html.indexOf("r-tooldef")).toBeLessThan(ok.html.indexOf("r-system"));
    expect(ok.html.indexOf("r-system")).toBeGreaterThan(0);
    const bad = renderTrajectory(
      T,
      [verdict([{ message_index: -1, tool_index: 0, quote: "nowhere in the tool", verified: false, reason: "not found", closest: { text: "x", similarity: 0.2, message_index: -1, tool_index: 0 } }])],
      ["j<1>"],
    );
    expect(bad.stats.unverified).toBe(1);
    expect(bad.html).toMatch(/r-tooldef[^]*cites tool description <bdi>0<\/bdi>[^]*closest existing text \(similarity 0\.20, tool description 0\)/);
  });
});
