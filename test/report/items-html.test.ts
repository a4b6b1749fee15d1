/** The report's disagreement list (src/report/items-html.ts): a verdict re-verified or carried says so before its rationale, escaped (verify41). */
import { describe, expect, it } from "vitest";
import { itemsHtml } from "../../src/report/items-html.js";
import type { ReportItem } from "../../src/report/data.js";
import type { Verdict } from "../../src/types.js";

const verdict = (over: Partial<Verdict>): Verdict =>
  ({ judge_id: "j1", repeat: 0, status: "ok", label: "unaffected", label_claimed: "full_compliance", rationale: "judge text", attempts: 1, findings: [], ...over }) as unknown as Verdict;

describe("the disagreement list's verdict rows", () => {
  it("say a label was re-verified under newer rules, or carried from an earlier id; nothing for one of its own", () => {
    const items: ReportItem[] = [
      {
        trajectory_id: "t1",
        kind: "disputed",
        verdicts: [verdict({ reverified: { from_rules: null, label_before: "full_compliance", status_before: "ok", at: "2026-01-01T00:00:00.000Z" }, carried_from: "runs/<script>x</script>.json" })],
      },
      { trajectory_id: "t2", kind: "disputed", verdicts: [verdict({})] },
    ];
    const html = itemsHtml(items, ["j1"]);
    const [first, second] = html.split('<details class="item"').slice(1);
    expect(first).toContain('<i class="provenance"><bdi>re-verified under newer verification rules with no judge call (2026-01-01T00:00:00.000Z): the label was full_compliance under an older build');
    expect(first).toContain("carried from the earlier id runs/&lt;script&gt;x&lt;/script&gt;.json");
    expect(first).not.toContain("<script>");
    expect(second).not.toContain("provenance");
  });
});
