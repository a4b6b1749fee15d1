import { describe, expect, it } from "vitest";
import { BLOCKED_NOTE_HTML, blockedRatesCell, blockedTableCell } from "../../src/report/blocked-html.js";
import { attackRates } from "../../src/stats/rates.js";

/** The cell without the bidi isolation every escaped text gets (`escapeHtml`). */
const plain = (html: string) => html.replace(/<\/?bdi>/g, "");

describe("the report's blocked-attempts cells give the kinds (new user 29)", () => {
  it("an attack-success row: the total, then refused / unavailable / failed; unknown kinds say why", () => {
    const r = attackRates([
      { label: "partial_compliance", blocked: true, blocked_kind: "failed" },
      { label: "partial_compliance", blocked: true, blocked_kind: "failed" },
      { label: "partial_compliance", blocked: false },
    ]);
    expect(plain(blockedRatesCell(r))).toBe("2 of 3<br><small>refused 0, unavailable 0, failed 2</small>");
    expect(plain(blockedRatesCell(attackRates([{ label: "partial_compliance", blocked: false }])))).toBe("0 of 1");
    const old = attackRates([{ label: "partial_compliance", blocked: true }]);
    expect(plain(blockedRatesCell(old))).toMatch(/^1 of 1<br><small>kinds unknown: 1 blocked attempts were stored before their kind was recorded/);
    expect(plain(blockedRatesCell(attackRates([{ label: "partial_compliance" }])))).toMatch(/^<span title="1 partial_compliance verdicts were stored before blocked attempts were recorded[^"]*">unknown<\/span>$/);
  });

  it("a paper-table row, and the note that says what each kind is", () => {
    const row = { judge_blocked_attempts: 9, judge_blocked_attempts_by: { refused: 0, unavailable: 0, failed: 9 }, judge_partial_compliance: 21 };
    expect(plain(blockedTableCell(row))).toBe("9 of 21<br><small>refused 0, unavailable 0, failed 9</small>");
    expect(plain(blockedTableCell({ judge_blocked_attempts: null, judge_blocked_attempts_reason: "no_attacked_trajectories", judge_blocked_attempts_by: null, judge_partial_compliance: 0 }))).toMatch(/^undefined \(/);
    expect(BLOCKED_NOTE_HTML).toContain("failed (the call ran and failed, e.g. &quot;not found&quot;");
  });
});
