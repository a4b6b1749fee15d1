import { describe, expect, it } from "vitest";
import { fieldNoun, groupsNoun, type CellCheck } from "../../src/compare/cells.js";
import { formatCellsDropped } from "../../src/compare/cells-text.js";
import { compareConditions, formatCompare } from "../../src/compare/index.js";
import type { Observation } from "../../src/compare/data.js";

// nufix13b: `compare --by agent_model` said "conditions compared on the N cells" and "conditions 2" of models.
describe("compare: the compared groups are named by the --by field", () => {
  const check = (): CellCheck => ({
    mode: "common",
    applied: true,
    cell_fields: ["suite", "attack"],
    cells_per_condition: { m1: 3, m2: 2 },
    common_cells: 2,
    cells_dropped: { m1: { cells: 1, trajectories: 1, by_attack: { a: 1 }, by_suite: { s: 1 }, list: ["s/a"], per_model: {}, by_model: { x: { dropped: 1, of: 3 } } } },
    per_model: {},
    figures: { per_model: ["asr"], pooled: ["reversals"] },
    mixes_differ: true,
  });

  it("says conditions for --by condition and '<field> values' otherwise", () => {
    expect(groupsNoun("condition")).toBe("conditions");
    expect(groupsNoun("agent_model")).toBe("agent_model values");
    expect(formatCellsDropped(check(), "condition")[0]).toMatch(/^like-for-like, pooled: .* compare the conditions on the 2 \(suite, attack\) cells/);
    const byModel = formatCellsDropped(check(), "agent_model");
    expect(byModel[0]).toMatch(/^like-for-like, pooled: .*model x agent_model value interaction test\) compare the agent_model values on the 2 \(suite, attack\) cells they all cover/);
    expect(byModel.join("\n")).not.toMatch(/conditions compared/);
    const none = { ...check(), cells_dropped: {} };
    expect(formatCellsDropped(none, "agent_model")).toEqual(["like-for-like: every agent_model covers the same 2 (suite, attack) cells; nothing dropped"]);
    // newuser54 #5: a model whose own conditions cover fewer cells than the pooled count is named with its own
    const pm = (n: number) => ({ conditions: ["a", "b"], contrast: true, cells_per_condition: { a: n, b: n }, common_cells: n, applied: true, kept: n, of: n, dropped: {}, pooled: n });
    const two = { ...none, applied: true, common_cells: 144, per_model: { gpt: pm(144), llama: pm(97) } } as unknown as CellCheck;
    expect(formatCellsDropped(two, "condition")).toEqual([
      "like-for-like: each agent model's conditions cover the same (suite, attack) cells (gpt 144, llama 97), and every condition the same 144 pooled over the models; nothing dropped",
    ]);
  });
});

// new user 26: `compare --by attack` printed "worst condition", "(1 conditions)" and "model x condition interaction"
// while the compared values were attacks
describe("compare text: headings name the compared field", () => {
  const obs = (): Observation[] =>
    ["a", "b"].flatMap((model) =>
      ["x", "y"].flatMap((value, vi) =>
        Array.from({ length: 10 }, (_, i) => ({
          trajectory_id: `${model}/${value}/${i}`,
          model,
          suite: "s1",
          condition: value,
          injection_task: `s1/inj${i % 3}`,
          unit: `s1/u${i}`,
          compromised: i < 3 + vi * (model === "a" ? 4 : 1),
          goal: i < 2 + vi * (model === "a" ? 4 : 1),
        })),
      ),
    );
  const text = (field: string) =>
    formatCompare(compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: field, observations: obs(), n_total: 40, excluded: {} }, { bootstrap: { B: 0, seed: 1 } }));

  it("--by attack: attack success per model and attack, worst attack, model x attack interaction", () => {
    const t = text("attack");
    for (const s of ["attack success per model and attack", "reversals between attacks", "worst attack by asr_goal", "(2 attacks)", "leave-one-suite-out attack selection", "model x attack interaction", "injection task + attack;"]) expect(t).toContain(s);
    expect(t).not.toMatch(/worst condition|model x condition|between conditions|\(\d+ conditions\)|condition selection/);
  });

  it("one suite: leave-one-suite-out says why it has no fold, never an empty block (red team 29)", () => {
    expect(text("condition")).toMatch(/leave-one-suite-out condition selection by asr_goal \(0 folds = model x held-out suite; 2 skipped\):\n {2}not computed: no fold \(skipped, by reason: no_training_suite 2\)/);
  });

  it("--by condition keeps 'condition'; other fields say '<field> value'", () => {
    expect(text("condition")).toContain("worst condition by asr_goal");
    expect(text("metadata.arm")).toContain("worst metadata.arm value by asr_goal");
    expect(fieldNoun("surface", 1)).toBe("surface");
    expect(fieldNoun("surface", 3)).toBe("surfaces");
  });
});
