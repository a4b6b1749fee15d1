/**
 * A model whose three or more conditions share no cell common to all, though pairs of them do (newuser51: "3 attacks
 * share no cell" beside a difference paired over 13 cells of two of them, and a "worst attack" +2.0 pp over different
 * tasks where the 13 shared cells gave -15.4 pp): the text says what each pair shares, and the worst condition's
 * underestimate is undefined with a reason, never a figure over different tasks (src/compare/cells.ts, analysis.ts).
 */
import { describe, expect, it } from "vitest";
import { commonCellFilter, pairwiseCommon, sharedNoneText } from "../../src/compare/cells.js";
import { formatCellsDropped } from "../../src/compare/cells-text.js";
import { compareConditions, formatCompare } from "../../src/compare/index.js";
import { cs, input, runs } from "../helpers/compare-observations.js";

// x: A on c1 c2 c3, B on c1 c2 c4, C on c3 c5: A & B share 2 (c1, c2), A & C 1 (c3), B & C none; no cell under all three.
// y: A, B, C all on c9, so the pooled scope has a common cell and x's own warning is its own.
// x's rates: A 0/3, B 1/3 (c4), C 0/2: the old "worst B, underestimate 33.3 pp" compared B's c4 with A's c3.
const obs = [
  ...runs("x", "A", cs(1, 2, 3), [0, 0, 0]),
  ...runs("x", "B", cs(1, 2, 4), [0, 0, 1]),
  ...runs("x", "C", cs(3, 5), [0, 0]),
  ...runs("y", "A", cs(9), [1]),
  ...runs("y", "B", cs(9), [0]),
  ...runs("y", "C", cs(9), [0]),
];

describe("three conditions with no cell common to all, pairs sharing some", () => {
  it("the pairwise counts, most first", () => {
    const m = new Map([["A", new Set(cs(1, 2, 3))], ["B", new Set(cs(1, 2, 4))], ["C", new Set(cs(3, 5))]]);
    expect(pairwiseCommon(m)).toEqual([{ a: "A", b: "B", cells: 2 }, { a: "A", b: "C", cells: 1 }, { a: "B", b: "C", cells: 0 }]);
    expect(sharedNoneText(["f"], 2, undefined)).toBe("no (f) cell");
  });

  it("the filter, the per-model line and the warning say what each pair shares", () => {
    const f = commonCellFilter(obs, "condition", "common");
    expect(f.cells.per_model.x).toMatchObject({ applied: false, pairwise_common: [{ a: "A", b: "B", cells: 2 }, { a: "A", b: "C", cells: 1 }, { a: "B", b: "C", cells: 0 }] });
    expect(f.cells.per_model.y.pairwise_common).toBeUndefined();
    expect(f.cells.per_model.x.reason).toBe("its conditions share no (suite, user_task_id, injection_task_id, attack) cell common to all 3 (pairwise: A & B 2, A & C 1, B & C 0) (A 3, B 3, C 2)");
    expect(formatCellsDropped(f.cells).join("\n")).toContain("  x: 3 conditions (A, B, C) share no cell common to all 3 (pairwise: A & B 2, A & C 1, B & C 0): NOT LIKE FOR LIKE");
    expect(f.warnings.join("\n")).toContain("agent model x: its conditions share no (suite, user_task_id, injection_task_id, attack) cell common to all 3 (pairwise: A & B 2, A & C 1, B & C 0)");
  });

  it("its worst condition has no underestimate: null with the reason, and the text says the rates are over different tasks", () => {
    const r = compareConditions(input(obs), { bootstrap: { B: 0, seed: 1 }, baseline: "A" });
    const x = r.worst_condition.asr_behaviour.per_model.find((m) => m.model === "x")!;
    expect(x).toMatchObject({ underestimate: null, reason: "conditions_share_no_cell", worst_condition: "B" });
    // y is like for like (c9 under all three): its underestimate stands, 0 (A is its worst)
    expect(r.worst_condition.asr_behaviour.per_model.find((m) => m.model === "y")).toMatchObject({ underestimate: 0 });
    expect(r.worst_condition.asr_behaviour).toMatchObject({ n_models: 1, mean: 0 });
    const text = formatCompare(r);
    expect(text).toMatch(/x +highest \(over different tasks, not a like-for-like worst\) B/);
    expect(text).toContain("underestimate undefined (its conditions share no cell common to all, so these rates are over different tasks");
    expect(text).not.toMatch(/x +worst B/);
  });
});
