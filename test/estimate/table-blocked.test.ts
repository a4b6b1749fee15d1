import { describe, expect, it } from "vitest";
import { blockedCellText, blockedCsvCells, blockedLatexCell, rowBlocked, type PartialItem } from "../../src/estimate/table-blocked.js";

describe("a paper-table row's blocked attempts by kind (new user 29)", () => {
  const items: Array<PartialItem | null> = [
    { blocked: true, blocked_kind: "refused" },
    { blocked: true, blocked_kind: "failed" },
    { blocked: true, blocked_kind: "failed" },
    { blocked: false },
    null,
    { blocked: true, blocked_kind: "unavailable" },
  ];
  const att = items.map((_, i) => i);
  it("counts the usable partial compliance, the blocked ones and their kinds", () => {
    const r = rowBlocked(att, (i) => i !== 5, (i) => items[i]);
    expect(r).toEqual({ judge_blocked_attempts: 3, judge_blocked_attempts_by: { refused: 1, unavailable: 0, failed: 2 }, judge_partial_compliance: 4 });
    expect(blockedCellText(r)).toBe("3/4 (refused 1, unavailable 0, failed 2)");
    expect(blockedLatexCell(r)).toBe("3/4 {\\scriptsize (1/0/2)}");
    expect(blockedCsvCells(r)).toEqual([1, 0, 2]);
  });
  it("unknown is null with a reason: a kind not recorded, the flag not recorded, no attacked run", () => {
    const noKind = rowBlocked([0], () => true, () => ({ blocked: true }));
    expect(noKind).toEqual({ judge_blocked_attempts: 1, judge_blocked_attempts_by: null, judge_blocked_attempts_by_reason: "blocked_kind_not_recorded", judge_partial_compliance: 1 });
    expect(blockedCsvCells(noKind)).toEqual(["", "", ""]);
    expect(blockedLatexCell(noKind)).toBe("1/1 {\\scriptsize (kinds unknown)}");
    expect(rowBlocked([0], () => true, () => ({ blocked: undefined }))).toMatchObject({ judge_blocked_attempts: null, judge_blocked_attempts_reason: "blocked_attempt_not_recorded", judge_blocked_attempts_by: null });
    const none = rowBlocked([], () => true, () => null);
    expect(none).toMatchObject({ judge_blocked_attempts: null, judge_blocked_attempts_reason: "no_attacked_trajectories" });
    expect(blockedLatexCell(none)).toBeNull();
  });
});
